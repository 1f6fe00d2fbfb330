// Token strips agree with their turn bars (issue #49, item 6): bi-level GAE's token values A_j =
// A_i + B_j can all sit above a negative turn value A_i (the issue saw +0.96, +1.90 over a −0.16 bar),
// so a strip draws A_i + (A_j − the turn's token mean) and every strip of a view shares the bars' range.
import { describe, expect, it } from 'vitest';
import { biLevelGaeCredit } from '../../../src/rl/credit/biLevelGae.ts';
import { monteCarloCredit } from '../../../src/rl/credit/monteCarlo.ts';
import { sweetCredit } from '../../../src/rl/credit/sweetAdvantage.ts';
import { turnAlignedTokens } from '../../../src/rl/credit/turnAligned.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { symmetricRange } from '../../../src/ui/charts/scales.ts';
import { tokenStrips, viewRange } from '../../../src/ui/state/tokenStrips.ts';

const mean = (a: ArrayLike<number>, lo: number, hi: number) =>
  Array.from(a)
    .slice(lo, hi)
    .reduce((s, x) => s + x, 0) /
  (hi - lo);

describe('token strips on the turn bars', () => {
  // One guess turn of three tokens, reward 0, the critic's token values −1.90, −0.96, 0.16 (γ = λ = 1):
  // A_turn = r − V_e = −0.16; tokens A_j = A_turn + V_e − V_j = +1.90, +0.96, −0.16 (turn mean +0.90).
  const episode = { rewards: Float32Array.of(0), tokenOffsets: Int32Array.of(0, 3), tokenValues: Float32Array.of(-1.9, -0.96, 0.16), terminal: true };
  const bi = biLevelGaeCredit(episode);
  const mc = monteCarloCredit(episode);
  const rows = [
    { name: 'mc', label: 'MC return', values: mc.perTurn },
    { name: 'bilevel-gae', label: 'Bi-level GAE', values: bi.perTurn, perToken: bi.perToken, paramText: 'γ 1' },
  ];

  it('reproduces the issue: raw bi-level GAE tokens mostly above a negative bar', () => {
    expect(bi.perTurn[0]).toBeCloseTo(-0.16, 6);
    expect(Array.from(bi.perToken!)).toEqual([expect.closeTo(1.9, 6), expect.closeTo(0.96, 6), expect.closeTo(-0.16, 6)]);
  });

  it("draws the turn's value plus each token's deviation, so the strip's mean is the bar's value (by hand)", () => {
    const [strip] = tokenStrips(rows, [0, 3]);
    expect(strip.name).toBe('bilevel-gae');
    // −0.16 + (A_j − 0.90): 0.84, −0.10, −1.22
    expect(Array.from(strip.shown)).toEqual([expect.closeTo(0.84, 5), expect.closeTo(-0.1, 5), expect.closeTo(-1.22, 5)]);
    expect(mean(strip.shown, 0, 3)).toBeCloseTo(bi.perTurn[0], 6);
    expect(Array.from(strip.raw)).toEqual(Array.from(bi.perToken!)); // the estimator's own values stay for the readout
    expect(strip.turns[0]).toBeCloseTo(-0.16, 6);
  });

  it("colours bars, truth and strips on one symmetric range, the strip's range being the bars'", () => {
    const strips = tokenStrips(rows, [0, 3]);
    const truth = { values: Float32Array.of(0.5) };
    const range = viewRange(rows, truth, strips);
    // one scale over everything drawn: the bars (0, −0.16), the truth (0.5) and the strip's cells (up to 1.22)
    expect(range).toBeCloseTo(1.22, 5);
    expect(range).toBe(symmetricRange([...mc.perTurn, ...bi.perTurn, ...truth.values, ...strips[0].shown]));
    // no cell of a strip lies outside the range the bars are drawn on (nothing is clamped)
    for (const v of strips[0].shown) expect(Math.abs(v)).toBeLessThanOrEqual(range);
  });

  it('leaves SWEET-RL tokens as they are: its turn value is already their mean (arXiv 2503.15478 §4)', () => {
    const s = sweetCredit({
      rewards: Float32Array.of(0, 0),
      tokenOffsets: Int32Array.of(0, 2, 5),
      criticLogprobs: Float32Array.of(-1, -2, -0.5, -0.1, -3),
      refLogprobs: Float32Array.of(-1.5, -1, -0.7, -0.2, -2),
    });
    const [strip] = tokenStrips([{ name: 'sweet', label: 'SWEET-RL', values: s.perTurn, perToken: s.perToken }], [0, 2, 5]);
    for (let j = 0; j < 5; j++) expect(strip.shown[j]).toBeCloseTo(s.perToken![j], 6);
  });

  it('keeps every turn mean at its bar and every within-turn difference, over a random episode (turnAligned ≡ loop)', () => {
    const rng = new Rng('strips');
    const T = 5;
    const lengths = Array.from({ length: T }, () => 1 + Math.floor(rng.next() * 6));
    const offsets = [0];
    for (const n of lengths) offsets.push(offsets[offsets.length - 1] + n);
    const input = {
      rewards: Float32Array.from({ length: T }, () => rng.next() - 0.5),
      tokenOffsets: Int32Array.from(offsets),
      tokenValues: Float32Array.from({ length: offsets[T] }, () => 2 * rng.next() - 1),
    };
    const r = biLevelGaeCredit(input, { gamma: 0.9, lambda: 0.8, turnGamma: 0.95, turnLambda: 0.9 });
    const shown = turnAlignedTokens(r.perToken!, r.perTurn, offsets);
    for (let i = 0; i < T; i++) {
      expect(mean(shown, offsets[i], offsets[i + 1])).toBeCloseTo(r.perTurn[i], 5);
      for (let j = offsets[i] + 1; j < offsets[i + 1]; j++) expect(shown[j] - shown[j - 1]).toBeCloseTo(r.perToken![j] - r.perToken![j - 1], 5);
    }
  });

  it('refuses offsets that do not cover the turns', () => {
    expect(() => turnAlignedTokens(Float32Array.of(1, 2), Float32Array.of(0, 0), [0, 2])).toThrow(/offsets cover 1 turns/);
    expect(() => turnAlignedTokens(Float32Array.of(1), Float32Array.of(0), [0, 2])).toThrow(/perToken has 1 values/);
  });
});
