// Every estimator on one hand-computed three-turn episode, the GAE limits (λ = 1 with V = 0 is the
// MC return, λ = 0 is the one-step TD error), and the registry's batch entry point.
import { describe, expect, it } from 'vitest';
import { archerCredit } from '../../../src/rl/credit/archer.ts';
import { biLevelGaeCredit } from '../../../src/rl/credit/biLevelGae.ts';
import { gaeAdvantages, gaeCredit } from '../../../src/rl/credit/gae.ts';
import { groupAdvantages, groupCredit } from '../../../src/rl/credit/groupAdvantage.ts';
import { monteCarloCredit } from '../../../src/rl/credit/monteCarlo.ts';
import { computeCredit, ESTIMATOR_NAMES, ESTIMATORS, resolveParams } from '../../../src/rl/credit/registry.ts';
import { sweetCredit } from '../../../src/rl/credit/sweetAdvantage.ts';
import type { EpisodeCreditInput } from '../../../src/rl/credit/types.ts';
import { expectClose, f32, i32 } from './helpers.ts';

// The three-turn episode used throughout: r = [1, 0, 2]; turn 0 has 2 tokens, turn 1 one, turn 2 three.
const episode: EpisodeCreditInput = {
  rewards: f32([1, 0, 2]),
  values: f32([0.5, 1, 0.5, 9]), // V(s_0..s_3); V(s_3) = 9 is ignored while terminal
  terminal: true,
  q: f32([1, 0.5, 2]),
  tokenOffsets: i32([0, 2, 3, 6]),
  tokenValues: f32([0.25, 0.5, 1, 0, 1, 0.5]),
  criticLogprobs: f32([-1, -2, -0.5, -1, -1, -3]),
  refLogprobs: f32([-2, -2, -1, -0.5, -1, -1]),
  group: 'task-a',
};

describe('Monte-Carlo return', () => {
  it('matches the hand computation (γ = 0.5)', () => {
    // G_2 = 2;  G_1 = 0 + 0.5·2 = 1;  G_0 = 1 + 0.5·1 = 1.5
    const r = monteCarloCredit(episode, { gamma: 0.5 });
    expectClose(r.perTurn, [1.5, 1, 2]);
    expect(r.params).toEqual({ gamma: 0.5 });
  });
  it('γ = 1 sums the remaining rewards', () => {
    expectClose(monteCarloCredit(episode, { gamma: 1 }).perTurn, [3, 2, 2]);
  });
});

describe('turn-level GAE', () => {
  it('matches the hand computation (γ = 0.5, λ = 0.5, terminal)', () => {
    // δ_2 = 2 + 0.5·0 − 0.5 = 1.5;  δ_1 = 0 + 0.5·0.5 − 1 = −0.75;  δ_0 = 1 + 0.5·1 − 0.5 = 1
    // γλ = 0.25:  A_2 = 1.5;  A_1 = −0.75 + 0.25·1.5 = −0.375;  A_0 = 1 + 0.25·(−0.375) = 0.90625
    expectClose(gaeCredit(episode, { gamma: 0.5, lambda: 0.5 }).perTurn, [0.90625, -0.375, 1.5]);
  });
  it('bootstraps from V(s_T) for a live prefix', () => {
    // V(s_3) = 9:  δ_2 = 2 + 0.5·9 − 0.5 = 6;  A_2 = 6;  A_1 = −0.75 + 1.5 = 0.75;  A_0 = 1 + 0.1875 = 1.1875
    expectClose(gaeCredit({ ...episode, terminal: false }, { gamma: 0.5, lambda: 0.5 }).perTurn, [1.1875, 0.75, 6]);
  });
  it('equals the Monte-Carlo return when λ = 1 and V = 0', () => {
    const rewards = f32([0.3, -1, 0, 2.5, 1]);
    const zero = new Float32Array(6);
    for (const gamma of [1, 0.9, 0.5]) {
      expectClose(gaeAdvantages(rewards, zero, gamma, 1, true), monteCarloCredit({ rewards }, { gamma }).perTurn);
    }
  });
  it('equals the one-step TD error when λ = 0', () => {
    const rewards = f32([0.3, -1, 0, 2.5]);
    const values = f32([0.2, 0.4, -0.1, 1, 3]);
    const gamma = 0.9;
    const td = Array.from(rewards, (r, t) => r + gamma * (t === 3 ? 0 : values[t + 1]) - values[t]);
    expectClose(gaeAdvantages(rewards, values, gamma, 0, true), td);
    const tdLive = Array.from(rewards, (r, t) => r + gamma * values[t + 1] - values[t]);
    expectClose(gaeAdvantages(rewards, values, gamma, 0, false), tdLive);
  });
});

