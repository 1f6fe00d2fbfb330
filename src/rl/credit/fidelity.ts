// The fidelity report of issue #6 point 4: how well each estimator's per-turn credit ranks turns
// the way a ground truth does (counterfactual Q advantage, or information gain for `guess`).
//
// Two aggregations, both reported, each with a percentile bootstrap interval over episodes
// (episodes are resampled, never single turns, since turns of one episode are dependent):
// - pooled (the headline): Spearman ρ and Kendall τ_b over all turns of all episodes together.
//   It is defined for every estimator, including GRPO, whose credit is constant within an
//   episode and so only ranks turns across episodes; ground truths are in return units, so
//   pooling compares like with like.
// - within-episode: the mean over episodes of the per-episode correlation, over the episodes
//   where it is defined (≥ 2 turns and neither side constant). It asks "does the estimator order
//   the turns of one episode correctly", free of between-episode scale; null for GRPO.

import { bootstrapInterval, type BootstrapOptions, type Interval } from './bootstrap.ts';
import { checkFinite, checkLength, CreditError } from './errors.ts';
import { kendallTauB, spearman } from './rank.ts';

/** One held-out episode: the ground truth and each estimator's credit, per turn. */
export interface FidelityEpisode {
  /** [T] ground-truth credit per turn. */
  truth: Float32Array;
  /** estimator name → [T] credit per turn. */
  credits: Record<string, Float32Array>;
}

/** Correlations of one estimator with the ground truth. */
export interface FidelityRow {
  estimator: string;
  /** Episodes and turns in the report. */
  episodes: number;
  turns: number;
  pooled: { spearman: Interval; kendall: Interval };
  withinEpisode: { spearman: Interval; kendall: Interval; /** episodes where the correlation is defined */ episodesDefined: number };
}

export interface FidelityReport {
  rows: FidelityRow[];
  /** Bootstrap settings used (resamples, level, seed). */
  bootstrap: Required<BootstrapOptions>;
}

type Correlation = (x: ArrayLike<number>, y: ArrayLike<number>) => number | null;

function pooledStat(truth: Float32Array[], credit: Float32Array[], corr: Correlation): (idx: Int32Array) => number | null {
  return (idx) => {
    let total = 0;
    for (const i of idx) total += truth[i].length;
    const x = new Float32Array(total);
    const y = new Float32Array(total);
    let at = 0;
    for (const i of idx) {
      x.set(truth[i], at);
      y.set(credit[i], at);
      at += truth[i].length;
    }
    return corr(x, y);
  };
}

function meanStat(perEpisode: (number | null)[]): (idx: Int32Array) => number | null {
  return (idx) => {
    let sum = 0;
    let count = 0;
    for (const i of idx) {
      const c = perEpisode[i];
      if (c !== null) {
        sum += c;
        count++;
      }
    }
    return count > 0 ? sum / count : null;
  };
}

/**
 * Per estimator (default: every name in the first episode's credits), Spearman and Kendall with
 * the ground truth, pooled and within-episode, each with a bootstrap interval over episodes.
 * All intervals use the same seed, so they resample the same episodes (paired comparison).
 */
export function fidelityReport(episodes: readonly FidelityEpisode[], estimators?: readonly string[], options: BootstrapOptions = {}): FidelityReport {
  const bootstrap = { resamples: options.resamples ?? 1000, level: options.level ?? 0.95, seed: options.seed ?? 0 };
  const names = estimators ?? (episodes.length > 0 ? Object.keys(episodes[0].credits) : []);
  const truth = episodes.map((e, i) => {
    checkFinite(`episode ${i} truth`, e.truth);
    return e.truth;
  });
  const turns = truth.reduce((s, t) => s + t.length, 0);
  const rows = names.map((name): FidelityRow => {
    const credit = episodes.map((e, i) => {
      const c = e.credits[name];
      if (c === undefined) throw new CreditError('missing-input', `episode ${i} has no credit from ${name}`);
      checkLength(`episode ${i} ${name} credit`, c, e.truth.length, 'one per turn of the ground truth');
      checkFinite(`episode ${i} ${name} credit`, c);
      return c;
    });
    const n = episodes.length;
    const perS = credit.map((c, i) => spearman(truth[i], c));
    const perK = credit.map((c, i) => kendallTauB(truth[i], c));
    return {
      estimator: name,
      episodes: n,
      turns,
      pooled: {
        spearman: bootstrapInterval(n, pooledStat(truth, credit, spearman), bootstrap),
        kendall: bootstrapInterval(n, pooledStat(truth, credit, kendallTauB), bootstrap),
      },
      withinEpisode: {
        spearman: bootstrapInterval(n, meanStat(perS), bootstrap),
        kendall: bootstrapInterval(n, meanStat(perK), bootstrap),
        episodesDefined: perS.filter((c) => c !== null).length,
      },
    };
  });
  return { rows, bootstrap };
}

/**
 * The ground truth's own reliability and what it allows (Spearman 1904, "the proof and measurement of
 * association between two things": correction for attenuation). A truth measured with noise, T = A + e,
 * correlates with a second independent draw T' = A + e' by r = var A / var T; an estimator X can
 * correlate with T by at most corr(X, A) · √r ≤ √r, so √r is the ceiling of any estimator's
 * pooled correlation against one draw, even an estimator that knows A exactly. (For Spearman the
 * bound is approximate.) Each bound of r's interval maps to its square root (negative r: 0).
 */
export interface TruthReliability {
  /** The second draw scored as if it were an estimator against the first. */
  secondDraw: FidelityRow;
  /** √r of the pooled Spearman r between the two draws, with its interval. */
  ceiling: Interval;
}

/** The attenuation ceiling √r of each bound of a test–retest correlation r (null stays null). */
export function attenuationCeiling(r: Interval): Interval {
  const root = (x: number | null) => (x === null ? null : Math.sqrt(Math.max(0, x)));
  return { estimate: root(r.estimate), low: root(r.low), high: root(r.high), defined: r.defined };
}

/** Reliability of a ground truth from two independent draws of it over the same episodes ([episode][T] each). */
export function truthReliability(first: readonly Float32Array[], second: readonly Float32Array[], options: BootstrapOptions = {}): TruthReliability {
  if (second.length !== first.length)
    throw new CreditError('length-mismatch', `second draw has ${second.length} episodes, expected ${first.length} (one per episode of the first)`);
  const [row] = fidelityReport(
    first.map((truth, i) => ({ truth, credits: { 'second draw': second[i] } })),
    ['second draw'],
    options,
  ).rows;
  return { secondDraw: row, ceiling: attenuationCeiling(row.pooled.spearman) };
}
