import { describe, expect, it } from 'vitest';
import { pairedDifference, pairedGridDifference, perTaskSuccess, successInterval } from '../../../src/rl/rollout/successStats.ts';

const eps = (...s: number[]) => s.map((x) => ({ success: x === 1 }));

describe('held-out success intervals', () => {
  it('count success per task over its k episodes', () => {
    expect(perTaskSuccess(eps(1, 0, 1, 1, 0, 0), 2)).toEqual([0.5, 1, 0]);
    expect(perTaskSuccess(eps(1, 0, 1), 1)).toEqual([1, 0, 1]);
  });

  it('bracket the mean, and narrow with more tasks', () => {
    const small = successInterval(Array.from({ length: 20 }, (_, i) => (i % 2 ? 1 : 0)));
    const large = successInterval(Array.from({ length: 400 }, (_, i) => (i % 2 ? 1 : 0)));
    expect(small.estimate).toBe(0.5);
    expect(small.low!).toBeLessThan(0.5);
    expect(small.high!).toBeGreaterThan(0.5);
    expect(large.high! - large.low!).toBeLessThan((small.high! - small.low!) / 2);
  });

  it('call a difference beyond noise only when its paired interval excludes 0', () => {
    const base = Array.from({ length: 200 }, (_, i) => (i % 2 ? 1 : 0));
    // the adapter also solves 60 of the tasks the base failed: +30 points
    const better = base.map((b, i) => (b === 0 && i < 120 ? 1 : b));
    const gain = pairedDifference(base, better);
    expect(gain.estimate).toBeCloseTo(0.3, 12);
    expect(gain.beyondNoise).toBe(true);
    // one task flipped each way: no change, within noise
    const shuffled = base.map((b, i) => (i === 0 ? 1 : i === 1 ? 0 : b));
    const same = pairedDifference(base, shuffled);
    expect(same.estimate).toBe(0);
    expect(same.beyondNoise).toBe(false);
    expect(() => pairedDifference([1], [1, 0])).toThrow(/paired difference/);
  });

  it('judge each Pass@(K,T) cell by its own paired interval', () => {
    // 40 tasks, grids of K 1 × T 2: at T = 2 the adapter solves every task the base solved and 20 more;
    // at T = 1 both solve the same tasks, so that cell's difference is 0 and within noise.
    const base = Array.from({ length: 40 }, (_, i) => [[i % 4 === 0 ? 1 : 0, i % 2 === 0 ? 1 : 0]]);
    const tuned = base.map(([[t1, t2]], i) => [[t1, i % 2 === 1 ? 1 : t2]]);
    const [[early, late]] = pairedGridDifference(base, tuned);
    expect(early.estimate).toBe(0);
    expect(early.beyondNoise).toBe(false);
    expect(late.estimate).toBeCloseTo(0.5, 12);
    expect(late.beyondNoise).toBe(true);
    expect(() => pairedGridDifference(base, tuned.slice(1))).toThrow(/40 vs 39 tasks/);
  });
});
