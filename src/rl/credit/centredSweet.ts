// Centred SWEET-RL credit (issue #46). SWEET-RL's critic is trained by Bradley–Terry on pairs of
// trajectories (Zhou et al., arXiv 2503.15478 §4), which identifies its log-ratio
// β·log(π_critic/π_ref) only up to a function of the state (as DPO's implicit reward: Rafailov et al.
// 2024, "From r to Q*", §4). The paper only compares candidate turns of one state, where that function
// cancels. To show or pool credit across states, remove it: subtract the log-ratio's mean over K
// candidate turns a'_1…a'_K sampled from the policy at the same state,
//   Ā(s_t, a_t) = A(s_t, a_t) − (1/K) Σ_k A(s_t, a'_k),
// a Monte-Carlo estimate of A − E_{a'~π(·|s_t)} A(s_t, a'): an advantage in the usual sense (its
// policy mean is 0), and a state-constant offset A + c(s) cancels exactly. A is sweetTurnAdvantage's
// (the token-mean log-ratio, credit/sweetAdvantage.ts); the K candidates are the rollout's to sample
// (rollout/withinState.ts sampleCandidateTurns).
import { checkFinite, checkFiniteScalar, CreditError } from './errors.ts';
import { sweetTurnAdvantage } from './sweetAdvantage.ts';

/** K, the candidates sampled per state for centring, unless set. */
export const SWEET_CENTRE_DEFAULT = 8;

/** The largest K the lab's inputs take (K generations per turn in Play). */
export const SWEET_CENTRE_MAX = 64;

/** K as the lab takes it from an input: a whole number in [0, SWEET_CENTRE_MAX] (0: the raw log-ratio). */
export function clampCentre(k: number): number {
  return Math.max(0, Math.min(SWEET_CENTRE_MAX, Math.round(k)));
}

/** "SWEET-RL, centred over K = 8 candidates" or "SWEET-RL, uncentred (raw log-ratio)". */
export function centredLabel(label: string, k: number): string {
  return k === 0 ? `${label}, uncentred (raw log-ratio)` : `${label}, centred over K = ${k} candidates`;
}

/** A − mean(candidates): the advantage of a turn against the mean of K candidates' at its state (K ≥ 1). */
export function centredAdvantage(advantage: number, candidates: ArrayLike<number>): number {
  checkFiniteScalar('advantage', advantage);
  if (candidates.length === 0) throw new CreditError('bad-sample', 'centring needs at least one candidate turn at the state (K ≥ 1)');
  checkFinite('candidate advantages', candidates);
  let sum = 0;
  for (let k = 0; k < candidates.length; k++) sum += candidates[k];
  return advantage - sum / candidates.length;
}

/** One turn's token log-probs under the critic (its adapter) and its reference (the base), [n] each. */
export interface ScoredTurn {
  criticLogprobs: ArrayLike<number>;
  refLogprobs: ArrayLike<number>;
}

/** Centred SWEET-RL advantage of a taken turn: its A(s, a) minus the mean A(s, a'_k) of K candidates at its state. */
export function centredSweetTurn(taken: ScoredTurn, candidates: readonly ScoredTurn[], beta = 1): number {
  const a = sweetTurnAdvantage(taken.criticLogprobs, taken.refLogprobs, beta);
  return centredAdvantage(
    a,
    candidates.map((c) => sweetTurnAdvantage(c.criticLogprobs, c.refLogprobs, beta)),
  );
}
