// Group-normalised advantage of GRPO (Shao et al., DeepSeekMath, arXiv 2402.03300, §4.1.2) as
// RAGEN/StarPO applies it to whole multi-turn episodes (arXiv 2504.20073): the K episodes of one
// task form a group, each episode's return R_i = Σ_t r_t is compared with the group's,
//   A_i = (R_i − mean_j R_j) / (std_j R_j + ε)       (divideByStd)
//   A_i =  R_i − mean_j R_j                            (mean only, as in docs/design.md's calibration)
// and every turn (and token) of episode i gets A_i.
// Safe values: a group of one, or one whose returns are all equal (zero spread), gets zeros, never
// NaN or round-off noise divided by a tiny std (returns within 1e-6 relative count as equal); an
// empty group gets an empty array.
//
// One definition (fold.ts): IncrementalGroupAdvantage; the batch credit (groupCredit) is its fold
// over each group's episodes. A reward landing in any episode changes that episode's return and
// with it the mean and spread of the group, so every turn of every episode in the group changes:
// push() is O(1), reading the advantages O(K). Live credit compares returns so far (an episode
// with no turn yet counts with R = 0) and equals the final GRPO once all K episodes have ended.

import { checkFinite, checkFiniteScalar, checkParam, CreditError } from './errors.ts';
import { forEachTurn } from './fold.ts';
import type { CreditResult, EpisodeCreditInput, TurnCreditInput } from './types.ts';
import type { EstimatorSpec } from './spec.ts';

/** Parameters of the group-normalised advantage. */
export interface GroupAdvantageParams {
  /** Divide by the group's standard deviation (GRPO); false keeps only the mean subtraction. */
  divideByStd: boolean;
  /** Unbiased (n − 1) standard deviation, as torch.std in RAGEN and TRL; false = population std. */
  unbiased: boolean;
  /** ε ≥ 0 added to the standard deviation before dividing. */
  epsilon: number;
}

/** Returns closer than this (relative to max(1, |R|)) count as equal: float32 rewards carry ~1e-7 relative error. */
const ZERO_SPREAD = 1e-6;

export const GROUP_ADVANTAGE_DEFAULTS: GroupAdvantageParams = { divideByStd: true, unbiased: true, epsilon: 1e-6 };

function resolve(params: Partial<GroupAdvantageParams>): GroupAdvantageParams {
  const p = { ...GROUP_ADVANTAGE_DEFAULTS, ...params };
  checkParam('epsilon', p.epsilon, 0, 1);
  return p;
}

function paramsRecord(p: GroupAdvantageParams): Record<string, number | boolean> {
  return { divideByStd: p.divideByStd, unbiased: p.unbiased, epsilon: p.epsilon };
}

/**
 * Mean and unbiased std of a set of returns compared with one another (a step group's, a turn index's),
 * or null where there is nothing to compare: fewer than two, or all equal within ZERO_SPREAD of max(1, |mean|).
 */
export function spreadOf(xs: readonly number[]): { mean: number; std: number } | null {
  if (xs.length < 2) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  if (Math.max(...xs) - Math.min(...xs) <= ZERO_SPREAD * Math.max(1, Math.abs(mean))) return null;
  return { mean, std: Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)) };
}

/** returns: [K] episode returns of one group → [K] advantages (see the safe values above). */
export function groupAdvantages(returns: ArrayLike<number>, params: Partial<GroupAdvantageParams> = {}): Float32Array {
  const p = resolve(params);
  checkFinite('returns', returns);
  const K = returns.length;
  const out = new Float32Array(K);
  if (K < 2) return out;
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (let i = 0; i < K; i++) {
    sum += returns[i];
    if (returns[i] < min) min = returns[i];
    if (returns[i] > max) max = returns[i];
  }
  if (max - min <= ZERO_SPREAD * Math.max(1, Math.abs(min), Math.abs(max))) return out;
  const mean = sum / K;
  let ss = 0;
  for (let i = 0; i < K; i++) ss += (returns[i] - mean) ** 2;
  const scale = p.divideByStd ? 1 / (Math.sqrt(ss / (p.unbiased ? K - 1 : K)) + p.epsilon) : 1;
  for (let i = 0; i < K; i++) out[i] = (returns[i] - mean) * scale;
  return out;
}

/**
 * Batch GRPO credit of many episodes, grouped by `group` (required on each): result i belongs to
 * episodes[i], its perTurn filled with the episode's group advantage. The fold of
 * IncrementalGroupAdvantage over each group's episodes.
 */
