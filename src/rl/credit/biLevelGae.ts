// RAGEN's bi-level GAE (Wang et al., RAGEN / StarPO, arXiv 2504.20073; `compute_bi_level_gae_
// advantage_return` in the RAGEN code): GAE first over turns with a turn discount, then over the
// tokens inside each turn, seeded at the turn's last token by the turn-level advantage.
//
// Turn level (high level), with V_i the value at the last token e_i of turn i:
//   δ_i = r_i + γ_H V_{i+1} − V_i          (V_T = 0 when terminal, else the bootstrap values[T])
//   A_i = δ_i + γ_H λ_H A_{i+1}
// Token level (low level), inside turn i, tokens j = e_i−1 … start_i:
//   A_{e_i} = A_i;    δ_j = γ V_{j+1} − V_j;    A_j = δ_j + γλ A_{j+1}
// so A_j = B_j + (γλ)^{e_i−j} A_i, where B_j depends only on the turn's own token values.
// RAGEN whitens the token advantages afterwards for training; this module returns them raw.
//
// One definition (fold.ts): IncrementalBiLevelGae; the batch credit is its fold over the turns.
// The turn-level V_n is only known once turn n's tokens exist, so when turn n lands δ_{n−1}
// changes (its bootstrap becomes V_n) and a new δ_n appears: every past turn-level A changes, and
// with it every past token. push() computes B and the coefficients for the new turn's tokens only
// (O(n_t)); result() runs the turn-level recursion (O(T)) and assembles the token credits (O(N)).

import { allFinite, checkFinite, checkFiniteScalar, checkOffsets, checkParam, checkTurns, CreditError, need } from './errors.ts';
import { fold, grow } from './fold.ts';
import type { CreditParams, CreditResult, EpisodeCreditInput, IncrementalCredit, TurnCreditInput } from './types.ts';
import { gammaParam, type EstimatorSpec } from './spec.ts';

/** Parameters of bi-level GAE (RAGEN's names in brackets). */
export interface BiLevelGaeParams {
  /** γ ∈ [0, 1]: token-level discount [gamma]. */
  gamma: number;
  /** λ ∈ [0, 1]: token-level GAE λ [lam]. */
  lambda: number;
  /** γ_H ∈ [0, 1]: turn-level discount [high_level_gamma]. */
  turnGamma: number;
  /** λ_H ∈ [0, 1]: turn-level GAE λ (RAGEN shares lam between levels). */
  turnLambda: number;
}

export const BI_LEVEL_GAE_DEFAULTS: BiLevelGaeParams = { gamma: 1, lambda: 1, turnGamma: 0.95, turnLambda: 1 };

function resolve(params: Partial<BiLevelGaeParams>): BiLevelGaeParams {
  const p = { ...BI_LEVEL_GAE_DEFAULTS, ...params };
  checkParam('gamma', p.gamma, 0, 1);
  checkParam('lambda', p.lambda, 0, 1);
  checkParam('turnGamma', p.turnGamma, 0, 1);
  checkParam('turnLambda', p.turnLambda, 0, 1);
  return p;
}

/**
 * Token-level part that does not depend on the turn-level advantage: for tokens [lo, hi) of one
 * turn writes B_j into `base` and (γλ)^{e−j} into `coef` (e = hi − 1).
 */
function tokenBase(
  tokenValues: ArrayLike<number>,
  lo: number,
  hi: number,
  gamma: number,
  lambda: number,
  base: Float64Array,
  coef: Float64Array,
  at: number,
): void {
  const e = hi - 1;
  base[at + e - lo] = 0;
  coef[at + e - lo] = 1;
  for (let j = e - 1; j >= lo; j--) {
    const k = at + j - lo;
    base[k] = gamma * tokenValues[j + 1] - tokenValues[j] + gamma * lambda * base[k + 1];
    coef[k] = gamma * lambda * coef[k + 1];
  }
}

/** A_i from δ_i, backwards: turn-level GAE over stored deltas. */
function turnAdvantages(deltas: Float64Array, n: number, decay: number, out: Float64Array): void {
  let a = 0;
  for (let i = n - 1; i >= 0; i--) {
    a = deltas[i] + decay * a;
    out[i] = a;
  }
}

function emptyTurn(i: number): CreditError {
  return new CreditError('bad-offsets', `bi-level GAE needs at least one token per turn; turn ${i} has none`);
}

/** Batch bi-level GAE of one episode (needs rewards, tokenOffsets, tokenValues; values[T] when not terminal): the fold of IncrementalBiLevelGae. */
export function biLevelGaeCredit(input: EpisodeCreditInput, params: Partial<BiLevelGaeParams> = {}): CreditResult {
  const p = resolve(params);
  const T = checkTurns(input.rewards, input.values);
  const offsets = need(input.tokenOffsets, 'tokenOffsets', 'bilevel-gae');
  const tv = need(input.tokenValues, 'tokenValues', 'bilevel-gae');
  checkOffsets(offsets, T, tv.length);
  checkFinite('tokenValues', tv);
  for (let i = 0; i < T; i++) if (offsets[i + 1] === offsets[i]) throw emptyTurn(i);
  const terminal = input.terminal ?? true;
  const values = terminal || T === 0 ? undefined : need(input.values, 'values[T] (bootstrap of a non-terminal prefix)', 'bilevel-gae');
  return fold(new IncrementalBiLevelGae(p), { rewards: input.rewards, tokenOffsets: offsets, tokenValues: tv, terminal, ...(values ? { values } : {}) });
}