describe('bi-level GAE', () => {
  it('matches the hand computation (γ = 0.5, λ = 1, γ_turn = 0.5, λ_turn = 0.5)', () => {
    // Turn values are the last token's: V_0 = tv[1] = 0.5, V_1 = tv[2] = 1, V_2 = tv[5] = 0.5, so the turn
    // level repeats the GAE example: A_turn = [0.90625, −0.375, 1.5].
    // Tokens (γλ = 0.5), seeded at each turn's last token with A_turn:
    //   turn 0: tok1 = 0.90625; tok0: δ = 0.5·0.5 − 0.25 = 0 → 0 + 0.5·0.90625 = 0.453125
    //   turn 1: tok2 = −0.375
    //   turn 2: tok5 = 1.5; tok4: δ = 0.5·0.5 − 1 = −0.75 → −0.75 + 0.75 = 0; tok3: δ = 0.5·1 − 0 = 0.5 → 0.5 + 0 = 0.5
    const r = biLevelGaeCredit(episode, { gamma: 0.5, lambda: 1, turnGamma: 0.5, turnLambda: 0.5 });
    expectClose(r.perTurn, [0.90625, -0.375, 1.5]);
    expectClose(r.perToken!, [0.453125, 0.90625, -0.375, 0.5, 0, 1.5]);
  });
  it('with one token per turn and γ_turn = γ equals turn-level GAE on the token values', () => {
    const e: EpisodeCreditInput = { rewards: f32([1, -0.5, 2]), tokenOffsets: i32([0, 1, 2, 3]), tokenValues: f32([0.3, 0.7, -0.2]) };
    const bi = biLevelGaeCredit(e, { turnGamma: 0.9, turnLambda: 0.8 });
    const plain = gaeAdvantages(e.rewards, f32([0.3, 0.7, -0.2, 0]), 0.9, 0.8, true);
    expectClose(bi.perTurn, plain);
    expectClose(bi.perToken!, plain);
  });
});

