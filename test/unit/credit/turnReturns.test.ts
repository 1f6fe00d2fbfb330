// GRPO's turn credit from each turn's rewards onwards (credit/turnReturns.ts), by hand on one group of
// three episodes, and what each mode does with the outcome alone.
import { describe, expect, it } from 'vitest';
import { turnReturnAdvantages } from '../../../src/rl/credit/turnReturns.ts';
import { expectClose } from './helpers.ts';

// Three episodes of one task: two questions and a guess; two questions and a wrong guess; an early guess.
const rewards = [[0.5, 0.5, 1], [0.5, 0, 0], [1]];

describe('IGPO turn credit', () => {
  it('z-normalises every reward of the group together, then sums from each turn on (γ = 1)', () => {
    // 7 rewards: mean 3.5/7 = 0.5, unbiased std √(4·0.25/6) = √(1/6)
    const z = 1 / Math.sqrt(1 / 6);
    const a = turnReturnAdvantages(rewards, 'igpo', { gamma: 1, divideByStd: true });
    expectClose(a[0], [0.5 * z, 0.5 * z, 0.5 * z]);
    expectClose(a[1], [-1 * z, -1 * z, -0.5 * z]);
    expectClose(a[2], [0.5 * z]);
  });
  it('discounts later turns by γ', () => {
    const z = 1 / Math.sqrt(1 / 6);
    const a = turnReturnAdvantages(rewards, 'igpo', { gamma: 0.5, divideByStd: true });
    // episode 1: ẑ = [0, −0.5z, −0.5z] → A_2 = −0.5z, A_1 = −0.5z − 0.25z, A_0 = 0 + 0.5·A_1
    expectClose(a[1], [-0.375 * z, -0.75 * z, -0.5 * z]);
  });
  it('credits nothing where every reward is equal', () => {
    expect(turnReturnAdvantages([[1, 1], [1]], 'igpo', { gamma: 1, divideByStd: true })).toEqual([[0, 0], [0]]);
  });
});

describe('return-to-go against the same turn index', () => {
  it('compares each turn only with the turns at its index (γ = 1, mean only)', () => {
    // G: [2, 1.5, 1], [0.5, 0, 0], [1]. Index 0: mean 7/6; index 1: mean 0.75; index 2: mean 0.5.
    const a = turnReturnAdvantages(rewards, 'toGo', { gamma: 1, divideByStd: false });
    expectClose(a[0], [2 - 7 / 6, 0.75, 0.5]);
    expectClose(a[1], [0.5 - 7 / 6, -0.75, -0.5]);
    expectClose(a[2], [1 - 7 / 6]);
  });
  it('divides by the same-index std and leaves a turn no other episode reached at 0', () => {
    const a = turnReturnAdvantages([[0, 1], [1]], 'toGo', { gamma: 1, divideByStd: true });
    // index 0: G = 1 and 1, no spread → 0; index 1: one episode → 0
    expect(a).toEqual([[0, 0], [0]]);
    const b = turnReturnAdvantages([[1], [0], [0]], 'toGo', { gamma: 1, divideByStd: true });
    // mean 1/3, unbiased std √((4/9 + 1/9 + 1/9)/2) = √(1/3)
    expectClose(b.flat(), [2 / 3 / Math.sqrt(1 / 3), -1 / 3 / Math.sqrt(1 / 3), -1 / 3 / Math.sqrt(1 / 3)]);
  });
  it('with the outcome alone and equal lengths, equals the episode credit on every turn', () => {
    const outcome = [
      [0, 0, 1],
      [0, 0, 0],
      [0, 0, 1],
      [0, 0, 0],
    ];
    const a = turnReturnAdvantages(outcome, 'toGo', { gamma: 1, divideByStd: true });
    for (const e of a) expect(new Set(e.map((x) => x.toFixed(6))).size).toBe(1);
    expectClose(
      a.map((e) => e[0]),
      [0.866025, -0.866025, 0.866025, -0.866025],
    );
  });
});
