// Within-state fidelity (issue #46): how well an estimator ranks the candidate turns of ONE state
// against their counterfactual Q, the way SWEET-RL uses its critic (Zhou et al., arXiv 2503.15478
// §4: the actor's best-versus-worst of N candidate turns sampled at one state). A Bradley–Terry
// critic, like DPO's implicit reward (Rafailov et al. 2024, "From r to Q*"), identifies
// β·log(π_critic/π_ref) only up to a function of the state, so this is the comparison it claims;
// ranking turns of different states (the pooled report, fidelity.ts) asks more of it.
//
// Per state s with N candidates a_1…a_N: truth Q̂(s, a_i) (mean of M re-rolls) and each estimator's
// score. Two statistics per state, each averaged over states with a percentile bootstrap over states
// (bootstrap.ts; states are independent draws, candidates of one state are not):
//  - Spearman ρ(truth, score) (average ranks for ties). A score constant at the state ranks nothing:
//    ρ = 0 there (not undefined, so an estimator cannot look better by abstaining);
//  - pairwise accuracy over pairs i < j with truth_i ≠ truth_j: 1 when the score orders them as the
//    truth does, ½ when the score ties them, 0 otherwise; pooled over all such pairs of all states.
// A state whose truths all tie orders nothing and is skipped (counted in `skipped`).
//
// The truth's own reliability at M (Spearman 1904, correction for attenuation; fidelity.ts): the M
// re-rolls of every candidate are split into two halves, Q̂_A and Q̂_B (M/2 each), whose mean
// within-state Spearman r_half is the reliability at M/2; Spearman–Brown (1910) steps it up to M:
//   r_M = 2 r_half / (1 + r_half),   ceiling √r_M.
// Both corrections are exact for Pearson correlations of a truth with additive noise, approximate
// for Spearman; the ceiling says roughly how high any estimator's mean Spearman can land.

import { bootstrapInterval, type BootstrapOptions, type Interval } from './bootstrap.ts';
import { checkFinite, checkLength, CreditError } from './errors.ts';
import { spearman } from './rank.ts';

/** One state: the truth of each of its N candidates and each estimator's scores of them. */
export interface CandidateState {
  /** [N] Q̂(s, a_i): the candidate's mean counterfactual return. */
  truth: ArrayLike<number>;
  /** estimator name → [N] score per candidate (higher = better). */
  scores: Record<string, ArrayLike<number>>;
}

/** Pairwise agreement of one state: `correct` (ties count ½) out of `pairs` pairs whose truths differ. */
export interface PairCount {
  correct: number;
  pairs: number;
}

/** Pairs i < j with truth_i ≠ truth_j, and how many of them `score` orders as the truth does (ties ½). */
export function pairwiseAgreement(truth: ArrayLike<number>, score: ArrayLike<number>): PairCount {
  checkLength('score', score, truth.length, 'one per candidate');
  let correct = 0;
  let pairs = 0;
  for (let i = 0; i < truth.length; i++) {
    for (let j = i + 1; j < truth.length; j++) {
      const dt = truth[i] - truth[j];
      if (dt === 0) continue;
      pairs++;
      const ds = score[i] - score[j];
      if (ds === 0) correct += 0.5;
      else if (ds > 0 === dt > 0) correct += 1;
    }
  }
  return { correct, pairs };
}

/** True when every entry equals the first (an empty or one-entry list is constant). */
export function isConstant(x: ArrayLike<number>): boolean {
  for (let i = 1; i < x.length; i++) if (x[i] !== x[0]) return false;
  return true;
}

/** Spearman ρ of one state, 0 where the score is constant; null where the truth is (the state is skipped). */
export function stateSpearman(truth: ArrayLike<number>, score: ArrayLike<number>): number | null {
  checkLength('score', score, truth.length, 'one per candidate');
  if (isConstant(truth)) return null;
  return isConstant(score) ? 0 : (spearman(truth, score) ?? 0);
}

/** One estimator's within-state fidelity. */
export interface WithinStateRow {
  estimator: string;
  /** Mean over ranked states of the within-state Spearman ρ, with its interval over states. */
  spearman: Interval;
  /** Pooled pairwise accuracy over pairs with differing truths, with its interval over states. */
  pairwise: Interval;
  /** Pairs with differing truths (all states). */
  pairs: number;
}

/** The within-state report. */
export interface WithinStateReport {
  /** States given. */
  states: number;
  /** States whose truths all tie (skipped: they order nothing). */
  skipped: number;
  /** Candidates given (all states). */
  candidates: number;
  rows: WithinStateRow[];
  bootstrap: Required<BootstrapOptions>;
}

