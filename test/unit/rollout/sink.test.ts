// Storing the lab's rollouts (src/rl/rollout/sink.ts): openRunSink, as the Evaluate view calls it,
// writes every episode under a new run, tagged with the adapter, and the store lists them by run;
// turn-limited episodes are closed as aborted.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/rl/envs/registry.ts';
import { scriptedBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { rollout, taskSpecs, type RolloutConfig } from '../../../src/rl/rollout/rollout.ts';
import { openRunSink, type TrajectoryWriter } from '../../../src/rl/rollout/sink.ts';
import { turnsOf } from '../../../src/rl/store/turn.ts';
import { TrajectoryStore } from '../../../src/rl/store/index.ts';

const agent = () => scriptedBatchAgent('noisy(0.3)', (seed) => createAgent('noisy', 'guess', { seed }));
const evaluation = (adapter: string | null) => ({ name: 'Evaluate on guess (test)', models: { policy: 'policy', critic: null }, adapterId: adapter, algorithm: 'evaluate', settings: { family: 'guess', split: 'test' }, seed: 1000 });

/** A rollout stored under a new run, as the Evaluate view plays one evaluated policy. */
async function storedRollout(store: TrajectoryWriter, adapter: string | null, config: RolloutConfig) {
  const sink = await openRunSink(store, evaluation(adapter), { policy: 'policy', adapter, critic: null });
  const r = await rollout(config, agent(), { onEvent: sink.onEvent });
  return { ...r, runId: sink.runId, episodeIds: r.episodes.map((_, slot) => sink.ids.get(slot) ?? '') };
}

describe('openRunSink', () => {
  it('stores every episode of an evaluation under its own run, tagged with the adapter, listed by run', async () => {
    const store = await TrajectoryStore.open({ name: `sink-${Math.random()}` });
    const config = { tasks: taskSpecs('guess', 'test', 3, 1000), k: 2, seed: 1000, turnLimit: 2 };
    const base = await storedRollout(store, null, config);
    const tuned = await storedRollout(store, 'run-7/policy', config);
    expect(tuned.runId).not.toBe(base.runId);
    for (const [r, adapter] of [[base, null], [tuned, 'run-7/policy']] as const) {
      const page = await store.listEpisodes({ runId: r.runId }, { limit: 100 });
      expect(page.items.length).toBe(r.episodes.length);
      expect(page.items.every((s) => s.runId === r.runId && s.model.adapter === adapter)).toBe(true);
      // finished episodes are complete; those the turn limit stopped are aborted with that reason
      for (const s of page.items) expect(s.status === 'complete' || s.abortReason === 'stopped at the rollout turn limit').toBe(true);
      expect((await store.getRun(r.runId))?.adapterId).toBe(adapter);
    }
    expect(tuned.episodeIds.length).toBe(tuned.episodes.length);
    const stored = await store.getEpisodes(tuned.episodeIds);
    expect(stored.map((e) => turnsOf(e?.turns ?? []).turns)).toEqual(tuned.episodes.map((e) => e.turns));
    store.close();
  });
});
