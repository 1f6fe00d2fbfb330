// Small pieces of issue #19, checked by hand: which episodes rejection fine-tuning imitates (above
// its task group's mean, or every success), PPO's whitened advantages, and information-gain turn rewards.
import { describe, expect, it } from 'vitest';
import { keptEpisodes } from '../../../src/rl/algos/rft.ts';
import { whiten } from '../../../src/rl/algos/starpo.ts';
import { withInfoGainRewards } from '../../../src/rl/algos/feedback.ts';
import type { RolloutEpisode } from '../../../src/rl/rollout/rollout.ts';

const ep = (totalReward: number, success: boolean) => ({ totalReward, success }) as RolloutEpisode;

describe('RFT keeps', () => {
  // two groups of K = 3: (a guess group where every episode succeeds but one wasted a question) and a mixed one
  const episodes = [ep(0.97, true), ep(0.92, true), ep(0.97, true), ep(0.96, true), ep(-0.03, false), ep(-0.03, false)];

  it('above-mean: the better episodes of each group, nothing from a group whose returns are equal', () => {
    // group 1: mean 0.953 → the two 0.97s; group 2: mean 0.3 → the success
    expect(keptEpisodes({ episodes, k: 3 }, 'above-mean')).toEqual([true, false, true, true, false, false]);
    expect(keptEpisodes({ episodes: [ep(1, true), ep(1, true)], k: 2 }, 'above-mean')).toEqual([false, false]);
  });

  it('success: every successful episode', () => {
    expect(keptEpisodes({ episodes, k: 3 }, 'success')).toEqual([true, true, true, true, false, false]);
  });
});

describe('whiten', () => {
  it('centres and scales every turn of every episode together', () => {
    const adv = [[1, 3], [5], [7]];
    whiten(adv);
    // mean 4, population std √5
    const s = Math.sqrt(5);
    expect(adv.flat().map((x) => +x.toFixed(6))).toEqual([-3 / s, -1 / s, 1 / s, 3 / s].map((x) => +x.toFixed(6)));
  });

  it('leaves a single turn alone and keeps equal advantages finite', () => {
    const one = [[0.7]];
    whiten(one);
    expect(one).toEqual([[0.7]]);
    const flat = [[2, 2], [2]];
    whiten(flat);
    expect(flat.flat()).toEqual([0, 0, 0]);
  });
});

describe('information-gain turn rewards', () => {
  const turn = (reward: number, info: Record<string, unknown>) => ({ action: 'a', observation: 'o', reward, done: false, info });
  const guess = {
    turns: [turn(-0.01, { informationGain: 1 }), turn(-0.06, { informationGain: 0, useless: true }), turn(0.99, { guess: 'cat' })],
    totalReward: 0.92,
    success: true,
  } as unknown as RolloutEpisode;

  it('adds weight × bits to each question, nothing to the guess, and recomputes the return', () => {
    const [e] = withInfoGainRewards([guess], 0.05);
    expect(e.turns.map((t) => +t.reward.toFixed(6))).toEqual([0.04, -0.06, 0.99]);
    expect(+e.totalReward.toFixed(6)).toBe(0.97);
    expect(guess.turns[0].reward).toBe(-0.01); // the rollout's own episode is untouched
  });

  it('is the identity at weight 0 and for families without the field', () => {
    expect(withInfoGainRewards([guess], 0)[0]).toBe(guess);
    const bandit = { turns: [turn(0.25, {})], totalReward: 0.25, success: true } as unknown as RolloutEpisode;
    expect(withInfoGainRewards([bandit], 0.05)[0]).toBe(bandit);
  });
});
