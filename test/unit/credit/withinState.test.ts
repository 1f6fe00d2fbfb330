// Within-state fidelity statistics (credit/withinState.ts) and centred SWEET-RL credit
// (credit/centredSweet.ts) on examples computed by hand.
import { describe, expect, it } from 'vitest';
import { halfSplitReliability, pairwiseAgreement, spearmanBrown, stateSpearman, withinStateReport } from '../../../src/rl/credit/withinState.ts';
import { centredAdvantage, centredSweetTurn } from '../../../src/rl/credit/centredSweet.ts';
import { expectCreditError } from './helpers.ts';

describe('pairwise agreement', () => {
  it('counts pairs whose truths differ; a score tie counts ½ (by hand)', () => {
    // truth 1, 0, 0.5: pairs (0,1) (0,2) (1,2) all differ. score 3, 1, 1:
    // (0,1): truth +, score + → 1; (0,2): truth +, score + → 1; (1,2): truth −, score tie → ½
    expect(pairwiseAgreement([1, 0, 0.5], [3, 1, 1])).toEqual({ correct: 2.5, pairs: 3 });
    // a reversed score gets every pair wrong
    expect(pairwiseAgreement([1, 0, 0.5], [-3, -1, -2])).toEqual({ correct: 0, pairs: 3 });
  });

  it('skips pairs whose truths tie', () => {
    // truth 1, 1, 0: (0,1) ties → skipped; (0,2) and (1,2): score 0, 5, 2 → (0,2) wrong, (1,2) right
    expect(pairwiseAgreement([1, 1, 0], [0, 5, 2])).toEqual({ correct: 1, pairs: 2 });
    expect(pairwiseAgreement([2, 2], [0, 1])).toEqual({ correct: 0, pairs: 0 });
  });
});

describe('stateSpearman', () => {
  it('is Spearman with average ranks, 0 for a constant score, null for a constant truth', () => {
    // truth ranks 3, 1, 2; score 10, 10, 0 → ranks 2.5, 2.5, 1. Centred: truth (1, −1, 0), score (½, ½, −1)
    // Σxy = ½ − ½ + 0 = 0 → ρ = 0
    expect(stateSpearman([1, 0, 0.5], [10, 10, 0])).toBeCloseTo(0, 12);
    // truth ranks 1, 2, 3, 4 vs score ranks 2, 1, 3, 4: ρ = 1 − 6·(1+1)/(4·15) = 0.8
    expect(stateSpearman([0, 1, 2, 3], [5, 4, 6, 7])).toBeCloseTo(0.8, 12);
    expect(stateSpearman([0, 1, 2], [4, 4, 4])).toBe(0);
    expect(stateSpearman([1, 1, 1], [1, 2, 3])).toBeNull();
  });
});

describe('withinStateReport', () => {
  const states = [
    // state 0: perfect for "a" (ρ 1, 3/3 pairs), reversed for "b" (ρ −1, 0/3)
    { truth: [0, 1, 2], scores: { a: [1, 2, 3], b: [3, 2, 1] } },
    // state 1: truth 1, 0, 0 → pairs (0,1), (0,2); "a" 0, 1, 1: both wrong, ρ = −1; "b" constant: ρ 0, pairs ½ each
    { truth: [1, 0, 0], scores: { a: [0, 1, 1], b: [7, 7, 7] } },
    // state 2: all truths tie → skipped, counted
    { truth: [0.5, 0.5, 0.5], scores: { a: [1, 2, 3], b: [1, 2, 3] } },
  ];

  it('means ρ over ranked states and pools pairs (by hand); a state whose truths all tie is skipped and counted', () => {
    const r = withinStateReport(states, undefined, { resamples: 200, seed: 3 });
    expect(r.states).toBe(3);
    expect(r.skipped).toBe(1);
    expect(r.candidates).toBe(9);
    const [a, b] = r.rows;
    expect(a.estimator).toBe('a');
    expect(a.spearman.estimate).toBeCloseTo((1 + -1) / 2, 12);
    expect(a.pairs).toBe(5);
    expect(a.pairwise.estimate).toBeCloseTo(3 / 5, 12);
    expect(b.spearman.estimate).toBeCloseTo((-1 + 0) / 2, 12);
    expect(b.pairwise.estimate).toBeCloseTo((0 + 1) / 5, 12);
    // intervals lie within the statistic's range and bracket nothing outside it
    for (const row of r.rows) {
      expect(row.spearman.low as number).toBeGreaterThanOrEqual(-1);
      expect(row.spearman.high as number).toBeLessThanOrEqual(1);
      expect(row.pairwise.low as number).toBeGreaterThanOrEqual(0);
      expect(row.pairwise.high as number).toBeLessThanOrEqual(1);
    }
  });

  it('refuses scores of the wrong length and missing estimators', () => {
    expectCreditError(() => withinStateReport([{ truth: [0, 1], scores: { a: [1] } }]), 'length-mismatch', /state 0 a scores/);
    expectCreditError(() => withinStateReport([{ truth: [0, 1], scores: {} }], ['a']), 'missing-input', /no scores from a/);
    expectCreditError(() => withinStateReport([{ truth: [0, Number.NaN], scores: { a: [1, 2] } }]), 'non-finite', /state 0 truth/);
  });
});

