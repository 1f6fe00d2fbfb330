// Task groups (the K episodes of one task) and what the algorithms take from them, pure functions
// over episode returns laid out task-major: returns[task · K + k].
//  - StarPO-S's variance filter (RAGEN, arXiv 2504.20073 §4): keep the groups with the highest
//    reward spread (standard deviation of the K returns), a fixed share of them;
//  - trajectory pairs of one task (SWEET-RL's critic data and multi-turn DPO), two ways:
//    'rank', SWEET-RL's (arXiv 2503.15478 §4): the i-th best episode against the i-th worst, only
//    where their returns differ; 'gap', ours for stochastic rewards: pairs (i, j) of one task with
//    r_i > r_j drawn, over all groups of the iteration at once, with probability ∝ r_i − r_j, so that
//    the expected number of times episode i is chosen minus rejected is ∝ Σ_j (r_i − r_j) = K(r_i − r̄)
//    — the sign and size of GRPO's mean-only advantage. Rank pairs ignore the gap: on RAGEN's bandit a
//    group [1, .15, .15, .15, 0, 0, 0, 0] (one lucky risky pull, three safe, four unlucky risky) gives
//    three safe-over-risky pairs of four although the risky arm is better in expectation. Drawing a
//    fixed number per group would not do either: a group whose spread is only safe-vs-unlucky (0.15)
//    would weigh as much as one with a win (1), and the expected signal favours the safe arm again.
import type { Rng } from '../util/rng.ts';
import type { EpisodeTurn } from '../envs/types.ts';
import { AlgoError } from './types.ts';

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

/** How trajectory pairs are built (algoSettings.ts SweetConfig.pairing, MtdpoConfig.pairing). */
export type Pairing = 'gap' | 'rank';
export const PAIRINGS: readonly Pairing[] = ['gap', 'rank'];

function allGroups(returns: ArrayLike<number>, k: number, groups?: readonly number[]): readonly number[] {
  if (returns.length % k !== 0) throw new AlgoError('bad-config', `${returns.length} returns do not split into groups of ${k}`);
  return groups ?? Array.from({ length: returns.length / k }, (_, g) => g);
}

/** [better, worse] episode indices (into returns) within each group; the i-th best vs the i-th worst. */
export function trajectoryPairs(returns: ArrayLike<number>, k: number, groups?: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const g of allGroups(returns, k, groups)) {
    const idx = Array.from({ length: k }, (_, i) => g * k + i).sort((a, b) => returns[b] - returns[a] || a - b);
    for (let i = 0; i < Math.floor(k / 2); i++) {
      const [hi, lo] = [idx[i], idx[k - 1 - i]];
      if (returns[hi] - returns[lo] > 1e-6) out.push([hi, lo]);
    }
  }
  return out;
}

/** Options of gapPairs. */
export interface GapPairOptions {
  /** Draws in all (default ⌊K/2⌋ per group, as many as rank pairing makes at most). */
  count?: number;
  /** Groups drawn from (default all). */
  groups?: readonly number[];
  /**
   * The agent's side of each episode (e.g. its replies joined): two episodes with equal actions are
   * never paired. Their rows differ only after the agent's turns, so DPO's and Bradley–Terry's margin
   * is 0 by construction and the pair trains nothing but DPO's NLL term (bandit: a lucky and an
   * unlucky pull of the same arm); leaving them out spends the draws on pairs that carry a signal,
   * without changing its expected direction.
   */
  actions?: readonly string[];
}

/**
 * [better, worse] episode indices drawn with replacement among all pairs (i, j) of one group with
 * r_i − r_j > 1e-6 (and different actions, when given), each with probability (r_i − r_j) / Σ gaps
 * over every group; none when no such pair exists. A pair drawn twice trains twice, which is what
 * keeps the expected signal proportional to the gap.
 */
export function gapPairs(returns: ArrayLike<number>, k: number, rng: Rng, opts: GapPairOptions = {}): [number, number][] {
  const gs = allGroups(returns, k, opts.groups);
  const n = opts.count ?? Math.floor(k / 2) * gs.length;
  if (!(n >= 0) || !Number.isInteger(n)) throw new AlgoError('bad-config', `pair count must be a non-negative integer, got ${n}`);
  const { actions } = opts;
  if (actions && actions.length !== returns.length) throw new AlgoError('bad-config', `${actions.length} action keys for ${returns.length} returns`);
  const pairs: [number, number][] = [];
  const cum: number[] = [];
  let total = 0;
  for (const g of gs) {
    for (let i = g * k; i < (g + 1) * k; i++) {
      for (let j = g * k; j < (g + 1) * k; j++) {
        const gap = returns[i] - returns[j];
        if (!(gap > 1e-6) || (actions && actions[i] === actions[j])) continue;
        total += gap;
        pairs.push([i, j]);
        cum.push(total);
      }
    }
  }
  const out: [number, number][] = [];
  if (pairs.length === 0) return out;
  for (let d = 0; d < n; d++) {
    const u = rng.next() * total;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    out.push([pairs[lo][0], pairs[lo][1]]);
  }
  return out;
}

/**
 * Trajectory pairs the configured way; `rng` is drawn from by 'gap' only, `actions` used by 'gap'
 * only ('rank' stays the paper's construction).
 */
export function pairTrajectories(pairing: Pairing, returns: ArrayLike<number>, k: number, rng: Rng, actions?: readonly string[]): [number, number][] {
  return pairing === 'gap' ? gapPairs(returns, k, rng, { actions }) : trajectoryPairs(returns, k);
}

/** Trajectory pairs of an iteration's episodes (K per task, in task order): by return, two with the same replies never paired by 'gap'. */
export function trajectoryPairsOf(
  pairing: Pairing,
  episodes: readonly { totalReward: number; turns: readonly Pick<EpisodeTurn, 'action'>[] }[],
  k: number,
  rng: Rng,
): [number, number][] {
  return pairTrajectories(
    pairing,
    episodes.map((e) => e.totalReward),
    k,
    rng,
    episodes.map(agentSide),
  );
}

/** An episode's agent side as a gapPairs action key: its replies in order. */
export function agentSide(e: { turns: readonly Pick<EpisodeTurn, 'action'>[] }): string {
  return JSON.stringify(e.turns.map((t) => t.action));
}
