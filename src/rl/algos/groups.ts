// Task groups (the K episodes of one task) and what the algorithms take from them, pure functions
// over episode returns laid out task-major: returns[task · K + k].
//  - StarPO-S's variance filter (RAGEN, arXiv 2504.20073 §4): keep the groups with the highest
//    reward spread (standard deviation of the K returns), a fixed share of them;
//  - trajectory pairs of one task (SWEET-RL's critic data and multi-turn DPO): the i-th best episode
//    against the i-th worst, only where their returns differ.
import { AlgoError } from './types.ts';

/** Mean and population standard deviation of each group. */
export function groupSpreads(returns: ArrayLike<number>, k: number): { mean: number[]; std: number[] } {
  if (returns.length % k !== 0) throw new AlgoError('bad-config', `${returns.length} returns do not split into groups of ${k}`);
  const mean: number[] = [];
  const std: number[] = [];
  for (let g = 0; g < returns.length / k; g++) {
    let m = 0;
    for (let i = 0; i < k; i++) m += returns[g * k + i];
    m /= k;
    let v = 0;
    for (let i = 0; i < k; i++) v += (returns[g * k + i] - m) ** 2;
    mean.push(m);
    std.push(Math.sqrt(v / k));
  }
  return { mean, std };
}

/** Groups kept by the variance filter: how many of G. */
export function keptCount(groups: number, keepFraction: number): number {
  return Math.min(groups, Math.max(1, Math.round(keepFraction * groups)));
}

/**
 * Indices of the groups to train on: the keptCount(G, keepFraction) groups of highest spread
 * (ties: lower index first), then, with skipZeroSpread, without those whose spread is ~0.
 * Returned in ascending index order.
 */
export function varianceFilter(spreads: readonly number[], keepFraction: number, skipZeroSpread: boolean): number[] {
  const n = keptCount(spreads.length, keepFraction);
  const order = spreads.map((s, i) => i).sort((a, b) => spreads[b] - spreads[a] || a - b);
  return order
    .slice(0, n)
    .filter((g) => !skipZeroSpread || spreads[g] > 1e-6)
    .sort((a, b) => a - b);
}

/** [better, worse] episode indices (into returns) within each group; the i-th best vs the i-th worst. */
export function trajectoryPairs(returns: ArrayLike<number>, k: number, groups?: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  const gs = groups ?? Array.from({ length: returns.length / k }, (_, g) => g);
  for (const g of gs) {
    const idx = Array.from({ length: k }, (_, i) => g * k + i).sort((a, b) => returns[b] - returns[a] || a - b);
    for (let i = 0; i < Math.floor(k / 2); i++) {
      const [hi, lo] = [idx[i], idx[k - 1 - i]];
      if (returns[hi] - returns[lo] > 1e-6) out.push([hi, lo]);
    }
  }
  return out;
}
