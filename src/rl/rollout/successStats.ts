// Intervals for held-out success, so that noise does not read as improvement (issue 20). The unit
// is the task: n episodes of one task are not independent draws, so each task contributes its success
// fraction and the percentile bootstrap (credit/bootstrap.ts) resamples tasks. Base and adapter play
// the same held-out tasks (the same seeds), so their difference is paired: the bootstrap resamples the
// per-task differences, which is tighter than comparing two independent intervals. A difference is
// "beyond noise" when its 95% interval excludes 0.
import { bootstrapInterval, type Interval } from '../credit/bootstrap.ts';
import type { RolloutEpisode } from './rollout.ts';

/** Success fraction per task of a rollout of `k` episodes per task (episodes grouped by task, in order). */
export function perTaskSuccess(episodes: readonly Pick<RolloutEpisode, 'success'>[], k: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + k <= episodes.length; i += k) out.push(episodes.slice(i, i + k).filter((e) => e.success).length / k);
  return out;
}

const meanOf = (xs: readonly number[], idx: Int32Array): number | null => {
  if (idx.length === 0) return null;
  let s = 0;
  for (const i of idx) s += xs[i];
  return s / idx.length;
};

/** Mean success over tasks with its 95% bootstrap interval. */
export function successInterval(perTask: readonly number[], seed: number | string = 'success'): Interval {
  return bootstrapInterval(perTask.length, (idx) => meanOf(perTask, idx), { seed });
}

/** adapter − base success over the same tasks, its paired 95% interval, and whether that interval excludes 0. */
export function pairedDifference(base: readonly number[], tuned: readonly number[], seed: number | string = 'difference'): Interval & { beyondNoise: boolean } {
  if (base.length !== tuned.length) throw new Error(`paired difference over ${base.length} vs ${tuned.length} tasks`);
  const d = tuned.map((t, i) => t - base[i]);
  const iv = bootstrapInterval(d.length, (idx) => meanOf(d, idx), { seed });
  return { ...iv, beyondNoise: iv.low !== null && iv.high !== null && (iv.low > 0 || iv.high < 0) };
}

/** One cell of a difference grid: adapter − base with its paired interval. */
export type CellDifference = Interval & { beyondNoise: boolean };

/**
 * The paired difference of two Pass@(K,T) grids cell by cell: base[task][K−1][T−1] and tuned likewise
 * over the same tasks (evaluate.ts PassKTResult.perTask). Each cell resamples the per-task differences
 * of that cell, so a cell is "beyond noise" only when its own 95% interval excludes 0 — what the
 * difference map may colour as a change (issue 49: colours must not say more than the statistics).
 */
export function pairedGridDifference(
  base: readonly (readonly (readonly number[])[])[],
  tuned: readonly (readonly (readonly number[])[])[],
): CellDifference[][] {
  if (base.length !== tuned.length || base.length === 0) throw new Error(`paired grid difference over ${base.length} vs ${tuned.length} tasks`);
  const cell = (grids: typeof base, k: number, t: number) => grids.map((g) => g[k][t]);
  return base[0].map((row, k) => row.map((_, t) => pairedDifference(cell(base, k, t), cell(tuned, k, t), `difference ${k + 1},${t + 1}`)));
}
