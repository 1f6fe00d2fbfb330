// Trajectory pairs for SWEET-RL's critic and multi-turn DPO (groups.ts): the paper's rank pairing
// (i-th best vs i-th worst) against gap pairing (pairs drawn ∝ r_i − r_j over the iteration's groups),
// on hand-made groups and on RAGEN's bandit, where rank pairing teaches the worse arm.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { agentSide, gapPairs, pairTrajectories, trajectoryPairs } from '../../../src/rl/algos/groups.ts';
import { defaultLoopConfig, overrideConfig, validateLoopConfig } from '../../../src/rl/algos/config.ts';
import { CRITIC_LR, PAIRWISE_LR, POLICY_LR } from '../../../src/rl/algos/algoSettings.ts';
import { AlgoError } from '../../../src/rl/algos/types.ts';
import { Rng } from '../../../src/rl/util/rng.ts';

// one lucky risky pull (1), three safe pulls (0.15), four unlucky risky pulls (0)
const BANDIT_GROUP = [1, 0.15, 0.15, 0.15, 0, 0, 0, 0];
const RISKY = (i: number): boolean => i % 8 === 0 || i % 8 >= 4;

describe('gap pairs', () => {
  it('are the same for the same seed and differ for another', () => {
    const returns = [...BANDIT_GROUP, 0.3, 0.1, 0.9, 0.5, 0.5, 0, 0.2, 0.7];
    const a = gapPairs(returns, 8, new Rng(7));
    expect(a).toEqual(gapPairs(returns, 8, new Rng(7)));
    expect(a).toHaveLength(8);
    expect(gapPairs(returns, 8, new Rng(8), { count: 64 })).not.toEqual(gapPairs(returns, 8, new Rng(7), { count: 64 }));
  });

  it('pair only a better episode with a worse one of the same group, ⌊K/2⌋ per group (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer(),
        fc.array(fc.constantFrom(0, 0.15, 0.5, 1), { minLength: 40, maxLength: 40 }),
        (k, g, seed, pool) => {
          const returns = pool.slice(0, k * g);
          const pairs = gapPairs(returns, k, new Rng(seed));
          const spread = Array.from({ length: g }, (_, i) => returns.slice(i * k, (i + 1) * k)).some((r) => Math.max(...r) > Math.min(...r));
          expect(pairs).toHaveLength(spread ? Math.floor(k / 2) * g : 0);
          for (const [i, j] of pairs) {
            expect(Math.floor(i / k)).toBe(Math.floor(j / k));
            expect(returns[i]).toBeGreaterThan(returns[j]);
          }
        },
      ),
    );
  });

  it('draw each pair with probability ∝ its gap, groups of larger spread more often', () => {
    // group 0: gaps 1 (0>1); group 1: gaps 0.25 (2>3) → 80% vs 20%
    const pairs = gapPairs([1, 0, 0.25, 0], 2, new Rng(3), { count: 20000 });
    const share = pairs.filter(([i]) => i === 0).length / pairs.length;
    expect(share).toBeGreaterThan(0.78);
    expect(share).toBeLessThan(0.82);
    expect(gapPairs([1, 0, 0.25, 0], 2, new Rng(3), { count: 5, groups: [1] })).toEqual(Array.from({ length: 5 }, () => [2, 3]));
  });

  it('choose the lucky risky pull in most bandit pairs, where rank pairs prefer the safe arm in 3 of 4', () => {
    const rank = trajectoryPairs(BANDIT_GROUP, 8);
    expect(rank).toHaveLength(4);
    expect(rank.filter(([hi, lo]) => !RISKY(hi) && RISKY(lo))).toHaveLength(3);
    // gap: P(episode 0 chosen) = (3·0.85 + 4·1) / (3·0.85 + 4·1 + 12·0.15) = 6.55 / 8.35 ≈ 0.784
    const gap = gapPairs(BANDIT_GROUP, 8, new Rng(1), { count: 20000 });
    const chosen0 = gap.filter(([hi]) => hi === 0).length / gap.length;
    expect(chosen0).toBeGreaterThan(0.76);
    expect(chosen0).toBeLessThan(0.81);
    // net over arms: the risky arm is chosen more often than rejected
    const net = gap.reduce((n, [hi, lo]) => n + (RISKY(hi) ? 1 : -1) - (RISKY(lo) ? 1 : -1), 0);
    expect(net).toBeGreaterThan(0);
  });

  it('never pair two episodes with the same actions when these are given', () => {
    const actions = BANDIT_GROUP.map((_, i) => (RISKY(i) ? 'risky' : 'safe'));
    const gap = gapPairs(BANDIT_GROUP, 8, new Rng(2), { count: 20000, actions });
    for (const [hi, lo] of gap) expect(actions[hi]).not.toBe(actions[lo]);
    // left: risky win over safe (3 · 0.85) and safe over risky losses (12 · 0.15) → 2.55 / 4.35 ≈ 0.586
    const chosen0 = gap.filter(([hi]) => hi === 0).length / gap.length;
    expect(chosen0).toBeGreaterThan(0.56);
    expect(chosen0).toBeLessThan(0.61);
    expect(gapPairs([1, 0], 2, new Rng(2), { actions: ['a', 'a'] })).toEqual([]);
    expect(() => gapPairs([1, 0], 2, new Rng(2), { actions: ['a'] })).toThrow('1 action keys for 2 returns');
    expect(agentSide({ turns: [{ action: 'PULL a' }, { action: 'x' }] })).toBe('["PULL a","x"]');
  });

  it('push the better arm up over simulated bandit iterations; rank pairs push the worse one', () => {
    // 16 tasks × K 8 per iteration, the policy picks the risky arm with probability 0.5
    const env = new Rng(11);
    let gapNet = 0;
    let rankNet = 0;
    let distinctNet = 0;
    for (let it = 0; it < 100; it++) {
      const risky: boolean[] = [];
      const returns: number[] = [];
      for (let e = 0; e < 16 * 8; e++) {
        risky.push(env.chance(0.5));
        returns.push(risky[e] ? (env.chance(0.25) ? 1 : 0) : 0.15);
      }
      const net = (pairs: [number, number][]): number => pairs.reduce((n, [hi, lo]) => n + (risky[hi] ? 1 : -1) - (risky[lo] ? 1 : -1), 0);
      gapNet += net(pairTrajectories('gap', returns, 8, new Rng(it)));
      rankNet += net(pairTrajectories('rank', returns, 8, new Rng(it)));
      distinctNet += net(pairTrajectories('gap', returns, 8, new Rng(it), risky.map(String)));
    }
    // per ⌊K/2⌋-per-group pair slot (6400): gap ≈ +0.33, rank ≈ −0.83; a fixed number of gap
    // pairs per group would give ≈ −0.26 (groups without a win weigh as much as those with one)
    expect(gapNet / 6400).toBeGreaterThan(0.2);
    expect(rankNet / 6400).toBeLessThan(-0.5);
    // without same-arm pairs (no signal) every draw is a cross-arm pair: ≈ +0.6
    expect(distinctNet / 6400).toBeGreaterThan(0.45);
  });
});

