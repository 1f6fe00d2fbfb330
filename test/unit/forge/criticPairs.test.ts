// SWEET-RL's trajectory pairing and the Bradley–Terry row score, by hand (src/rl/forge/criticPairs.ts).
import { describe, expect, it } from 'vitest';
import { branchPairs, branchSides, pairAccuracy, rowAdvantageSum, splitByTask, sweetPairs } from '../../../src/rl/forge/criticPairs.ts';

const ep = (task: number, reward: number, success: boolean) => ({ task, reward, success });

describe('branchPairs', () => {
  it("pairs each group's best return with every member of lower return, ties by index, none when all returns are equal", () => {
    const reward = [0.5, 1, -0.2, 1, 0.3, 0.3, 0.7, 0];
    expect(branchPairs([[0, 1, 2, 3], [4, 5], [6], [7, 6]], (i) => reward[i])).toEqual([
      [1, 0],
      [1, 2],
      [6, 7],
    ]);
  });
});

describe('branchSides', () => {
  const reward = [0.5, 1, -0.2, 1, 0.3, 0];
  const groups = [
    { members: [0, 1, 2], turn: 2 },
    { members: [4, 5], turn: 0 },
  ];
  const distinct = (i: number) => `question ${i}`;
  it("keeps whole episodes as a branch pair's sides with 'trajectory'", () => {
    const s = branchSides(groups, (i) => reward[i], 'trajectory', 6, distinct);
    expect(s.pairs).toEqual([
      [1, 0],
      [1, 2],
      [4, 5],
    ]);
    expect(s.cutAfter.size).toBe(0);
  });
  it("with 'turn', keys each side apart from its whole episode, cuts it after the turn its group parts at and pairs every two of different returns", () => {
    const s = branchSides(groups, (i) => reward[i], 'turn', 6, distinct);
    expect(s.pairs).toEqual([
      [6, 8],
      [7, 6],
      [7, 8],
      [10, 11],
    ]);
    expect([...s.cutAfter]).toEqual([
      [6, 3],
      [7, 3],
      [8, 3],
      [10, 1],
      [11, 1],
    ]);
    expect([7, 10, 3].map(s.episodeOf)).toEqual([1, 4, 3]);
  });
  it("with 'turn', makes the members that played the same branch turn one side, labelled by their mean return, every two of different labels a pair", () => {
    // at one state: 'a' won twice and lost once (mean 2/3), 'b' lost, 'c' won once (1): c > a > b
    const r = [1, 0, 1, 0, 0, 1];
    const text = ['a', 'a', 'a', 'b', 'b', 'c'];
    const s = branchSides(
      [{ members: [0, 1, 2, 3, 4, 5], turn: 1 }],
      (i) => r[i],
      'turn',
      6,
      (i) => text[i],
    );
    // sides keyed episodes + the first member of each candidate: a → 6, b → 9, c → 11
    expect(s.pairs).toEqual([
      [6, 9],
      [11, 6],
      [11, 9],
    ]);
    expect([...s.cutAfter.keys()].sort()).toEqual([11, 6, 9].sort());
  });
});

describe('sweetPairs', () => {
  it("pairs each task's best success with each of its failures", () => {
    // task 0: successes 1 (0.9) and 2 (0.97), failures 0 and 3; task 1: no success; task 2: one success, one failure
    const eps = [
      ep(0, 0, false),
      ep(0, 0.9, true),
      ep(0, 0.97, true),
      ep(0, -0.1, false),
      ep(1, 0.5, false),
      ep(1, 0, false),
      ep(2, 1, true),
      ep(2, 0.4, false),
    ];
    expect(sweetPairs(eps, 10, 1)).toEqual([
      [2, 0],
      [2, 3],
      [6, 7],
    ]);
  });

  it('breaks ties in return by index, never by length, and pairs no success with a success', () => {
    const eps = [ep(0, 1, true), ep(0, 1, true), ep(0, 0, false)];
    expect(sweetPairs(eps, 10, 1)).toEqual([[0, 2]]);
  });

  it('caps the failures per task with a seeded sample', () => {
    const eps = [ep(0, 1, true), ...Array.from({ length: 6 }, () => ep(0, 0, false))];
    const a = sweetPairs(eps, 2, 7);
    expect(a).toHaveLength(2);
    expect(a.every(([c]) => c === 0)).toBe(true);
    expect(sweetPairs(eps, 2, 7)).toEqual(a);
    expect(new Set(a.map(([, r]) => r)).size).toBe(2);
  });
});

describe('splitByTask', () => {
  it('holds out the pairs of every n-th task', () => {
    const task = [0, 0, 1, 1, 2, 2];
    const { train, heldOut } = splitByTask(
      [
        [0, 1],
        [2, 3],
        [4, 5],
      ],
      (i) => task[i],
      2,
    );
    expect(heldOut).toEqual([
      [0, 1],
      [4, 5],
    ]);
    expect(train).toEqual([[2, 3]]);
  });
});

describe('rowAdvantageSum and pairAccuracy', () => {
  it('sums β·(log π − log π_ref) weighted by 1/len(turn): Σ_t A_t', () => {
    // two turns: positions 1–2 (weights 1/2) and 4 (weight 1)
    const lp = [0, -1, -2, 0, -0.5];
    const ref = [0, -1.5, -1, 0, -1];
    const w = [0, 0.5, 0.5, 0, 1];
    // turn 0: mean(0.5, −1) = −0.25; turn 1: 0.5; β = 2 → 2·0.25 = 0.5
    expect(rowAdvantageSum(lp, ref, w, 2)).toBeCloseTo(0.5, 12);
  });

  it('counts a tie as wrong', () => {
    const s = [1, 0, 0.5, 0.5];
    expect(
      pairAccuracy(
        [
          [0, 1],
          [2, 3],
          [1, 0],
        ],
        (i) => s[i],
      ),
    ).toBeCloseTo(1 / 3, 12);
    expect(pairAccuracy([], () => 0)).toBeNaN();
  });
});
