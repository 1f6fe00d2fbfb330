// Re-roll credit pooled by state: a shared state's value is its visits' mean return, re-rolls only
// top up what the group left short, the estimate is reproducible, and it is zero where every play of
// a state ends the same way.
import { describe, expect, it } from 'vitest';
import { scriptedBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { returnFrom, type JudgedEpisode } from '../../../src/rl/rollout/counterfactual.ts';
import { pooledRerollCredit } from '../../../src/rl/rollout/pooledReroll.ts';
import { rollout, taskSpecs } from '../../../src/rl/rollout/rollout.ts';
import { anchorState } from '../../../src/rl/credit/stepGroups.ts';
import { createAgent } from '../../../src/rl/envs/registry.ts';

const agent = (kind: 'noisy' | 'expert') => scriptedBatchAgent(kind, (seed) => createAgent(kind, 'guess', { seed }));
const stateOf = (e: JudgedEpisode, t: number) => anchorState(e.task.prompt, e.turns, t);
const K = 8;

async function groups(kind: 'noisy' | 'expert', tasks: number) {
  const r = await rollout({ tasks: taskSpecs('guess', 'test', tasks, 5), k: K, seed: 3 }, agent(kind));
  return Array.from({ length: tasks }, (_, g) => r.episodes.slice(g * K, (g + 1) * K));
}

describe('pooled re-roll credit', () => {
  it("takes a shared state's value from its visits, needs fewer re-rolls than per-turn credit, and is reproducible", async () => {
    const gs = await groups('noisy', 3);
    const opts = { m: 2, seed: 11, stateOf };
    const a = await pooledRerollCredit(gs, agent('noisy'), opts);
    expect(await pooledRerollCredit(gs, agent('noisy'), opts)).toEqual(a);
    const turns = gs.flat().reduce((n, e) => n + e.turns.length, 0);
    expect(a.rerolls).toBeLessThan(2 * opts.m * turns);
    expect(a.advantages.map((x) => x.length)).toEqual(gs.flat().map((e) => e.turns.length));
    // every episode of a group starts in the same state, visited K ≥ M + 1 times: V̂(s_0) is the
    // group's mean return, and a first move that K/2 episodes made has Q̂ = their mean return
    let checked = 0;
    gs.forEach((group, g) => {
      const v0 = group.reduce((s, e) => s + e.totalReward, 0) / K;
      const next = group.map((e) => (e.turns[0].done ? `end ${e.turns[0].action}` : stateOf(e, 1)));
      group.forEach((e, i) => {
        const same = group.filter((_, j) => next[j] === next[i]);
        if (same.length < opts.m + 1) return;
        const q = same.reduce((s, x) => s + returnFrom(x.turns, 0, 1), 0) / same.length;
        expect(a.advantages[g * K + i][0]).toBeCloseTo(q - v0, 6);
        checked++;
      });
    });
    expect(checked).toBeGreaterThan(0);
  });

  it('is zero for the deterministic expert (every play from a state is the same game)', async () => {
    const gs = await groups('expert', 2);
    const { advantages } = await pooledRerollCredit(gs, agent('expert'), { m: 2, seed: 1, stateOf });
    for (const turns of advantages) for (const v of turns) expect(v).toBeCloseTo(0, 6);
  });

  it('rejects M < 1', async () => {
    await expect(pooledRerollCredit([], agent('noisy'), { m: 0, seed: 1, stateOf })).rejects.toMatchObject({ code: 'bad-config' });
  });
});
