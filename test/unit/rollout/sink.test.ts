// Storing the lab's rollouts (src/rl/rollout/sink.ts): storedRollout, as the Evaluate view calls it,
// writes every episode under a new run, tagged with the adapter, and the store lists them by run;
// turn-limited episodes are closed as aborted; without a store it is a plain rollout.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/rl/envs/registry.ts';
import { scriptedBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { taskSpecs } from '../../../src/rl/rollout/rollout.ts';
import { storedRollout } from '../../../src/rl/rollout/sink.ts';
import { turnsOf } from '../../../src/rl/store/turn.ts';
import { TrajectoryStore } from '../../../src/rl/store/index.ts';

const agent = () => scriptedBatchAgent('noisy(0.3)', (seed) => createAgent('noisy', 'guess', { seed }));
const evaluation = (adapter: string | null) => ({ name: 'Evaluate on guess (test)', models: { policy: 'policy', critic: null }, adapterId: adapter, algorithm: 'evaluate', settings: { family: 'guess', split: 'test' }, seed: 1000 });

describe('storedRollout', () => {
  it('stores every episode of an evaluation under its own run, tagged with the adapter, listed by run', async () => {
    const store = await TrajectoryStore.open({ name: `sink-${Math.random()}` });
    const config = { tasks: taskSpecs('guess', 'test', 3, 1000), k: 2, seed: 1000, turnLimit: 2 };
    const base = await storedRollout(store, evaluation(null), { policy: 'policy', adapter: null, critic: null }, config, agent());
    const tuned = await storedRollout(store, evaluation('run-7/policy'), { policy: 'policy', adapter: 'run-7/policy', critic: null }, config, agent());
    expect(base.runId).not.toBeNull();
    expect(tuned.runId).not.toBe(base.runId);
    for (const [r, adapter] of [[base, null], [tuned, 'run-7/policy']] as const) {
      const page = await store.listEpisodes({ runId: r.runId }, { limit: 100 });
      expect(page.items.length).toBe(r.episodes.length);
      expect(page.items.every((s) => s.runId === r.runId && s.model.adapter === adapter)).toBe(true);
      // finished episodes are complete; those the turn limit stopped are aborted with that reason
      for (const s of page.items) expect(s.status === 'complete' || s.abortReason === 'stopped at the rollout turn limit').toBe(true);
      expect((await store.getRun(r.runId ?? ''))?.adapterId).toBe(adapter);
    }
    expect(tuned.episodeIds.length).toBe(tuned.episodes.length);
    const stored = await store.getEpisodes(tuned.episodeIds);
    expect(stored.map((e) => turnsOf(e?.turns ?? []).turns)).toEqual(tuned.episodes.map((e) => e.turns));
    store.close();
  });

  it('is a plain rollout without a store', async () => {
    const r = await storedRollout(null, evaluation(null), { policy: 'policy', adapter: null, critic: null }, { tasks: taskSpecs('guess', 'test', 1, 1), k: 1, seed: 1 }, agent());
    expect(r.runId).toBeNull();
    expect(r.episodes.length).toBe(1);
  });
});
