// Pass@(K,T): the probability that at least one of K independent episodes, each limited to T
// interaction turns, solves the task (docs/design.md). Estimated without bias from n ≥ K samples per task
// as Chen et al.'s pass@k (Codex, arXiv 2107.03374, eq. 1) with c(T) = samples solved within T turns:
//   Pass@(K,T) = 1 − C(n − c(T), K) / C(n, K),
// evaluated as the stable product 1 − Π_{i=n−c+1}^{n} (1 − K/i), then averaged over tasks.
// Because an episode that solved the task by turn t also did so within any T ≥ t, one set of n
// episodes run to T_max gives the whole K × T grid.

import { CreditError } from '../credit/errors.ts';

/** Unbiased pass@k from n samples with c successes: 1 − C(n−c, k)/C(n, k). */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k))
    throw new CreditError('bad-sample', `pass@k needs integers (n=${n}, c=${c}, k=${k})`);
  if (k < 1 || k > n) throw new CreditError('bad-sample', `pass@k needs 1 ≤ k ≤ n (n=${n}, k=${k})`);
  if (c < 0 || c > n) throw new CreditError('bad-sample', `pass@k needs 0 ≤ c ≤ n (n=${n}, c=${c})`);
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** Per task, per sample: the 1-based turn at which the episode solved the task, or null if it never did. */
export type SuccessTurns = readonly (number | null)[];

/** Pass@(K,T) for K = 1 … n and T = 1 … tMax. */
export interface PassKTGrid {
  /** Samples per task (the smallest over tasks; K runs up to it). */
  n: number;
  tMax: number;
  tasks: number;
  /** [n × tMax], K-major: grid[(K−1)·tMax + (T−1)] = mean over tasks of Pass@(K,T). */
  grid: Float64Array;
  /** Per task, the same layout for that task alone (`grid` is their mean): the unit a paired interval resamples. */
  perTask: Float64Array[];
}

/** Reads one cell of a grid. */
export function passKTAt(g: PassKTGrid, k: number, t: number): number {
  if (k < 1 || k > g.n || t < 1 || t > g.tMax) throw new CreditError('bad-sample', `Pass@(${k},${t}) is outside the grid (K ≤ ${g.n}, T ≤ ${g.tMax})`);
  return g.grid[(k - 1) * g.tMax + (t - 1)];
}

/** The Pass@(K,T) grid over a task set; every task needs ≥ 1 sample, and K runs to the smallest n. */
export function passKTGrid(tasks: readonly SuccessTurns[], tMax: number): PassKTGrid {
  if (!Number.isInteger(tMax) || tMax < 1) throw new CreditError('bad-sample', `tMax = ${tMax} must be a positive integer`);
  if (tasks.length === 0) throw new CreditError('bad-sample', 'Pass@(K,T) needs at least one task');
  const n = Math.min(...tasks.map((s) => s.length));
  if (n < 1) throw new CreditError('bad-sample', 'Pass@(K,T) needs at least one sample per task');
  const grid = new Float64Array(n * tMax);
  const perTask = tasks.map((samples, task) => {
    const own = new Float64Array(n * tMax);
    // solvedBy[T−1] = c(T): samples solved within T turns.
    const solvedBy = new Int32Array(tMax);
    for (const s of samples) {
      if (s === null) continue;
      if (!Number.isInteger(s) || s < 1) throw new CreditError('bad-sample', `task ${task}: success turn ${s} must be an integer ≥ 1 or null`);
      if (s <= tMax) solvedBy[s - 1]++;
    }
    for (let t = 1; t < tMax; t++) solvedBy[t] += solvedBy[t - 1];
    for (let k = 1; k <= n; k++) {
      for (let t = 1; t <= tMax; t++) own[(k - 1) * tMax + (t - 1)] = passAtK(samples.length, solvedBy[t - 1], k);
    }
    for (let i = 0; i < own.length; i++) grid[i] += own[i] / tasks.length;
    return own;
  });
  return { n, tMax, tasks: tasks.length, grid, perTask };
}