describe('GRPO group advantage', () => {
  it('matches the hand computation', () => {
    // returns [4, 1, 1]: mean 2; unbiased var = (4 + 1 + 1)/2 = 3 → A = [2, −1, −1]/√3
    expectClose(groupAdvantages([4, 1, 1], { epsilon: 0 }), [2 / Math.sqrt(3), -1 / Math.sqrt(3), -1 / Math.sqrt(3)]);
    // population var = 6/3 = 2 → A = [2, −1, −1]/√2
    expectClose(groupAdvantages([4, 1, 1], { epsilon: 0, unbiased: false }), [Math.SQRT2, -1 / Math.SQRT2, -1 / Math.SQRT2]);
    // mean subtraction only
    expectClose(groupAdvantages([4, 1, 1], { divideByStd: false }), [2, -1, -1]);
  });
  it('gives every turn of an episode its group advantage, grouped by task', () => {
    const eps: EpisodeCreditInput[] = [
      { rewards: f32([1, 0, 2]), group: 'a' }, // R = 3
      { rewards: f32([0, 1]), group: 'b' }, // R = 1
      { rewards: f32([0, 0, 1]), group: 'a' }, // R = 1
      { rewards: f32([3]), group: 'b' }, // R = 3
      { rewards: f32([1, 1]), group: 'a' }, // R = 2
    ];
    // group a: returns [3, 1, 2], mean 2, unbiased std 1 → [1, −1, 0]; group b: [1, 3], mean 2, std √2 → [−1/√2, 1/√2]
    const r = groupCredit(eps, { epsilon: 0 });
    expectClose(r[0].perTurn, [1, 1, 1]);
    expectClose(r[1].perTurn, [-Math.SQRT1_2, -Math.SQRT1_2]);
    expectClose(r[2].perTurn, [-1, -1, -1]);
    expectClose(r[3].perTurn, [Math.SQRT1_2]);
    expectClose(r[4].perTurn, [0, 0]);
  });
  it('a constant group is zero, not NaN, with or without std division', () => {
    for (const divideByStd of [true, false]) {
      for (const epsilon of [0, 1e-6]) {
        expect(Array.from(groupAdvantages([0.7, 0.7, 0.7, 0.7], { divideByStd, epsilon }))).toEqual([0, 0, 0, 0]);
      }
    }
  });
  it('returns equal up to float32 round-off count as zero spread (no amplified noise)', () => {
    // f32(0.1) + f32(0.2) ≠ f32(0.3) in float64; a plain (R − mean)/std would give ±0.58 here.
    const eps: EpisodeCreditInput[] = [
      { rewards: f32([0.1, 0.2]), group: 'g' },
      { rewards: f32([0.3]), group: 'g' },
      { rewards: f32([0.3]), group: 'g' },
    ];
    for (const r of groupCredit(eps, { epsilon: 0 })) for (const a of r.perTurn) expect(a).toBe(0);
  });
  it('a group of one gets zero', () => {
    expect(Array.from(groupAdvantages([5]))).toEqual([0]);
    expect(groupAdvantages([]).length).toBe(0);
  });
});

describe('SWEET-RL advantage', () => {
  it('matches the hand computation (β = 0.5)', () => {
    // β(lc − lr) per token = 0.5·[1, 0, 0.5, −0.5, 0, −2] = [0.5, 0, 0.25, −0.25, 0, −1]
    // turn means: (0.5 + 0)/2 = 0.25;  0.25;  (−0.25 + 0 − 1)/3 = −0.41666…
    const r = sweetCredit(episode, { beta: 0.5 });
    expectClose(r.perTurn, [0.25, 0.25, -1.25 / 3]);
    expectClose(r.perToken!, [0.5, 0, 0.25, -0.25, 0, -1]);
  });
  it('a turn without tokens gets 0', () => {
    const r = sweetCredit({ rewards: f32([0, 0]), tokenOffsets: i32([0, 0, 1]), criticLogprobs: f32([-1]), refLogprobs: f32([-2]) });
    expectClose(r.perTurn, [0, 1]);
  });
});

describe('ArCHer Q − V', () => {
  it('matches the hand computation', () => {
    // A = Q − V(s_t) = [1 − 0.5, 0.5 − 1, 2 − 0.5] = [0.5, −0.5, 1.5]
    expectClose(archerCredit(episode).perTurn, [0.5, -0.5, 1.5]);
  });
});

describe('registry', () => {
  it('lists every estimator once, with defaults inside their ranges', () => {
    expect(ESTIMATORS.map((e) => e.name).sort()).toEqual([...ESTIMATOR_NAMES].sort());
    for (const e of ESTIMATORS) {
      for (const p of e.params) {
        expect(p.description.length).toBeGreaterThan(5);
        if (p.type === 'number') expect(p.default >= p.min && p.default <= p.max).toBe(true);
      }
    }
  });
  it('computes every estimator by name on the three-turn episode, finite, one credit per turn', () => {
    for (const name of ESTIMATOR_NAMES) {
      const [r] = computeCredit(name, [episode]);
      expect(r.estimator).toBe(name);
      expect(r.perTurn.length).toBe(3);
      expect(r.perTurn.every(Number.isFinite)).toBe(true);
      expect(r.params).toEqual(resolveParams(name));
      if (ESTIMATORS.find((e) => e.name === name)!.perToken) expect(r.perToken!.length).toBe(6);
    }
  });
  it('passes parameters through', () => {
    const [r] = computeCredit('gae', [episode], { gamma: 0.5, lambda: 0.5 });
    expectClose(r.perTurn, [0.90625, -0.375, 1.5]);
  });
});
