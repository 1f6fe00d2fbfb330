// Benchmark plumbing shared by every entry: timing with warm-up, summary statistics, and the result
// record written to bench/results/<name>.json. Figures are compared side by side within one run;
// these machines are shared and noisy, so ratios matter more than absolute numbers.

/** One measured figure. */
export interface BenchRow {
  /** What was measured, e.g. "probe MLP B=4, wasm (Node)". */
  case: string;
  metric: string;
  value: number;
  unit: string;
  /** Caveats, e.g. "SwiftShader: timing not meaningful". */
  note?: string;
}

export interface BenchResult {
  name: string;
  /** ISO time of the run. */
  date: string;
  machine: { cpus: number; node: string; platform: string };
  rows: BenchRow[];
}

/** A named benchmark: `npx turnwise bench NAME`. */
export interface BenchEntry {
  name: string;
  description: string;
  /** Default entries run with a bare `npm run bench`; slow ones (e.g. learning) only by name. */
  byDefault: boolean;
  run(log: (line: string) => void): Promise<BenchRow[]>;
}

export interface Timing {
  samples: number;
  medianMs: number;
  p95Ms: number;
  meanMs: number;
  perSecond: number;
}

function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** The median of `xs` (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Runs `fn` `warmup` times untimed, then until `iterations` samples or `budgetMs` elapse. */
export async function time(fn: () => Promise<unknown> | unknown, opts: { warmup?: number; iterations?: number; budgetMs?: number } = {}): Promise<Timing> {
  const { warmup = 3, iterations = 50, budgetMs = 5000 } = opts;
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  const start = performance.now();
  while (samples.length < iterations && (samples.length < 3 || performance.now() - start < budgetMs)) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  const sorted = samples.slice().sort((a, b) => a - b);
  const meanMs = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { samples: samples.length, medianMs: quantile(sorted, 0.5), p95Ms: quantile(sorted, 0.95), meanMs, perSecond: 1000 / meanMs };
}

/** The three rows most timing entries report. */
export function timingRows(caseName: string, t: Timing, note?: string): BenchRow[] {
  return [
    { case: caseName, metric: 'runs/s', value: t.perSecond, unit: '1/s', note },
    { case: caseName, metric: 'median', value: t.medianMs, unit: 'ms', note },
    { case: caseName, metric: 'p95', value: t.p95Ms, unit: 'ms', note },
  ];
}