describe('halfSplitReliability', () => {
  it('steps the halves’ agreement up to M with Spearman–Brown and takes √ (by hand)', () => {
    expect(spearmanBrown(0.5)).toBeCloseTo(2 / 3, 12);
    expect(spearmanBrown(-0.2)).toBe(0);
    // state 0: halves agree perfectly (ρ 1); state 1: halves order the candidates in reverse (ρ −1)…
    // …and state 2's full truth is constant → skipped. Mean ρ = 0 → r_M = 0 → ceiling 0.
    const truth = [
      [0, 1, 2],
      [1, 2, 3],
      [4, 4, 4],
    ];
    const halfA = [
      [0, 1, 2],
      [1, 2, 3],
      [4, 3, 5],
    ];
    const halfB = [
      [0, 1, 2],
      [3, 2, 1],
      [4, 5, 3],
    ];
    const rel = halfSplitReliability(truth, halfA, halfB, { resamples: 50 });
    expect(rel.half.estimate).toBeCloseTo(0, 12);
    expect(rel.full.estimate).toBe(0);
    // halves that agree everywhere: r = 1, ceiling 1
    const same = halfSplitReliability(truth.slice(0, 2), halfA.slice(0, 2), halfA.slice(0, 2), { resamples: 50 });
    expect(same.full.estimate).toBeCloseTo(1, 12);
    expect(same.ceiling.estimate).toBeCloseTo(1, 12);
  });
});

describe('centred SWEET-RL credit', () => {
  it('subtracts the candidates’ mean (by hand)', () => {
    expect(centredAdvantage(0.5, [0.5, -0.5])).toBe(0.5);
    // taken token log-ratios (1, 0) → A = ½; candidates (½, ½) → ½ and (−1, 0) → −½; mean 0
    const taken = { criticLogprobs: [-1, -2], refLogprobs: [-2, -2] };
    const cands = [
      { criticLogprobs: [-1, -1], refLogprobs: [-1.5, -1.5] },
      { criticLogprobs: [-3, -1], refLogprobs: [-2, -1] },
    ];
    expect(centredSweetTurn(taken, cands)).toBe(0.5);
  });

  it('a state-constant offset of the log-ratio cancels exactly', () => {
    const shift = (t: { criticLogprobs: number[]; refLogprobs: number[] }, c: number) => ({
      criticLogprobs: t.criticLogprobs.map((x) => x + c),
      refLogprobs: t.refLogprobs,
    });
    // token counts and K are powers of two and every value a multiple of ¼, so float64 is exact here
    const taken = { criticLogprobs: [-1, -2, -0.25, -3], refLogprobs: [-2, -2, -1, -2.5] };
    const cands = [
      { criticLogprobs: [-1, -1], refLogprobs: [-1.5, -1.5] },
      { criticLogprobs: [-3, -1, -2, -4], refLogprobs: [-2, -1, -2, -3] },
      { criticLogprobs: [-0.5], refLogprobs: [-0.75] },
      { criticLogprobs: [-2, -0.25], refLogprobs: [-1, -1] },
    ];
    const plain = centredSweetTurn(taken, cands);
    for (const c of [2, -4, 0.5])
      expect(
        centredSweetTurn(
          shift(taken, c),
          cands.map((x) => shift(x, c)),
        ),
      ).toBe(plain);
    // β only scales
    expect(centredSweetTurn(taken, cands, 2)).toBe(2 * plain);
  });

  it('refuses no candidates and non-finite input', () => {
    expectCreditError(() => centredAdvantage(1, []), 'bad-sample', /K ≥ 1/);
    expectCreditError(() => centredAdvantage(Number.NaN, [1]), 'non-finite', /advantage/);
  });
});
