// The learning table's summary over seeds (issue #8: "at least 3 seeds and intervals"): for each
// family × algorithm, the mean held-out success after training and the mean gain over the base
// policy, each with a Student-t 95% interval over the seeds (each seed evaluates its own task set,
// so the seeds are independent replicates of the whole experiment).
import type { BenchRow } from './harness.ts';

/** What the summary needs of one case: its cell and its before/after success in %. */
export interface CaseFigures {
  algo: string;
  family: string;
  seed: number;
  /** success[mode] = [before, after] in %. */
  success: Record<'sampled' | 'greedy', [number, number]>;
}

/** Two-sided 97.5% quantiles of Student's t for 1…10 degrees of freedom (then the normal's 1.96). */
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];

/** Mean and the half-width of its 95% t-interval (NaN half-width for a single value). */
export function meanInterval(xs: readonly number[]): { mean: number; half: number } {
  const n = xs.length;
  const mean = xs.reduce((a, x) => a + x, 0) / n;
  if (n < 2) return { mean, half: Number.NaN };
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  return { mean, half: (T975[n - 2] ?? 1.96) * (sd / Math.sqrt(n)) };
}

/** Rows "mean over N seeds" per family × algorithm (in first-seen order), sampled and greedy. */
export function summaryRows(cases: readonly CaseFigures[]): BenchRow[] {
  const groups = new Map<string, CaseFigures[]>();
  for (const c of cases) {
    const key = `${c.family} ${c.algo}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const rows: BenchRow[] = [];
  for (const [key, cs] of groups) {
    const label = `${key}, mean over ${cs.length} seed${cs.length > 1 ? 's' : ''} (${cs.map((c) => c.seed).join(', ')})`;
    for (const mode of ['sampled', 'greedy'] as const) {
      const after = meanInterval(cs.map((c) => c.success[mode][1]));
      const gain = meanInterval(cs.map((c) => c.success[mode][1] - c.success[mode][0]));
      const pm = (h: number) => (Number.isNaN(h) ? 'one seed: no interval' : `± ${h.toFixed(1)} (95% t over seeds)`);
      rows.push({ case: label, metric: `${mode} success after`, value: after.mean, unit: '%', note: pm(after.half) });
      rows.push({ case: label, metric: `${mode} gain`, value: gain.mean, unit: 'points', note: pm(gain.half) });
    }
  }
  return rows;
}
