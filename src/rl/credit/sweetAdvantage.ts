// SWEET-RL's turn-level advantage from an asymmetric critic (Zhou et al., arXiv 2503.15478, §4):
// the critic is a language model that sees training-time information c (the hidden reference)
// and scores the agent's turn by how much more likely it finds the turn than the reference policy:
//   A(o_t, a_t, c) = β · (1/|a_t|) Σ_{k ∈ a_t} [ log π_critic(a_t^k | o_t, c, a_t^{<k}) − log π_ref(a_t^k | o_t, a_t^{<k}) ]
// Per token the credit is β (log π_critic − log π_ref). A turn with no tokens gets 0 (documented
// safe value: the mean over an empty set is undefined, and such a turn said nothing).
//
// Incremental rule: A_t depends on turn t's tokens only; a new turn never changes past credits.

import { checkFinite, checkLength, checkOffsets, checkParam, CreditError, need } from './errors.ts';
import type { CreditResult, EpisodeCreditInput, IncrementalCredit, TurnCreditInput } from './types.ts';

/** Parameters of the SWEET-RL advantage. */
export interface SweetParams {
  /** β > 0: scale of the log-ratio (rankings, and so the fidelity report, do not depend on it). */
  beta: number;
}

export const SWEET_DEFAULTS: SweetParams = { beta: 1 };

function resolve(params: Partial<SweetParams>): SweetParams {
  const p = { ...SWEET_DEFAULTS, ...params };
  checkParam('beta', p.beta, 1e-9, 1e9);
  return p;
}

/** Mean of β(lc − lr) over tokens [lo, hi), writing per-token credits into perToken at `at`. */
function turnCredit(lc: ArrayLike<number>, lr: ArrayLike<number>, lo: number, hi: number, beta: number, perToken: Float32Array, at: number): number {
  let sum = 0;
  for (let j = lo; j < hi; j++) {
    const d = beta * (lc[j] - lr[j]);
    perToken[at + j - lo] = d;
    sum += d;
  }
  return hi > lo ? sum / (hi - lo) : 0;
}

/** Batch SWEET-RL credit of one episode (needs tokenOffsets, criticLogprobs, refLogprobs). */
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
  const perTurn = new Float32Array(T);
  const perToken = new Float32Array(lc.length);
  for (let t = 0; t < T; t++) perTurn[t] = turnCredit(lc, lr, offsets[t], offsets[t + 1], p.beta, perToken, offsets[t]);
  return { estimator: 'sweet', perTurn, perToken, params: { ...p } };
}

/** SWEET-RL credit fed one turn at a time (past credits never change). */
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
    checkLength(`refLogprobs of turn ${n}`, lr, lc.length, 'one per criticLogprobs entry');
    checkFinite(`criticLogprobs of turn ${n}`, lc);
    checkFinite(`refLogprobs of turn ${n}`, lr);
    if (this.tokens + lc.length > this.perToken.length) {
      const grown = new Float32Array(Math.max(this.tokens + lc.length, this.perToken.length * 2));
      grown.set(this.perToken);
      this.perToken = grown;
    }
    this.perTurn.push(turnCredit(lc, lr, 0, lc.length, this.p.beta, this.perToken, this.tokens));
    this.tokens += lc.length;
    this.ended = turn.done === true;
    return n;
  }

  result(): CreditResult {
    return { estimator: 'sweet', perTurn: Float32Array.from(this.perTurn), perToken: this.perToken.slice(0, this.tokens), params: { ...this.p } };
  }
}