function meanOver(per: (number | null)[]): (idx: Int32Array) => number | null {
  return (idx) => {
    let sum = 0;
    let n = 0;
    for (const i of idx) {
      const v = per[i];
      if (v !== null) {
        sum += v;
        n++;
      }
    }
    return n > 0 ? sum / n : null;
  };
}

function pooledPairs(per: PairCount[]): (idx: Int32Array) => number | null {
  return (idx) => {
    let c = 0;
    let p = 0;
    for (const i of idx) {
      c += per[i].correct;
      p += per[i].pairs;
    }
    return p > 0 ? c / p : null;
  };
}

/**
 * Per estimator (default: the names of the first state's scores), the mean within-state Spearman and
 * the pairwise accuracy against the truth, each with a bootstrap interval over states. All intervals
 * resample the same states (one seed): estimators are compared paired.
 */
export function withinStateReport(states: readonly CandidateState[], estimators?: readonly string[], options: BootstrapOptions = {}): WithinStateReport {
  const bootstrap = { resamples: options.resamples ?? 1000, level: options.level ?? 0.95, seed: options.seed ?? 0 };
  const names = estimators ?? (states.length > 0 ? Object.keys(states[0].scores) : []);
  states.forEach((s, i) => checkFinite(`state ${i} truth`, s.truth));
  // skipped states stay in the resampling (as units that contribute nothing), so every row resamples alike
  const ranked = states.map((s) => !isConstant(s.truth));
  const rows = names.map((name): WithinStateRow => {
    const rho: (number | null)[] = [];
    const pairs: PairCount[] = [];
    states.forEach((s, i) => {
      const score = s.scores[name];
      if (score === undefined) throw new CreditError('missing-input', `state ${i} has no scores from ${name}`);
      checkLength(`state ${i} ${name} scores`, score, s.truth.length, 'one per candidate');
      checkFinite(`state ${i} ${name} scores`, score);
      rho.push(ranked[i] ? stateSpearman(s.truth, score) : null);
      pairs.push(pairwiseAgreement(s.truth, score));
    });
    return {
      estimator: name,
      spearman: bootstrapInterval(states.length, meanOver(rho), bootstrap),
      pairwise: bootstrapInterval(states.length, pooledPairs(pairs), bootstrap),
      pairs: pairs.reduce((a, p) => a + p.pairs, 0),
    };
  });
  return { states: states.length, skipped: ranked.filter((r) => !r).length, candidates: states.reduce((a, s) => a + s.truth.length, 0), rows, bootstrap };
}

/** The truth's reliability at M from two half-draws of it. */
export interface HalfSplitReliability {
  /** Mean within-state Spearman between the halves (each M/2 re-rolls), over states where the full truth is not constant. */
  half: Interval;
  /** Spearman–Brown at M: 2r/(1+r) of each bound (r ≤ 0 gives 0). */
  full: Interval;
  /** √ of `full`: about the most any estimator's mean within-state Spearman can reach against the M-re-roll truth. */
  ceiling: Interval;
}

/** Spearman–Brown prophecy for a test twice as long: 2r/(1+r), r ≤ 0 → 0. */
export function spearmanBrown(r: number): number {
  return r <= 0 ? 0 : (2 * r) / (1 + r);
}

/**
 * Reliability from half-draws: per state [N] Q̂_A and Q̂_B (each from half the re-rolls), and the
 * full truth (which decides the skipped states, as in withinStateReport). A half constant at a ranked
 * state scores 0 there.
 */
export function halfSplitReliability(
  truth: readonly ArrayLike<number>[],
  halfA: readonly ArrayLike<number>[],
  halfB: readonly ArrayLike<number>[],
  options: BootstrapOptions = {},
): HalfSplitReliability {
  if (halfA.length !== truth.length || halfB.length !== truth.length)
    throw new CreditError('length-mismatch', `half draws have ${halfA.length} and ${halfB.length} states, expected ${truth.length}`);
  const per = truth.map((t, i) => {
    checkLength(`state ${i} first half`, halfA[i], t.length, 'one per candidate');
    checkLength(`state ${i} second half`, halfB[i], t.length, 'one per candidate');
    if (isConstant(t)) return null;
    return isConstant(halfA[i]) || isConstant(halfB[i]) ? 0 : (spearman(halfA[i], halfB[i]) ?? 0);
  });
  const half = bootstrapInterval(truth.length, meanOver(per), { resamples: options.resamples ?? 1000, level: options.level ?? 0.95, seed: options.seed ?? 0 });
  const map = (i: Interval, f: (x: number) => number): Interval => ({
    ...i,
    estimate: i.estimate === null ? null : f(i.estimate),
    low: i.low === null ? null : f(i.low),
    high: i.high === null ? null : f(i.high),
  });
  const full = map(half, spearmanBrown);
  return { half, full, ceiling: map(full, Math.sqrt) };
}
