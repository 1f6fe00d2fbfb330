// Monte-Carlo return (Sutton & Barto, Reinforcement Learning, 2nd ed., eq. 3.8) at turn level:
//   G_t = Σ_{k=t}^{T−1} γ^{k−t} r_k
// No critic and no bootstrap: a live prefix is credited as if it ended after its last turn.
//
// Incremental rule: when turn n lands with reward r_n, every past return grows,
//   G_t ← G_t + γ^{n−t} r_n   for t ≤ n,
// so all past credits change (unless r_n = 0); O(n) per turn.

import { checkParam, checkTurns, checkFiniteScalar, CreditError } from './errors.ts';
import type { CreditResult, EpisodeCreditInput, IncrementalCredit, TurnCreditInput } from './types.ts';

/** Parameters of the Monte-Carlo return. */
export interface MonteCarloParams {
  /** γ ∈ [0, 1]: discount per turn. */
  gamma: number;
}

export const MONTE_CARLO_DEFAULTS: MonteCarloParams = { gamma: 1 };

function resolve(params: Partial<MonteCarloParams>): MonteCarloParams {
  const p = { ...MONTE_CARLO_DEFAULTS, ...params };
  checkParam('gamma', p.gamma, 0, 1);
  return p;
}

/** G_t for every turn: rewards [T] → returns [T] (float64 accumulation). */
export function discountedReturns(rewards: Float32Array, gamma: number): Float32Array {
  checkTurns(rewards);
  checkParam('gamma', gamma, 0, 1);
  const out = new Float32Array(rewards.length);
  let g = 0;
  for (let t = rewards.length - 1; t >= 0; t--) {
    g = rewards[t] + gamma * g;
    out[t] = g;
  }
  return out;
}

/** Batch Monte-Carlo credit of one episode. */
export function monteCarloCredit(input: EpisodeCreditInput, params: Partial<MonteCarloParams> = {}): CreditResult {
  const p = resolve(params);
  return { estimator: 'mc', perTurn: discountedReturns(input.rewards, p.gamma), params: { ...p } };
}

/** Monte-Carlo credit fed one turn at a time (see the update rule above). */
export class IncrementalMonteCarlo implements IncrementalCredit {
  readonly estimator = 'mc' as const;
  private readonly p: MonteCarloParams;
  private returns = new Float64Array(16);
  private n = 0;
  private ended = false;

  constructor(params: Partial<MonteCarloParams> = {}) {
    this.p = resolve(params);
  }

  get turns(): number {
    return this.n;
  }

  push(turn: TurnCreditInput): number {
    if (this.ended) throw new CreditError('episode-ended', `turn ${this.n} pushed after the terminal turn`);
    checkFiniteScalar(`reward of turn ${this.n}`, turn.reward);
    if (this.n === this.returns.length) {
      const grown = new Float64Array(this.n * 2);
      grown.set(this.returns);
      this.returns = grown;
    }
    const n = this.n++;
    this.returns[n] = 0;
    let w = 1;
    for (let t = n; t >= 0; t--) {
      this.returns[t] += w * turn.reward;
      w *= this.p.gamma;
    }
    this.ended = turn.done === true;
    return turn.reward === 0 ? n : 0;
  }

  result(): CreditResult {
    return { estimator: 'mc', perTurn: Float32Array.from(this.returns.subarray(0, this.n)), params: { ...this.p } };
  }
}
