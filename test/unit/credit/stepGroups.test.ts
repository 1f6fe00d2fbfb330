import { describe, expect, it } from 'vitest';
import { stepGroupAdvantages, type StepTurn } from '../../../src/rl/credit/stepGroups.ts';

const turn = (state: string, reward: number): StepTurn => ({ state, reward });

describe('step-group advantages (GiGPO)', () => {
  it('compare turns that acted in the same state by their return from there', () => {
    // three episodes share the first state; two of them also share the second (same first move and
    // reply) and part there: one wins (1), one loses (0); the third went elsewhere at once
    const episodes = [
      [turn('s0', 0), turn('s0 a b', 1)],
      [turn('s0', 0), turn('s0 a b', 0)],
      [turn('s0', 0), turn('s0 c d', 0)],
    ];
    const { advantages, grouped } = stepGroupAdvantages(episodes, { gamma: 1, divideByStd: false });
    // first state: returns 1, 0, 0 → mean 1/3
    expect(advantages.map((a) => a[0])).toEqual([2 / 3, -1 / 3, -1 / 3].map((x) => expect.closeTo(x, 12)));
    // shared second state: 1 vs 0 → ±1/2; the lone state gets nothing
    expect(advantages[0][1]).toBeCloseTo(0.5, 12);
    expect(advantages[1][1]).toBeCloseTo(-0.5, 12);
    expect(advantages[2][1]).toBe(0);
    expect(grouped).toBe(5);
  });

  it('discount the return from a state, and divide by the group std when asked', () => {
    const episodes = [
      [turn('s', 0), turn('s x', 0), turn('s x y', 1)],
      [turn('s', 1)],
    ];
    const { advantages } = stepGroupAdvantages(episodes, { gamma: 0.5, divideByStd: true });
    // returns from s: 0.25 and 1; mean 0.625, unbiased std = |1 − 0.25| / √2
    const std = 0.75 / Math.SQRT2;
    expect(advantages[0][0]).toBeCloseTo((0.25 - 0.625) / std, 12);
    expect(advantages[1][0]).toBeCloseTo((1 - 0.625) / std, 12);
    expect(advantages[0].slice(1)).toEqual([0, 0]);
  });

  it('give zeros to a group whose returns agree, and to an empty input', () => {
    const { advantages, grouped } = stepGroupAdvantages([[turn('s', 1)], [turn('s', 1)]], { gamma: 1, divideByStd: true });
    expect(advantages).toEqual([[0], [0]]);
    expect(grouped).toBe(2);
    expect(stepGroupAdvantages([], { gamma: 1, divideByStd: true })).toEqual({ advantages: [], grouped: 0 });
  });
});
