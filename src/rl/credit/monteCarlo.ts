// Monte-Carlo return (Sutton & Barto, Reinforcement Learning, 2nd ed., eq. 3.8) at turn level:
//   G_t = Σ_{k=t}^{T−1} γ^{k−t} r_k,   computed backwards as  G_t = r_t + γ G_{t+1},  G_T = 0.
// No critic and no bootstrap: a live prefix is credited as if it ended after its last turn.
//
// One definition (fold.ts): IncrementalMonteCarlo; the batch credit is its fold over the turns.
// When turn n lands with reward r_n every past return grows by γ^{n−t} r_n, so all past credits
// change (unless r_n = 0). push() stores r_n (O(1)); result() runs the backward recursion (O(T)
// float64 multiply-adds), which is also the batch cost.

import { checkParam, checkTurns, checkFiniteScalar, CreditError } from './errors.ts';
import { fold, grow } from './fold.ts';
import type { CreditResult, EpisodeCreditInput, IncrementalCredit, TurnCreditInput } from './types.ts';
import { gammaParam, type EstimatorSpec } from './spec.ts';

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

/** Batch Monte-Carlo credit of one episode: the fold of IncrementalMonteCarlo over its turns. */
export function monteCarloCredit(input: EpisodeCreditInput, params: Partial<MonteCarloParams> = {}): CreditResult {
  const p = resolve(params);
  checkTurns(input.rewards);
  return fold(new IncrementalMonteCarlo(p), { rewards: input.rewards, terminal: input.terminal });
}

/** Monte-Carlo credit fed one turn at a time (the definition; see the rule above). */
export class IncrementalMonteCarlo implements IncrementalCredit {
  readonly estimator = 'mc' as const;
  private readonly p: MonteCarloParams;
  /** r_t: [capacity], the first n used. */
  private rewards = new Float64Array(16);
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
    if (!Number.isFinite(turn.reward)) checkFiniteScalar(`reward of turn ${this.n}`, turn.reward);
    if (this.n === this.rewards.length) this.rewards = grow(this.rewards);
    const n = this.n++;
    this.rewards[n] = turn.reward;
    this.ended = turn.done === true;
    return turn.reward === 0 ? n : 0;
  }

  result(): CreditResult {
    const out = new Float32Array(this.n);
    let g = 0;
    for (let t = this.n - 1; t >= 0; t--) {
      g = this.rewards[t] + this.p.gamma * g;
      out[t] = g;
    }
    return { estimator: 'mc', perTurn: out, params: { ...this.p } };
  }
}

/** The registry's entry (spec.ts). */
export const monteCarloEstimator: EstimatorSpec<'mc'> = {
  name: 'mc',
  label: 'MC return',
  source: 'Monte-Carlo return G_t = Σ γ^k r_{t+k} (Sutton & Barto, eq. 3.8)',
  description:
    'the reward from this turn to the end, discounted by γ. Until the episode ends it is the reward so far, so it jumps when the final reward lands.',
  scope: 'episode',
  params: [gammaParam(MONTE_CARLO_DEFAULTS.gamma, 'turn')],
  needs: ['rewards'],
  needsAdapter: false,
  changesPast: 'all',
  perToken: false,
  batch: (episodes, p) => episodes.map((e) => monteCarloCredit(e, { gamma: p.gamma as number })),
  incremental: (p) => new IncrementalMonteCarlo({ gamma: p.gamma as number }),
};