/** Bi-level GAE fed one turn at a time (the definition; see the rule above). */
export class IncrementalBiLevelGae implements IncrementalCredit {
  readonly estimator = 'bilevel-gae' as const;
  private readonly p: BiLevelGaeParams;
  private rewards: number[] = [];
  private turnValues: number[] = [];
  private deltas = new Float64Array(16);
  private turnAdv = new Float64Array(16);
  private base = new Float64Array(256);
  private coef = new Float64Array(256);
  private offsets: number[] = [0];
  private ended = false;
  /** The newest turn ended the episode or came with its bootstrap. */
  private bootstrapped = true;

  constructor(params: Partial<BiLevelGaeParams> = {}) {
    this.p = resolve(params);
  }

  get turns(): number {
    return this.rewards.length;
  }

  push(turn: TurnCreditInput): number {
    const n = this.rewards.length;
    if (this.ended) throw new CreditError('episode-ended', `turn ${n} pushed after the terminal turn`);
    if (!Number.isFinite(turn.reward)) checkFiniteScalar(`reward of turn ${n}`, turn.reward);
    const tv = need(turn.tokenValues, 'tokenValues', 'bilevel-gae');
    if (!allFinite(tv)) checkFinite(`tokenValues of turn ${n}`, tv);
    if (tv.length === 0) throw emptyTurn(n);
    const done = turn.done === true;
    // Only the newest turn's bootstrap is ever used (the next turn replaces it with its own V), so
    // it is required when a non-terminal prefix is read, not on every push.
    const next = done ? 0 : turn.nextValue;
    if (next !== undefined && !Number.isFinite(next)) checkFiniteScalar(`nextValue of turn ${n}`, next);

    const lo = this.offsets[n];
    const hi = lo + tv.length;
    this.ensure(n + 1, hi);
    tokenBase(tv, 0, tv.length, this.p.gamma, this.p.lambda, this.base, this.coef, lo);
    const v = tv[tv.length - 1];
    if (n > 0) this.deltas[n - 1] = this.rewards[n - 1] + this.p.turnGamma * v - this.turnValues[n - 1];
    this.deltas[n] = turn.reward + this.p.turnGamma * (next ?? 0) - v;
    this.bootstrapped = next !== undefined;
    this.rewards.push(turn.reward);
    this.turnValues.push(v);
    this.offsets.push(hi);
    this.ended = done;
    return 0;
  }

  result(): CreditResult {
    const n = this.rewards.length;
    if (n > 0 && !this.bootstrapped)
      throw new CreditError('missing-input', `bilevel-gae needs nextValue (bootstrap after turn ${n - 1}) to credit a non-terminal prefix`);
    turnAdvantages(this.deltas, n, this.p.turnGamma * this.p.turnLambda, this.turnAdv);
    const N = this.offsets[n];
    const perToken = new Float32Array(N);
    for (let i = 0; i < n; i++) {
      for (let j = this.offsets[i]; j < this.offsets[i + 1]; j++) perToken[j] = this.base[j] + this.coef[j] * this.turnAdv[i];
    }
    return { estimator: 'bilevel-gae', perTurn: Float32Array.from(this.turnAdv.subarray(0, n)), perToken, params: { ...this.p } };
  }

  private ensure(turns: number, tokens: number): void {
    if (turns > this.deltas.length) {
      this.deltas = grow(this.deltas, turns);
      this.turnAdv = grow(this.turnAdv, turns);
    }
    if (tokens > this.base.length) {
      this.base = grow(this.base, tokens);
      this.coef = grow(this.coef, tokens);
    }
  }
}

const biLevelParams = (p: CreditParams): BiLevelGaeParams => ({
  gamma: p.gamma as number,
  lambda: p.lambda as number,
  turnGamma: p.turnGamma as number,
  turnLambda: p.turnLambda as number,
});

/** The registry's entry (spec.ts). */
export const biLevelGaeEstimator: EstimatorSpec<'bilevel-gae'> = {
  name: 'bilevel-gae',
  label: 'Bi-level GAE',
  source: 'RAGEN bi-level GAE: turns, then tokens within a turn (Wang et al. 2025, arXiv 2504.20073)',
  description:
    'GAE over turns with a turn discount, then over the reply’s tokens (RAGEN); the bar is the turn-level advantage that seeds its tokens, and its token strip shows that advantage plus how much more or less the critic valued each token than the reply’s average.',
  scope: 'episode',
  params: [
    gammaParam(BI_LEVEL_GAE_DEFAULTS.gamma, 'token'),
    { type: 'number', name: 'lambda', label: 'λ', description: 'token-level GAE λ', default: BI_LEVEL_GAE_DEFAULTS.lambda, min: 0, max: 1 },
    {
      type: 'number',
      name: 'turnGamma',
      label: 'γ_turn',
      description: 'discount per turn (RAGEN high_level_gamma)',
      default: BI_LEVEL_GAE_DEFAULTS.turnGamma,
      min: 0,
      max: 1,
    },
    { type: 'number', name: 'turnLambda', label: 'λ_turn', description: 'turn-level GAE λ', default: BI_LEVEL_GAE_DEFAULTS.turnLambda, min: 0, max: 1 },
  ],
  needs: ['rewards', 'tokenOffsets', 'tokenValues'],
  needsAdapter: false,
  changesPast: 'all',
  perToken: true,
  batch: (episodes, p) => episodes.map((e) => biLevelGaeCredit(e, biLevelParams(p))),
  incremental: (p) => new IncrementalBiLevelGae(biLevelParams(p)),
};
