// Pass@(K,T) against exact enumeration of all K-subsets of the samples, and hand values.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passAtK, passKTAt, passKTGrid, type SuccessTurns } from '../../../src/rl/rollout/passkt.ts';
import { expectCreditError } from './helpers.ts';

/** Fraction of K-subsets of the samples containing one solved within T turns (exact enumeration). */
function enumerate(samples: SuccessTurns, k: number, t: number): number {
  let hit = 0;
  let total = 0;
  const pick = (start: number, left: number, any: boolean): void => {
    if (left === 0) {
      total++;
      if (any) hit++;
      return;
    }
    for (let i = start; i <= samples.length - left; i++) {
      const s = samples[i];
      pick(i + 1, left - 1, any || (s !== null && s <= t));
    }
  };
  pick(0, k, false);
  return hit / total;
}

describe('Pass@(K,T)', () => {
  it('pass@k hand values', () => {
    // n = 4, c = 1, k = 2: 1 − C(3,2)/C(4,2) = 1 − 3/6 = 0.5
    expect(passAtK(4, 1, 2)).toBeCloseTo(0.5, 14);
    // n = 5, c = 2, k = 1: c/n = 0.4
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 14);
    expect(passAtK(3, 0, 3)).toBe(0);
    expect(passAtK(3, 1, 3)).toBe(1);
  });
  it('grid of one task by hand', () => {
    // samples solved at turns 1, 3, never, 2 (n = 4, tMax = 3): c(1) = 1, c(2) = 2, c(3) = 3
    const g = passKTGrid([[1, 3, null, 2]], 3);
    expect(passKTAt(g, 1, 1)).toBeCloseTo(0.25, 14); // 1/4
    expect(passKTAt(g, 1, 3)).toBeCloseTo(0.75, 14); // 3/4
    expect(passKTAt(g, 2, 2)).toBeCloseTo(1 - 1 / 6, 14); // 1 − C(2,2)/C(4,2)
    expect(passKTAt(g, 2, 3)).toBe(1); // n − c = 1 < K
    expect(passKTAt(g, 4, 1)).toBe(1);
  });
  it('equals exact enumeration of K-subsets on small random task sets', () => {
    const sample = fc.option(fc.integer({ min: 1, max: 5 }), { nil: null });
    const taskArb = fc.array(sample, { minLength: 1, maxLength: 7 });
    fc.assert(
      fc.property(fc.array(taskArb, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 5 }), (tasks, tMax) => {
        const g = passKTGrid(tasks, tMax);
        expect(g.n).toBe(Math.min(...tasks.map((s) => s.length)));
        for (let k = 1; k <= g.n; k++) {
          for (let t = 1; t <= tMax; t++) {
            const want = tasks.reduce((s, samples) => s + enumerate(samples, k, t), 0) / tasks.length;
            expect(passKTAt(g, k, t)).toBeCloseTo(want, 10);
            tasks.forEach((samples, i) => expect(g.perTask[i][(k - 1) * tMax + (t - 1)]).toBeCloseTo(enumerate(samples, k, t), 10));
          }
        }
      }),
      { numRuns: 200, seed: 6 },
    );
  });
  it('is monotone in K and in T', () => {
    const g = passKTGrid(
      [
        [1, null, 4, null, 2, 6],
        [null, null, 3, null, null, 1],
      ],
      6,
    );
    for (let k = 1; k <= g.n; k++) {
      for (let t = 1; t <= g.tMax; t++) {
        if (k > 1) expect(passKTAt(g, k, t)).toBeGreaterThanOrEqual(passKTAt(g, k - 1, t));
        if (t > 1) expect(passKTAt(g, k, t)).toBeGreaterThanOrEqual(passKTAt(g, k, t - 1));
      }
    }
  });
  it('refuses bad samples', () => {
    expectCreditError(() => passAtK(3, 1, 4), 'bad-sample', /1 ≤ k ≤ n/);
    expectCreditError(() => passKTGrid([[0]], 3), 'bad-sample', /success turn 0/);
    expectCreditError(() => passKTGrid([], 3), 'bad-sample', /at least one task/);
    expectCreditError(() => passKTGrid([[1], []], 3), 'bad-sample', /at least one sample/);
    expectCreditError(() => passKTAt(passKTGrid([[1]], 2), 2, 1), 'bad-sample', /outside the grid/);
  });
});
