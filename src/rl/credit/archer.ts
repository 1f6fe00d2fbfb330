// ArCHer's turn-level advantage (Zhou et al., ArCHer, arXiv 2402.19446, §4): a high-level critic
// trained by TD over turns gives Q(s_t, a_t) and V(s_t), and the token-level actor is driven by
//   A_t = Q(s_t, a_t) − V(s_t).
// This module only combines the critic's outputs; training the critic belongs to src/rl/algos.
//
// One definition (fold.ts): IncrementalArcher; the batch credit is its fold over the turns.
// A_t depends on turn t's Q and the value before it; a new turn never changes past credits (O(1)).

import { checkFinite, checkFiniteScalar, checkLength, checkTurns, CreditError, need } from './errors.ts';
import { fold } from './fold.ts';
import type { CreditResult, EpisodeCreditInput, IncrementalCredit, IncrementalStart, TurnCreditInput } from './types.ts';
import type { EstimatorSpec } from './spec.ts';

/** Batch ArCHer credit: q [T], values [T+1] (values[T] is not used); the fold of IncrementalArcher. */
export function archerCredit(input: EpisodeCreditInput): CreditResult {
  const values = need(input.values, 'values (V(s_0) … V(s_T))', 'archer');
  const q = need(input.q, 'q (Q(s_t, a_t) per turn)', 'archer');
  const T = checkTurns(input.rewards, values);
  checkLength('q', q, T, 'one Q(s_t, a_t) per turn');
  checkFinite('q', q);
  return fold(new IncrementalArcher({ initialValue: values[0] }), { rewards: input.rewards, values, q, terminal: input.terminal });
}

/** ArCHer credit fed one turn at a time (the definition). */
export class IncrementalArcher implements IncrementalCredit {
  readonly estimator = 'archer' as const;
  private perTurn: number[] = [];
  /** V(s_n), the value before the next turn. */
  private value: number;
  private ended = false;

  constructor(start: IncrementalStart = {}) {
    this.value = start.initialValue ?? 0;
    checkFiniteScalar('initialValue', this.value);
  }

  get turns(): number {
    return this.perTurn.length;
  }

  push(turn: TurnCreditInput): number {
    const n = this.perTurn.length;
    if (this.ended) throw new CreditError('episode-ended', `turn ${n} pushed after the terminal turn`);
    const q = need(turn.q, 'q (Q(s_t, a_t))', 'archer');
    if (!Number.isFinite(q)) checkFiniteScalar(`q of turn ${n}`, q);
    const done = turn.done === true;
    const next = done ? 0 : (turn.nextValue ?? need<number>(undefined, `nextValue (V(s_${n + 1})) for a non-terminal turn`, 'archer'));
    if (!Number.isFinite(next)) checkFiniteScalar(`nextValue of turn ${n}`, next);
    this.perTurn.push(q - this.value);
    this.value = next;
    this.ended = done;
    return n;
  }

  result(): CreditResult {
    return { estimator: 'archer', perTurn: Float32Array.from(this.perTurn), params: {} };
  }
}

/** The registry's entry (spec.ts). */
export const archerEstimator: EstimatorSpec<'archer'> = {
  name: 'archer',
  label: 'ArCHer Q − V',
  source: 'turn-level Q(s,a) − V(s) of a TD-trained critic (Zhou et al. 2024, arXiv 2402.19446)',
  description: 'Q(s, a) − V(s) of a critic trained by temporal differences; needs a Q head the shipped critic lacks.',
  scope: 'episode',
  params: [],
  needs: ['q', 'values'],
  needsAdapter: false,
  changesPast: 'none',
  perToken: false,
  batch: (episodes) => episodes.map((e) => archerCredit(e)),
  incremental: (_p, start) => new IncrementalArcher(start),
};
