// Counterfactual ground-truth aggregation, information gain, and the fidelity report.
import { describe, expect, it } from 'vitest';
import { fidelityReport, type FidelityEpisode } from '../../../src/rl/credit/fidelity.ts';
import { counterfactualAdvantage, informationGainTruth, partitionInformationGain } from '../../../src/rl/credit/groundTruth.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { expectClose, expectCreditError, f32 } from './helpers.ts';

describe('counterfactual advantage', () => {
  it('matches the hand computation', () => {
    // turn 0: Q̂ = mean[1, 0] = 0.5, V̂ = mean[0, 0, 1, 1] = 0.5 → A = 0;
    //   stderr = √(0.5/2 + (1/3)/4) = √(1/4 + 1/12) = √(1/3)
    // turn 1: Q̂ = 2, V̂ = mean[1, 0] = 0.5 → A = 1.5; stderr = √(0 + 0.5/2) = 0.5
    const r = counterfactualAdvantage([
      { taken: [1, 0], alternatives: [0, 0, 1, 1] },
      { taken: [2], alternatives: [1, 0] },
    ]);
    expectClose(r.perTurn, [0, 1.5]);
    expectClose(r.q, [0.5, 2]);
    expectClose(r.v, [0.5, 0.5]);
    expectClose(r.stderr, [Math.sqrt(1 / 3), 0.5]);
  });
  it('refuses empty or non-finite re-rolls', () => {
    expectCreditError(() => counterfactualAdvantage([{ taken: [], alternatives: [1] }]), 'bad-sample', /turn 0 has no taken-turn returns/);
    expectCreditError(() => counterfactualAdvantage([{ taken: [1], alternatives: [NaN] }]), 'non-finite', /turn 0 alternative returns\[0\] is NaN/);
  });
});

describe('information gain', () => {
  it('matches hand values', () => {
    expect(partitionInformationGain([4, 4])).toBeCloseTo(1, 14);
    expect(partitionInformationGain([8, 0])).toBe(0);
    expect(partitionInformationGain([2, 2, 4])).toBeCloseTo(1.5, 14); // ¼·2 + ¼·2 + ½·1
    expect(partitionInformationGain([1, 3])).toBeCloseTo(-(0.25 * Math.log2(0.25) + 0.75 * Math.log2(0.75)), 14);
  });
  it('checks per-turn gains', () => {
    expectClose(informationGainTruth([1, 0.5, 0]), [1, 0.5, 0]);
    expectCreditError(() => informationGainTruth([1, -0.1]), 'bad-sample', /turn 1 is -0.1 < 0/);
  });
});

describe('fidelity report', () => {
  const rng = new Rng(6);
  const episodes: FidelityEpisode[] = Array.from({ length: 20 }, () => {
    const T = 2 + rng.int(5);
    const truth = Float32Array.from({ length: T }, () => rng.normal());
    const constant = rng.normal();
    return {
      truth,
      credits: {
        perfect: truth.map((v) => 2 * v + 1), // monotone transform: ranks identical
        reversed: truth.map((v) => -v),
        grpoLike: new Float32Array(T).fill(constant), // constant within an episode
        noisy: truth.map((v) => v + 0.5 * rng.normal()),
      },
    };
  });
  const report = fidelityReport(episodes, undefined, { resamples: 200, seed: 3 });
  const row = (name: string) => report.rows.find((r) => r.estimator === name)!;

  it('a monotone transform of the truth correlates perfectly, its negation at −1', () => {
    for (const agg of [row('perfect').pooled, row('perfect').withinEpisode]) {
      expect(agg.spearman.estimate).toBeCloseTo(1, 12);
      expect(agg.kendall.estimate).toBeCloseTo(1, 12);
      expect(agg.kendall.low).toBeCloseTo(1, 12);
    }
    expect(row('reversed').pooled.spearman.estimate).toBeCloseTo(-1, 12);
    expect(row('reversed').withinEpisode.kendall.estimate).toBeCloseTo(-1, 12);
  });
  it('constant-within-episode credit is judged pooled only', () => {
    expect(row('grpoLike').withinEpisode.spearman.estimate).toBeNull();
    expect(row('grpoLike').withinEpisode.episodesDefined).toBe(0);
    expect(row('grpoLike').pooled.spearman.estimate).not.toBeNull();
  });
  it('a noisy estimator lies strictly between, inside its interval, and the report is reproducible', () => {
    const s = row('noisy').pooled.spearman;
    expect(s.estimate! > 0.3 && s.estimate! < 1).toBe(true);
    expect(s.low! <= s.estimate! && s.estimate! <= s.high!).toBe(true);
    expect(row('noisy').turns).toBe(episodes.reduce((a, e) => a + e.truth.length, 0));
    expect(fidelityReport(episodes, ['noisy'], { resamples: 200, seed: 3 }).rows[0]).toEqual(row('noisy'));
  });
  it('refuses missing or misaligned credit', () => {
    expectCreditError(() => fidelityReport(episodes, ['absent'], { resamples: 10 }), 'missing-input', /episode 0 has no credit from absent/);
    const bad: FidelityEpisode[] = [{ truth: f32([1, 2]), credits: { x: f32([1]) } }];
    expectCreditError(() => fidelityReport(bad, ['x'], { resamples: 10 }), 'length-mismatch', /episode 0 x credit has length 1, expected 2/);
  });
});