describe('pairing config', () => {
  it('defaults to gap for SWEET-RL and multi-turn DPO and takes rank as an override', () => {
    const s = defaultLoopConfig('sweet', 'bandit').settings;
    expect(s.algo === 'sweet' && s.sweet.pairing).toBe('gap');
    const m = overrideConfig(defaultLoopConfig('mtdpo', 'bandit'), { mtdpo: { pairing: 'rank' } }).settings;
    expect(m.algo === 'mtdpo' && m.mtdpo.pairing).toBe('rank');
  });

  it("steps the pairwise methods' policy at PAIRWISE_LR, the others' at POLICY_LR and every critic at CRITIC_LR", () => {
    for (const algo of ['mtdpo', 'sweet'] as const) expect(defaultLoopConfig(algo, 'guess')).toMatchObject({ lr: PAIRWISE_LR, criticLr: CRITIC_LR });
    for (const algo of ['grpo', 'ppo', 'starpo', 'rft'] as const)
      expect(defaultLoopConfig(algo, 'guess')).toMatchObject({ lr: POLICY_LR, criticLr: CRITIC_LR });
    expect(PAIRWISE_LR).toBeLessThan(POLICY_LR);
    expect(defaultLoopConfig('sweet', 'guess', { lr: 3e-4 }).lr).toBe(3e-4);
  });

  it('bounds both learning rates where the config enters, overrides included (issue 22 point 3)', () => {
    expect(() => overrideConfig(defaultLoopConfig('grpo', 'guess'), { lr: 1e6 })).toThrow('lr must lie in (0, 1), got 1000000');
    expect(() => overrideConfig(defaultLoopConfig('ppo', 'guess'), { criticLr: 1 })).toThrow('criticLr must lie in (0, 1), got 1');
    expect(() => validateLoopConfig(defaultLoopConfig('grpo', 'guess', { lr: 0 }))).toThrow(AlgoError);
    expect(overrideConfig(defaultLoopConfig('grpo', 'guess'), { lr: 0.5 }).lr).toBe(0.5);
  });

  it('takes a rollout temperature in (0, 4] for the training rollouts only, unset by default', () => {
    expect(defaultLoopConfig('grpo', 'guess').rolloutTemperature).toBeUndefined();
    expect(overrideConfig(defaultLoopConfig('grpo', 'guess'), { rolloutTemperature: 1.5 }).rolloutTemperature).toBe(1.5);
    for (const t of [0, -1, 5])
      expect(() => overrideConfig(defaultLoopConfig('grpo', 'guess'), { rolloutTemperature: t })).toThrow(`rolloutTemperature must lie in (0, 4], got ${t}`);
  });

  it('takes a step-level (GiGPO) weight for grpo only, finite and not negative', () => {
    expect(overrideConfig(defaultLoopConfig('grpo', 'guess'), { starpo: { stepWeight: 1 } }).settings).toMatchObject({ starpo: { stepWeight: 1 } });
    expect(() => overrideConfig(defaultLoopConfig('grpo', 'guess'), { starpo: { stepWeight: -1 } })).toThrow(/stepWeight must be a finite number/);
    // step groups subtract their mean only unless asked (Dr. GRPO's point: ÷ std turns the 0.01 turn cost into a unit of advantage)
    expect(defaultLoopConfig('grpo', 'guess').settings).toMatchObject({ starpo: { stepDivideByStd: false } });
    expect(overrideConfig(defaultLoopConfig('grpo', 'guess'), { starpo: { stepDivideByStd: true } }).settings).toMatchObject({
      starpo: { stepDivideByStd: true },
    });
    expect(() => overrideConfig(defaultLoopConfig('grpo', 'guess'), { starpo: { stepDivideByStd: 1 } })).toThrow(/stepDivideByStd/);
    expect(() => overrideConfig(defaultLoopConfig('ppo', 'guess'), { starpo: { stepWeight: 1 } })).toThrow(/needs the grpo advantage/);
  });

  it('rejects an unknown pairing where the config enters', () => {
    expect(() => overrideConfig(defaultLoopConfig('sweet', 'bandit'), { sweet: { pairing: 'best' } })).toThrow(AlgoError);
    expect(() => overrideConfig(defaultLoopConfig('sweet', 'bandit'), { sweet: { pairing: 'best' } })).toThrow(
      'sweet.pairing must be one of gap, rank, got "best"',
    );
    const c = defaultLoopConfig('mtdpo', 'bandit');
    if (c.settings.algo === 'mtdpo') c.settings.mtdpo = { ...c.settings.mtdpo, pairing: 'x' as 'gap' };
    expect(() => validateLoopConfig(c)).toThrow('mtdpo.pairing must be one of gap, rank, got "x"');
  });
});
