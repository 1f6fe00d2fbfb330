// Percentile bootstrap intervals (Efron & Tibshirani, An Introduction to the Bootstrap, 1993, ch. 13)
// over resampled units (episodes, for the fidelity report), seeded with src/rl/util/rng.ts so a
// report is reproducible. The draws do not depend on the statistic, so two calls with the same
// seed and n resample the same units: intervals of different estimators are paired.

import { Rng } from '../util/rng.ts';
import { checkParam, CreditError } from './errors.ts';

/** Bootstrap settings. */
export interface BootstrapOptions {
  /** Number of resamples; default 1000. */
  resamples?: number;
  /** Central coverage of the interval, in (0, 1); default 0.95. */
  level?: number;
  /** Seed of the resampling stream; default 0. */
  seed?: number | string;
}

/** A statistic with its bootstrap interval; null where the statistic is undefined. */
export interface Interval {
  /** The statistic on the data as given. */
  estimate: number | null;
  /** Lower percentile bound. */
  low: number | null;
  /** Upper percentile bound. */
  high: number | null;
  /** Resamples on which the statistic was defined (the interval uses only these). */
  defined: number;
}

/** Linear-interpolated quantile of ascending `sorted` (type 7). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/**
 * Percentile interval of `statistic` over `n` units resampled with replacement. `statistic`
 * receives the indices of one resample (length n) and returns null where it is undefined.
 */
export function bootstrapInterval(n: number, statistic: (indices: Int32Array) => number | null, options: BootstrapOptions = {}): Interval {
  const resamples = options.resamples ?? 1000;
  const level = options.level ?? 0.95;
  if (!Number.isInteger(n) || n < 0) throw new CreditError('bad-sample', `bootstrap over ${n} units`);
  if (!Number.isInteger(resamples) || resamples < 1) throw new CreditError('bad-param', `resamples = ${resamples} must be a positive integer`);
  checkParam('level', level, 1e-9, 1 - 1e-9);
  const estimate = statistic(Int32Array.from({ length: n }, (_, i) => i));
  if (n === 0) return { estimate, low: null, high: null, defined: 0 };
  const rng = new Rng(options.seed ?? 0);
  const stats: number[] = [];
  const idx = new Int32Array(n);
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < n; i++) idx[i] = rng.int(n);
    const s = statistic(idx);
    if (s !== null) stats.push(s);
  }
  if (stats.length === 0) return { estimate, low: null, high: null, defined: 0 };
  stats.sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  return { estimate, low: quantileSorted(stats, tail), high: quantileSorted(stats, 1 - tail), defined: stats.length };
}
