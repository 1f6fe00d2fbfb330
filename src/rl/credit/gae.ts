// Generalized Advantage Estimation (Schulman et al., 2016, arXiv 1506.02438, eqs. 11–16) at turn
// level, with the value critic's V(s_t) before each turn:
//   δ_t = r_t + γ V(s_{t+1}) − V(s_t)                 (V(s_T) = 0 when the episode ended)
//   A_t = Σ_{l≥0} (γλ)^l δ_{t+l}    computed backwards as  A_t = δ_t + γλ A_{t+1}
// λ = 1, V = 0 gives the Monte-Carlo return; λ = 0 gives the one-step TD error δ_t.
//
// One definition (fold.ts): IncrementalGae; the batch credit is its fold over the turns. A live
// prefix of n turns bootstraps from V(s_n). When turn n lands with r_n and V(s_{n+1}), the past
// δ's are unchanged (each used V(s_{t+1}), already known) and only δ_n appears, so every past
// advantage changes by (γλ)^{n−t} δ_n. push() stores δ_n (O(1)); result() runs the backward
// recursion (O(T) float64 multiply-adds), which is also the batch cost.

import { checkFiniteScalar, checkParam, checkTurns, CreditError, need } from './errors.ts';
import { fold, grow } from './fold.ts';
import type { CreditResult, EpisodeCreditInput, IncrementalCredit, IncrementalStart, TurnCreditInput } from './types.ts';
import { gammaParam, type EstimatorSpec } from './spec.ts';

/** Parameters of turn-level GAE. */
export interface GaeParams {
  /** γ ∈ [0, 1]: discount per turn. */
  gamma: number;
  /** λ ∈ [0, 1]: 0 = one-step TD (trusts the critic), 1 = Monte-Carlo minus V (trusts the returns). */
  lambda: number;
}

export const GAE_DEFAULTS: GaeParams = { gamma: 1, lambda: 0.95 };

function resolve(params: Partial<GaeParams>): GaeParams {
  const p = { ...GAE_DEFAULTS, ...params };
  checkParam('gamma', p.gamma, 0, 1);
  checkParam('lambda', p.lambda, 0, 1);
  return p;
}

/**
 * GAE on plain arrays (the fold of IncrementalGae).
 * rewards: [T]; values: [T+1], values[T] is the bootstrap V(s_T) (ignored when terminal).
 * Returns A: [T]. Accumulates in float64.
 */
export function gaeAdvantages(rewards: Float32Array, values: Float32Array, gamma: number, lambda: number, terminal: boolean): Float32Array {
  checkTurns(rewards, values);
  return fold(new IncrementalGae({ gamma, lambda }, { initialValue: values[0] }), { rewards, values, terminal }).perTurn;
}

/** Batch turn-level GAE of one episode (needs rewards and values). */
export function gaeCredit(input: EpisodeCreditInput, params: Partial<GaeParams> = {}): CreditResult {
  const p = resolve(params);
  const values = need(input.values, 'values (V(s_0) … V(s_T))', 'gae');
  const perTurn = gaeAdvantages(input.rewards, values, p.gamma, p.lambda, input.terminal ?? true);
  return { estimator: 'gae', perTurn, params: { ...p } };
}

/** Turn-level GAE fed one turn at a time (the definition; see the rule above). */
export class IncrementalGae implements IncrementalCredit {
  readonly estimator = 'gae' as const;
  private readonly p: GaeParams;
  /** δ_t: [capacity], the first n used. */
  private deltas = new Float64Array(16);
  private n = 0;
  /** V(s_n): the bootstrap of the prefix, the value before the next turn. */
  private value: number;
  private ended = false;

  constructor(params: Partial<GaeParams> = {}, start: IncrementalStart = {}) {
    this.p = resolve(params);
    this.value = start.initialValue ?? 0;
    checkFiniteScalar('initialValue', this.value);
  }

  get turns(): number {
    return this.n;
  }

  push(turn: TurnCreditInput): number {
    if (this.ended) throw new CreditError('episode-ended', `turn ${this.n} pushed after the terminal turn`);
    if (!Number.isFinite(turn.reward)) checkFiniteScalar(`reward of turn ${this.n}`, turn.reward);
    const done = turn.done === true;
    const next = done ? 0 : (turn.nextValue ?? need<number>(undefined, `nextValue (V(s_${this.n + 1})) for a non-terminal turn`, 'gae'));
    if (!Number.isFinite(next)) checkFiniteScalar(`nextValue of turn ${this.n}`, next);
    if (this.n === this.deltas.length) this.deltas = grow(this.deltas);
    const n = this.n++;
    const delta = turn.reward + this.p.gamma * next - this.value;
    this.deltas[n] = delta;
    this.value = next;
    this.ended = done;
    return delta === 0 || this.p.gamma * this.p.lambda === 0 ? n : 0;
  }

  result(): CreditResult {
    const out = new Float32Array(this.n);
    const decay = this.p.gamma * this.p.lambda;
    let a = 0;
    for (let t = this.n - 1; t >= 0; t--) {
      a = this.deltas[t] + decay * a;
      out[t] = a;
    }
    return { estimator: 'gae', perTurn: out, params: { ...this.p } };
  }
}

/** The registry's entry (spec.ts). */
export const gaeEstimator: EstimatorSpec<'gae'> = {
  name: 'gae',
  label: 'GAE (turn)',
  source: 'GAE over turns with the value critic (Schulman et al. 2016, arXiv 1506.02438, eq. 16)',
  description: 'how much better this turn went than the critic expected: TD errors of its value estimates, blended by λ.',
  scope: 'episode',
  params: [
    gammaParam(GAE_DEFAULTS.gamma, 'turn'),
    { type: 'number', name: 'lambda', label: 'λ', description: '0 = one-step TD, 1 = MC return minus V', default: GAE_DEFAULTS.lambda, min: 0, max: 1 },
  ],
  needs: ['rewards', 'values'],
  needsAdapter: false,
  changesPast: 'all',
  perToken: false,
  batch: (episodes, p) => episodes.map((e) => gaeCredit(e, { gamma: p.gamma as number, lambda: p.lambda as number })),
  incremental: (p, start) => new IncrementalGae({ gamma: p.gamma as number, lambda: p.lambda as number }, start),
};
