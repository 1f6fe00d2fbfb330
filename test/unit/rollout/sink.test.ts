// Storing the lab's rollouts (src/rl/rollout/sink.ts): openRunSink, as the Evaluate view calls it,
// writes every episode under a new run, tagged with the adapter, and the store lists them by run;
// turn-limited episodes are closed as aborted; a resumed slot goes on writing its stored episode.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/rl/envs/registry.ts';
import { scriptedBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { rollout, runSlots, taskSpecs, type RolloutConfig } from '../../../src/rl/rollout/rollout.ts';
import { openRunSink, storeSink, type TrajectoryWriter } from '../../../src/rl/rollout/sink.ts';
import { turnsOf } from '../../../src/rl/store/turn.ts';
import { TrajectoryStore } from '../../../src/rl/store/index.ts';

const agent = () => scriptedBatchAgent('noisy(0.3)', (seed) => createAgent('noisy', 'guess', { seed }));
const evaluation = (adapter: string | null) => ({
  name: 'Evaluate on guess (test)',
  models: { policy: 'policy', critic: null },
  adapterId: adapter,
  algorithm: 'evaluate',
  settings: { family: 'guess', split: 'test' },
  seed: 1000,
});

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
    for (const [r, adapter] of [
      [base, null],
      [tuned, 'run-7/policy'],
    ] as const) {
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

describe('storeSink resumed', () => {
  it('continues an interrupted episode in place: the stored turns replay, new turns follow, one outcome (issue 22 point 2)', async () => {
    const name = `resume-${Math.random()}`;
    const spec = { family: 'guess' as const, split: 'test' as const, seed: 7 };
    const expert = () => scriptedBatchAgent('expert', (seed) => createAgent('expert', 'guess', { seed }));
    const whole = (await runSlots([{ spec, seed: 7 }], expert()))[0];
    expect(whole.turns.length).toBeGreaterThan(1);
    // a tab plays the first turn, then closes
    const first = await TrajectoryStore.open({ name });
    const sink = storeSink(first, { policy: 'expert', adapter: null, critic: null });
    await runSlots([{ spec, seed: 7, turnLimit: 1 }], expert(), { onEvent: async (e) => (e.kind === 'end' ? undefined : sink.onEvent(e)) });
    const id = sink.ids.get(0)!;
    first.close();
    const second = await TrajectoryStore.open({ name });
    expect(second.interrupted).toEqual([id]);
    const record = await second.resumeEpisode(id);
    const { turns } = turnsOf(record.turns);
    expect(turns).toHaveLength(1);
    const resumed = storeSink(second, record.model, { resumed: { 0: { episodeId: id, turns } } });
    const [played] = await runSlots([{ spec, seed: 7, prefix: turns }], expert(), { onEvent: resumed.onEvent });
    expect(resumed.ids.get(0)).toBe(id);
    const after = (await second.getEpisode(id))!;
    expect(after.status).toBe('complete');
    expect(turnsOf(after.turns).turns.map((t) => t.action)).toEqual(whole.turns.map((t) => t.action));
    expect(after.outcome).toEqual({ success: played.success, totalReward: expect.closeTo(played.totalReward, 6), turns: played.turns.length });
    expect((await second.listEpisodes()).items).toHaveLength(1);
    second.close();
  });
});
