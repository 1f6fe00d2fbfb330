// The one evaluation path (src/rl/rollout/evaluate.ts): scripted agents through the rollout loop
// equal the same envs Agent played alone (playEpisode) with the episode's seed; the summary's
// Pass@(1,T) is the share solved within T turns, counted by hand; the same seeds give the same
// figures; the engine's policy is played sampled and greedy; the Pass@(K,T) grid has its shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/rl/envs/registry.ts';
import { familyAgent } from '../../../src/rl/rollout/agents.ts';
import { evaluate, evaluateHeldOut, evaluatePassKT, evaluatePolicy, heldOutSeed, type PolicyModeResult } from '../../../src/rl/rollout/evaluate.ts';
import { episodeSeed, playEpisode } from '../../../src/rl/rollout/rollout.ts';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { tinyModels } from '../engine/fixtures.ts';
import { timeless } from './timeless.ts';

const guess = { family: 'guess' as const, split: 'test' as const, episodes: 12, seed: 40, options: { candidates: 4, maxTurns: 4 } };

describe('scripted agents', () => {
  it('play through the rollout loop as the same Agent alone with the episode seed', async () => {
    const { episodes } = await evaluate(guess, familyAgent('noisy', 'guess', 0.5));
    for (const [i, e] of episodes.entries()) {
      expect(e.task.spec.seed).toBe(guess.seed + i);
      expect(e.seed).toBe(episodeSeed(guess.seed, { family: 'guess', split: 'test', seed: guess.seed + i, options: guess.options }, 0));
      const alone = await playEpisode(createAgent('noisy', 'guess', { seed: e.seed, noise: 0.5 }), e.task.spec, { seed: e.seed });
      expect(e.turns.map((t) => t.action)).toEqual(alone.turns.map((t) => t.action));
      expect(e.totalReward).toBe(alone.totalReward);
    }
  });

  it('summarise success, reward, turns and Pass@(1,T) as counted by hand', async () => {
    const { summary, episodes } = await evaluate(guess, familyAgent('noisy', 'guess', 0.5));
    expect(summary).toMatchObject({ family: 'guess', split: 'test', agent: 'noisy(0.5)', episodes: 12, seed: 40 });
    expect(summary.passAt1).toHaveLength(4);
    for (let t = 1; t <= 4; t++) expect(summary.passAt1[t - 1]).toBe(episodes.filter((e) => e.success && e.turns.length <= t).length / 12);
    expect(summary.passAt1[3]).toBe(summary.successRate);
    expect(summary.meanTurns).toBe(episodes.reduce((a, e) => a + e.turns.length, 0) / 12);
    expect(summary.metrics).toHaveProperty('questionsPerEpisode');
    // a turn limit cuts the episodes and the Pass@(1,T) row
    const cut = await evaluate({ ...guess, turnLimit: 2 }, familyAgent('noisy', 'guess', 0.5));
    expect(cut.summary.passAt1).toHaveLength(2);
    expect(Math.max(...cut.episodes.map((e) => e.turns.length))).toBeLessThanOrEqual(2);
  });

  it('give the same figures for the same seeds, other episodes for another agent seed', async () => {
    const a = await evaluate(guess, familyAgent('noisy', 'guess', 0.5));
    const b = await evaluate(guess, familyAgent('noisy', 'guess', 0.5));
    expect(JSON.stringify(b.episodes.map((e) => timeless(e.turns)))).toBe(JSON.stringify(a.episodes.map((e) => timeless(e.turns))));
    const c = await evaluate({ ...guess, agentSeed: 41 }, familyAgent('noisy', 'guess', 0.5));
    expect(JSON.stringify(c.episodes.map((e) => timeless(e.turns)))).not.toBe(JSON.stringify(a.episodes.map((e) => timeless(e.turns))));
  });

  it('give a Pass@(K,T) grid of n × T that grows in K and T', async () => {
    const r = await evaluatePassKT(
      { family: 'guess', split: 'test', tasks: 6, n: 3, seed: 7, tMax: 4, options: guess.options },
      familyAgent('noisy', 'guess', 0.5),
    );
    expect(r.episodes).toHaveLength(18);
    expect(r.grid.map((row) => row.length)).toEqual([4, 4, 4]);
    for (let k = 0; k < 3; k++)
      for (let t = 0; t < 4; t++) {
        if (t > 0) expect(r.grid[k][t]).toBeGreaterThanOrEqual(r.grid[k][t - 1] - 1e-12);
        if (k > 0) expect(r.grid[k][t]).toBeGreaterThanOrEqual(r.grid[k - 1][t] - 1e-12);
      }
    expect(r.grid[0][3]).toBeCloseTo(r.successRate, 12);
  });

  it('keep the held-out seed ranges', () => {
    expect(heldOutSeed('test', 3)).toBe(100_003);
    expect(heldOutSeed('train', 3)).toBe(900_003);
  });
});

describe('the engine policy', () => {
  const engine = new PolicyEngine();
  const bandit = { family: 'bandit' as const, split: 'test' as const, episodes: 4, seed: 9 };
  beforeAll(async () => {
    const m = await tinyModels(6, 512);
    await engine.init('wasm');
    await engine.load('policy', { kind: 'files', files: m.files });
  });
  afterAll(() => engine.dispose());

  it('is played sampled and greedy, reproducibly, with the training figures beside the summary', async () => {
    const r = await evaluatePolicy(engine, bandit, { adapter: null, maxNewTokens: 6 });
    const again = await evaluatePolicy(engine, bandit, { adapter: null, maxNewTokens: 6 });
    for (const mode of ['sampled', 'greedy'] as const) {
      const x = r[mode] as PolicyModeResult;
      expect(x.summary.agent).toBe(mode === 'greedy' ? 'policy(greedy)' : 'policy(T=1)');
      expect(x.summary.episodes).toBe(4);
      expect(x.figures.success).toBe(x.summary.successRate);
      expect(x.figures.turns_mean).toBe(x.summary.meanTurns);
      for (const e of x.episodes) for (const t of e.turns) expect(t.completionTokens).toBeLessThanOrEqual(6);
      expect((again[mode] as PolicyModeResult).episodes.map((e) => timeless(e.turns))).toEqual(x.episodes.map((e) => timeless(e.turns)));
    }
    const held = await evaluateHeldOut(engine, null, { family: 'bandit', tasks: 4, seed: 9, maxNewTokens: 6 });
    // each task's success in task order, so that two results over the same tasks pair up
    const perTask = (mode: 'sampled' | 'greedy') => (r[mode] as PolicyModeResult).episodes.map((e) => (e.success ? 1 : 0));
    expect(held).toEqual({
      adapter: null,
      sampled: (r.sampled as PolicyModeResult).figures,
      greedy: (r.greedy as PolicyModeResult).figures,
      perTask: { sampled: perTask('sampled'), greedy: perTask('greedy') },
    });
  });
});