export function groupCredit(episodes: readonly EpisodeCreditInput[], params: Partial<GroupAdvantageParams> = {}): CreditResult[] {
  const p = resolve(params);
  const groups = new Map<string, number[]>();
  episodes.forEach((e, i) => {
    if (e.group === undefined) throw new CreditError('missing-input', `grpo needs a group id on every episode; episode ${i} has none`);
    checkFinite('rewards', e.rewards);
    const members = groups.get(e.group) ?? [];
    members.push(i);
    groups.set(e.group, members);
  });
  const out = new Array<CreditResult>(episodes.length);
  for (const members of groups.values()) {
    const group = new IncrementalGroupAdvantage(members.length, p);
    members.forEach((i, k) => {
      forEachTurn({ rewards: episodes[i].rewards, terminal: episodes[i].terminal }, (turn) => group.push(k, turn));
    });
    members.forEach((i, k) => (out[i] = group.result(k)));
  }
  return out;
}

/** GRPO over the K episodes of one task, fed one turn at a time (the definition). */
export class IncrementalGroupAdvantage {
  private readonly p: GroupAdvantageParams;
  private readonly returns: Float64Array;
  private readonly turnCounts: Int32Array;
  private readonly ended: Uint8Array;
  private cache: Float32Array | null = null;

  constructor(
    readonly size: number,
    params: Partial<GroupAdvantageParams> = {},
  ) {
    if (!Number.isInteger(size) || size < 1) throw new CreditError('bad-param', `group size ${size} must be a positive integer`);
    this.p = resolve(params);
    this.returns = new Float64Array(size);
    this.turnCounts = new Int32Array(size);
    this.ended = new Uint8Array(size);
  }

  /** Adds a turn to episode `i`; every episode's credit may change. */
  push(i: number, turn: TurnCreditInput): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.size) throw new CreditError('bad-param', `episode ${i} is outside the group of ${this.size}`);
    if (this.ended[i]) throw new CreditError('episode-ended', `turn ${this.turnCounts[i]} of episode ${i} pushed after its terminal turn`);
    if (!Number.isFinite(turn.reward)) checkFiniteScalar(`reward of turn ${this.turnCounts[i]} of episode ${i}`, turn.reward);
    this.returns[i] += turn.reward;
    this.turnCounts[i]++;
    this.ended[i] = turn.done === true ? 1 : 0;
    this.cache = null;
  }

  /** [K] current advantages of the episodes. */
  advantages(): Float32Array {
    this.cache ??= groupAdvantages(this.returns, this.p);
    return this.cache.slice();
  }

  /** Episode i's credit so far: its advantage on each of its turns. */
  result(i: number): CreditResult {
    const a = this.advantages()[i];
    return { estimator: 'grpo', perTurn: new Float32Array(this.turnCounts[i]).fill(a), params: paramsRecord(this.p) };
  }
}

/** The registry's entry (spec.ts). */
export const grpoEstimator: EstimatorSpec<'grpo'> = {
  name: 'grpo',
  label: 'GRPO',
  source: 'group-normalised return (R − mean)/std over the K episodes of a task (Shao et al. 2024, arXiv 2402.03300; RAGEN StarPO)',
  description: 'the episode’s return against the other episodes of the same task; one episode alone has no group to compare with.',
  scope: 'group',
  params: [
    {
      type: 'boolean',
      name: 'divideByStd',
      label: '÷ std',
      description: 'divide by the group std (off: subtract the mean only)',
      default: GROUP_ADVANTAGE_DEFAULTS.divideByStd,
    },
    {
      type: 'boolean',
      name: 'unbiased',
      label: 'n−1 std',
      description: 'unbiased (n−1) standard deviation, as torch.std',
      default: GROUP_ADVANTAGE_DEFAULTS.unbiased,
    },
    {
      type: 'number',
      name: 'epsilon',
      label: 'ε',
      description: 'added to the std before dividing',
      default: GROUP_ADVANTAGE_DEFAULTS.epsilon,
      min: 0,
      max: 1,
    },
  ],
  needs: ['rewards', 'group'],
  needsAdapter: false,
  changesPast: 'group',
  perToken: false,
  batch: (episodes, p) => groupCredit(episodes, { divideByStd: p.divideByStd as boolean, unbiased: p.unbiased as boolean, epsilon: p.epsilon as number }),
  incremental: () => {
    throw new CreditError('bad-param', 'grpo is group-scoped: use new IncrementalGroupAdvantage(K, params) with push(i, turn) and result(i)');
  },
};
