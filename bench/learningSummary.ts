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
  /** rates[mode][name] = [before, after]: early answers, useless and repeated questions (guess only). */
  rates?: Partial<Record<'sampled' | 'greedy', Record<string, [number, number]>>>;
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

const ALGO_LABELS: Record<string, string> = {
  sweet: 'SWEET-RL',
  starpo: 'StarPO-S',
  ppo: 'PPO (critic, turn-level GAE)',
  grpo: 'GRPO',
  mtdpo: 'multi-turn DPO',
  rft: 'rejection fine-tuning',
};

/** The labels of bench/entries/learning.ts's CREDIT_VARIANTS, as a row adds them to its algorithm's. */
const VARIANT_LABELS: Record<string, string> = {
  gigpo: 'GiGPO step credit (ω 1)',
  info: 'information-gain turn reward (0.1 per bit)',
  reroll: 'Monte-Carlo re-roll credit (M 2, ω 1)',
  turn: 'return-to-go turn credit, information gain 1 per bit',
};

/** "grpo+gigpo" → "GRPO + GiGPO step credit (ω 1)". */
export function algoLabel(key: string): string {
  const [algo, variant] = key.split('+');
  const base = ALGO_LABELS[algo] ?? algo;
  return variant ? `${base} + ${VARIANT_LABELS[variant] ?? variant}` : base;
}

/** Column names of the behaviour rates (bench/entries/learning.ts RATES). */
const RATE_LABELS: Record<string, string> = {
  early_answer_rate: 'early answers',
  ran_out_of_turns_rate: 'ran out of turns',
  wasted_questions_mean: 'wasted questions per game',
  wasted_question_episode_rate: 'games with a wasted question',
  useless_question_rate: 'useless questions',
  repeated_question_rate: 'repeated questions',
};

const fmt = (x: number, digits = 1) => (Number.isInteger(x) ? String(x) : x.toFixed(digits));
const signed = (x: number) => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(1)}`;
const withHalf = (m: { mean: number; half: number }) => `${signed(m.mean)}${Number.isNaN(m.half) ? '' : ` ± ${m.half.toFixed(1)}`}`;

/**
 * The learning table in Markdown, one table per family (in first-seen order), one row per
 * algorithm: each seed's success before → after, sampled and greedy, the mean gain with its 95%
 * t-interval over seeds, and where the family reports them the sampled early-answer and
 * useless/repeated-question rates (mean over seeds, before → after).
 */
export function learningTables(cases: readonly CaseFigures[]): string {
  const families = [...new Set(cases.map((c) => c.family))];
  const out: string[] = [];
  for (const family of families) {
    const rows = cases.filter((c) => c.family === family);
    const rateNames = [...new Set(rows.flatMap((c) => Object.keys(c.rates?.sampled ?? {})))];
    const head = [
      'algorithm',
      'seeds',
      'sampled, before → after',
      'sampled gain',
      'greedy, before → after',
      'greedy gain',
      ...rateNames.map((n) => `${RATE_LABELS[n] ?? n} (sampled)`),
    ];
    out.push(`**${family}**`, '', `| ${head.join(' | ')} |`, `| ${head.map((_, i) => (i < 2 ? '---' : '---:')).join(' | ')} |`);
    for (const algo of [...new Set(rows.map((c) => c.algo))]) {
      const cs = rows.filter((c) => c.algo === algo);
      const cell = (mode: 'sampled' | 'greedy') => cs.map((c) => `${fmt(c.success[mode][0])}→${fmt(c.success[mode][1])}`).join(' / ');
      const gain = (mode: 'sampled' | 'greedy') => withHalf(meanInterval(cs.map((c) => c.success[mode][1] - c.success[mode][0])));
      const rates = rateNames.map((n) => {
        const pairs = cs.map((c) => c.rates?.sampled?.[n]).filter((p): p is [number, number] => !!p);
        return pairs.length ? `${meanInterval(pairs.map((p) => p[0])).mean.toFixed(2)} → ${meanInterval(pairs.map((p) => p[1])).mean.toFixed(2)}` : '–';
      });
      out.push(
        `| ${[algoLabel(algo), cs.map((c) => c.seed).join(', '), cell('sampled'), gain('sampled'), cell('greedy'), gain('greedy'), ...rates].join(' | ')} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}
