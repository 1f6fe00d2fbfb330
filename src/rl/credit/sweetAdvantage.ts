// SWEET-RL's turn-level advantage from an asymmetric critic (Zhou et al., arXiv 2503.15478, §4,
// eq. 3): the critic is a language model that sees training-time information c (the task's hidden
// reference) and scores the agent's turn by how much more likely it finds the turn than its own
// reference, π_ref = the critic's base model without its adapter, on the same inputs (c included):
//   A(o_t, a_t, c) = β · (1/|a_t|) Σ_{k ∈ a_t} [ log π_critic(a_t^k | o_t, c, a_t^{<k}) − log π_ref(a_t^k | o_t, c, a_t^{<k}) ]
// Per token the credit is β (log π_critic − log π_ref). A turn with no tokens gets 0 (documented
// safe value: the mean over an empty set is undefined, and such a turn said nothing).
//
// This is the one definition: the credit views (IncrementalSweet, and sweetCredit as its fold) and
// the trainer (algos/sweet.ts, ranking candidate replies) both call sweetTurnAdvantage. The
// log-probs come from rollout/criticInputs.ts (credit) and the algorithm context (training), both
// scoring the critic with its adapter and with adapter null on the critic's window with c.
// A new turn never changes past credits; push() is O(n_t).

import { allFinite, checkFinite, checkLength, checkOffsets, checkParam, CreditError, need } from './errors.ts';
import { fold } from './fold.ts';
import type { CreditResult, EpisodeCreditInput, IncrementalCredit, TurnCreditInput } from './types.ts';
import type { EstimatorSpec } from './spec.ts';

/** Parameters of the SWEET-RL advantage. */
export interface SweetParams {
  /** β > 0: scale of the log-ratio (rankings, and so the fidelity report, do not depend on it). */
  beta: number;
}

export const SWEET_CREDIT_DEFAULTS: SweetParams = { beta: 1 };

function resolve(params: Partial<SweetParams>): SweetParams {
  const p = { ...SWEET_CREDIT_DEFAULTS, ...params };
  checkParam('beta', p.beta, 1e-9, 1e9);
  return p;
}

/**
 * A(o_t, a_t, c) of one turn: criticLogprobs, refLogprobs: [n_t] log π_critic and log π_ref of the
 * turn's tokens. Writes the per-token credits β(lc − lr) into `perToken` at `at` when given.
 * Returns β · mean(lc − lr), or 0 for an empty turn. Accumulates in float64.
 */
export function sweetTurnAdvantage(criticLogprobs: ArrayLike<number>, refLogprobs: ArrayLike<number>, beta: number, perToken?: Float32Array, at = 0): number {
  checkLength('refLogprobs', refLogprobs, criticLogprobs.length, 'one per criticLogprobs entry');
  let sum = 0;
  for (let j = 0; j < criticLogprobs.length; j++) {
    const d = beta * (criticLogprobs[j] - refLogprobs[j]);
    if (perToken) perToken[at + j] = d;
    sum += d;
  }
  return criticLogprobs.length > 0 ? sum / criticLogprobs.length : 0;
}

/** Batch SWEET-RL credit of one episode (needs tokenOffsets, criticLogprobs, refLogprobs): the fold of IncrementalSweet. */
export function sweetCredit(input: EpisodeCreditInput, params: Partial<SweetParams> = {}): CreditResult {
  const p = resolve(params);
  const T = input.rewards.length;
  const offsets = need(input.tokenOffsets, 'tokenOffsets', 'sweet');
  const lc = need(input.criticLogprobs, 'criticLogprobs', 'sweet');
  const lr = need(input.refLogprobs, 'refLogprobs', 'sweet');
  checkLength('refLogprobs', lr, lc.length, 'one per criticLogprobs entry');
  checkOffsets(offsets, T, lc.length);
  checkFinite('criticLogprobs', lc);
  checkFinite('refLogprobs', lr);
  return fold(new IncrementalSweet(p), { rewards: input.rewards, tokenOffsets: offsets, criticLogprobs: lc, refLogprobs: lr, terminal: input.terminal });
}

/** SWEET-RL credit fed one turn at a time (the definition; past credits never change). */
export class IncrementalSweet implements IncrementalCredit {
  readonly estimator = 'sweet' as const;
  private readonly p: SweetParams;
  private perTurn: number[] = [];
  private perToken = new Float32Array(256);
  private tokens = 0;
  private ended = false;

  constructor(params: Partial<SweetParams> = {}) {
    this.p = resolve(params);
  }

  get turns(): number {
    return this.perTurn.length;
  }

  push(turn: TurnCreditInput): number {
    const n = this.perTurn.length;
    if (this.ended) throw new CreditError('episode-ended', `turn ${n} pushed after the terminal turn`);
    const lc = need(turn.criticLogprobs, 'criticLogprobs', 'sweet');
    const lr = need(turn.refLogprobs, 'refLogprobs', 'sweet');
    if (lr.length !== lc.length) checkLength(`refLogprobs of turn ${n}`, lr, lc.length, 'one per criticLogprobs entry');
    if (!allFinite(lc)) checkFinite(`criticLogprobs of turn ${n}`, lc);
    if (!allFinite(lr)) checkFinite(`refLogprobs of turn ${n}`, lr);
    if (this.tokens + lc.length > this.perToken.length) {
      const grown = new Float32Array(Math.max(this.tokens + lc.length, this.perToken.length * 2));
      grown.set(this.perToken);
      this.perToken = grown;
    }
    this.perTurn.push(sweetTurnAdvantage(lc, lr, this.p.beta, this.perToken, this.tokens));
    this.tokens += lc.length;
    this.ended = turn.done === true;
    return n;
  }

  result(): CreditResult {
    return { estimator: 'sweet', perTurn: Float32Array.from(this.perTurn), perToken: this.perToken.slice(0, this.tokens), params: { ...this.p } };
  }
}

/** The registry's entry (spec.ts). */
export const sweetEstimator: EstimatorSpec<'sweet'> = {
  name: 'sweet',
  label: 'SWEET-RL',
  source:
    'asymmetric-critic advantage β·mean log π_critic/π_ref, π_ref the critic’s base, both seeing the hidden info (Zhou et al. 2025, arXiv 2503.15478, §4)',
  description:
    'how much more likely the trained critic, which sees the hidden information, makes this reply than its untrained base; 0 until a critic is trained.',
  scope: 'episode',
  params: [
    {
      type: 'number',
      name: 'beta',
      label: 'β',
      description: 'scale of the critic/reference log-ratio',
      default: SWEET_CREDIT_DEFAULTS.beta,
      min: 1e-9,
      max: 1e9,
    },
  ],
  needs: ['tokenOffsets', 'criticLogprobs', 'refLogprobs'],
  needsAdapter: true,
  changesPast: 'none',
  perToken: true,
  batch: (episodes, p) => episodes.map((e) => sweetCredit(e, { beta: p.beta as number })),
  incremental: (p) => new IncrementalSweet({ beta: p.beta as number }),
};
