// Counterfactual ground truth: seeded and reproducible, built from prefixes that replay exactly,
// zero for a deterministic expert with a deterministic collaborator, and the prefix check.
import { describe, expect, it } from 'vitest';
import { scriptedBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { counterfactualTruth, informationGainOf } from '../../../src/rl/rollout/counterfactual.ts';
import { rollout, runSlots, taskSpecs } from '../../../src/rl/rollout/rollout.ts';
import { BaseEnv } from '../../../src/rl/envs/base.ts';
import { createAgent, createEnv, type FamilyName } from '../../../src/rl/envs/registry.ts';

const agent = (family: FamilyName, kind: 'noisy' | 'expert' | 'random' = 'noisy') => scriptedBatchAgent(kind, (seed) => createAgent(kind, family, { seed }));

describe('counterfactual ground truth', () => {
  it('is reproducible from its seed and changes with another seed', async () => {
    const r = await rollout({ tasks: taskSpecs('frozenlake', 'test', 2, 3), k: 1, seed: 1, turnLimit: 6 }, agent('frozenlake'));
    const opts = { m: 3, seed: 7, turnLimit: 6 };
    const a = await counterfactualTruth(r.episodes, agent('frozenlake'), opts);
    const b = await counterfactualTruth(r.episodes, agent('frozenlake'), opts);
    const c = await counterfactualTruth(r.episodes, agent('frozenlake'), { ...opts, seed: 8 });
    expect(b).toEqual(a);
    expect(c.map((x) => x.alternatives)).not.toEqual(a.map((x) => x.alternatives));
    a.forEach((truth, i) => {
      const T = r.episodes[i].turns.length;
      expect(truth.perTurn.length).toBe(T);
      expect(truth.taken.every((xs) => xs.length === 4)).toBe(true);
      expect(truth.alternatives.every((xs) => xs.length === 3)).toBe(true);
      // the episode's own return-to-go is the first taken sample
      expect(truth.taken[0][0]).toBeCloseTo(r.episodes[i].totalReward, 6);
      truth.perTurn.forEach((v, t) => expect(v).toBeCloseTo(truth.q[t] - truth.v[t], 5));
    });
  });

  it('is zero for the deterministic expert on guess (every re-roll plays the same game)', async () => {
    const r = await rollout({ tasks: taskSpecs('guess', 'test', 2, 1), k: 1, seed: 1 }, agent('guess', 'expert'));
    const truth = await counterfactualTruth(r.episodes, agent('guess', 'expert'), { m: 2, seed: 1 });
    for (const t of truth) for (const v of t.perTurn) expect(v).toBeCloseTo(0, 6);
    // the information-gain truth reads the steps' bits: positive for the expert's questions
    const gains = informationGainOf(r.episodes[0].turns);
    expect(gains.length).toBe(r.episodes[0].turns.length);
    expect(gains[0]).toBeGreaterThan(0);
  });

  it('replays a prefix exactly, and rejects one that does not reproduce its recording', async () => {
    const r = await rollout({ tasks: taskSpecs('frozenlake', 'test', 8, 2), k: 1, seed: 4, turnLimit: 4 }, agent('frozenlake'));
    const e = r.episodes.find((x) => x.turns.length >= 3);
    if (!e) throw new Error('no episode with 3 turns among 8 (fixture)');
    const prefix = e.turns.slice(0, 2);
    const [again] = await runSlots([{ spec: e.task.spec, seed: 1, prefix, turnLimit: 2 }], agent('frozenlake'));
    expect(again.turns).toEqual(prefix);
    expect(again.prefixTurns).toBe(2);
    const bad = [{ ...prefix[0], observation: 'something else' }];
    await expect(runSlots([{ spec: e.task.spec, seed: 1, prefix: bad }], agent('frozenlake'))).rejects.toMatchObject({
      name: 'RolloutError',
      code: 'prefix-mismatch',
    });
  });

  it('BaseEnv.reseed changes the randomness that follows, reproducibly', async () => {
    const outcomes = async (stream: number | null) => {
      const out: number[] = [];
      for (let seed = 0; seed < 40; seed++) {
        const env = createEnv('bandit');
        const task = env.reset({ family: 'bandit', split: 'test', seed });
        if (stream !== null) (env as BaseEnv).reseed(stream);
        const action = await createAgent('random', 'bandit', { seed }).act([{ role: 'user', content: task.prompt }]);
        out.push(env.step(action).reward);
      }
      return out;
    };
    const a = await outcomes(5);
    expect(await outcomes(5)).toEqual(a);
    expect(await outcomes(6)).not.toEqual(a);
    expect(() => (createEnv('bandit') as BaseEnv).reseed(1)).toThrow(/reset\(\) must be called before reseed/);
  });
});
