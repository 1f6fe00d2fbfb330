import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { EpisodeRecorder } from '../../../src/rl/rollout/recorder.ts';
import { TrajectoryStore } from '../../../src/rl/store/index.ts';
import { createAgent, createEnv } from '../../../src/rl/envs/registry.ts';
import { playEpisode } from '../../../src/rl/rollout/rollout.ts';

describe('EpisodeRecorder', () => {
  it('stores a played guess episode turn by turn with its outcome', async () => {
    const store = await TrajectoryStore.open({ name: `recorder-${Math.random()}` });
    const spec = { family: 'guess' as const, split: 'test' as const, seed: 4 };
    const task = createEnv('guess').reset(spec);
    const rec = await EpisodeRecorder.begin(store, task, { policy: 'expert', adapter: null, critic: null }, { collaborative: true });
    const episode = await playEpisode(createAgent('expert', 'guess', { seed: 4 }), spec, { onEvent: (e) => (e.kind === 'turn' ? rec.turn(e.turn) : undefined) });
    await rec.flushed();
    const stored = await store.getEpisode(rec.episodeId);
    expect(stored?.status).toBe('complete');
    expect(stored?.turns.length).toBe(1 + 2 * episode.turns.length);
    expect(stored?.turns[0]).toMatchObject({ role: 'system', text: task.prompt });
    expect(stored?.turns[1]).toMatchObject({ role: 'agent', text: episode.turns[0].action, reward: episode.turns[0].reward });
    expect(stored?.turns[2]).toMatchObject({ role: 'collaborator', text: episode.turns[0].observation, backend: 'simulator' });
    expect(stored?.outcome).toEqual({ success: episode.success, totalReward: expect.closeTo(episode.totalReward, 6), turns: episode.turns.length });
    store.close();
  });
});
