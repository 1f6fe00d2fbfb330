import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { EpisodeRecorder } from '../../../src/rl/rollout/recorder.ts';
import { TrajectoryStore } from '../../../src/rl/store/index.ts';
import { QUOTA_MESSAGE, StoreError } from '../../../src/rl/store/errors.ts';
import { createAgent, createEnv } from '../../../src/rl/envs/registry.ts';
import { playEpisode } from '../../../src/rl/rollout/rollout.ts';

interface Writable {
  add(value: unknown, key?: IDBValidKey): IDBRequest;
  put(value: unknown, key?: IDBValidKey): IDBRequest;
}
const storeProto = globalThis.IDBObjectStore.prototype as unknown as Writable;
const { add, put } = storeProto;
afterEach(() => {
  storeProto.add = add;
  storeProto.put = put;
});

/** From the `after`-th record write on, every write throws, as in a tab killed mid-transaction: the transaction aborts. */
function crashAfter(after: number): void {
  let n = 0;
  const dying = <F extends (this: Writable, value: unknown, key?: IDBValidKey) => IDBRequest>(original: F) =>
    function (this: Writable, value: unknown, key?: IDBValidKey): IDBRequest {
      if (n++ >= after) throw new DOMException('the tab was killed', 'UnknownError');
      return original.call(this, value, key);
    };
  storeProto.add = dying(add);
  storeProto.put = dying(put);
}

describe('EpisodeRecorder', () => {
  it('leaves only whole turns, whatever write a kill lands on (issue 22 point 1)', async () => {
    const spec = { family: 'guess' as const, split: 'test' as const, seed: 4 };
    const task = createEnv('guess').reset(spec);
    const played = await playEpisode(createAgent('expert', 'guess', { seed: 4 }), spec);
    // one write per record or row: beginning the episode, then each turn, plus a margin past the end
    const writes = 3 + 3 * played.turns.length;
    for (let after = 0; after <= writes + 2; after++) {
      const name = `kill-${after}-${Math.random()}`;
      const store = await TrajectoryStore.open({ name });
      crashAfter(after);
      let id: string | null = null;
      try {
        const rec = await EpisodeRecorder.begin(store, task, { policy: 'expert', adapter: null, critic: null }, { collaborative: true });
        id = rec.episodeId;
        await playEpisode(createAgent('expert', 'guess', { seed: 4 }), spec, { onEvent: (e) => (e.kind === 'turn' ? rec.turn(e.turn) : undefined) });
      } catch {
        // the kill: the episode stops where its writes began to fail
      }
      storeProto.add = add;
      storeProto.put = put;
      store.close();
      const reopened = await TrajectoryStore.open({ name });
      const page = await reopened.listEpisodes();
      expect(page.items.length, `kill after ${after} writes`).toBe(id === null ? 0 : 1);
      for (const summary of page.items) {
        const ep = (await reopened.getEpisode(summary.id))!;
        const roles = ep.turns.map((t) => t.role);
        expect(roles[0], `kill after ${after} writes`).toBe('system');
        // system, then (agent, reply) pairs: never an agent message without its reply
        expect(roles.slice(1), `kill after ${after} writes`).toEqual(roles.slice(1).map((_, i) => (i % 2 ? 'collaborator' : 'agent')));
        expect(roles.length % 2, `kill after ${after} writes`).toBe(1);
        const turns = (roles.length - 1) / 2;
        if (ep.status === 'complete') expect(ep.outcome).toMatchObject({ success: played.success, turns });
        else {
          expect(ep.status).toBe('interrupted');
          expect(ep.turns.at(-1)?.done ?? false).toBe(false);
        }
        if (after >= writes) expect(ep.status).toBe('complete');
      }
      reopened.close();
    }
  });

  it('stores a played guess episode turn by turn with its outcome', async () => {
    const store = await TrajectoryStore.open({ name: `recorder-${Math.random()}` });
    const spec = { family: 'guess' as const, split: 'test' as const, seed: 4 };
    const task = createEnv('guess').reset(spec);
    const rec = await EpisodeRecorder.begin(store, task, { policy: 'expert', adapter: null, critic: null }, { collaborative: true });
    const episode = await playEpisode(createAgent('expert', 'guess', { seed: 4 }), spec, {
      onEvent: (e) => (e.kind === 'turn' ? rec.turn(e.turn) : undefined),
    });
    await rec.flush();
    const stored = await store.getEpisode(rec.episodeId);
    expect(stored?.status).toBe('complete');
    expect(stored?.turns.length).toBe(1 + 2 * episode.turns.length);
    expect(stored?.turns[0]).toMatchObject({ role: 'system', text: task.prompt });
    expect(stored?.turns[1]).toMatchObject({ role: 'agent', text: episode.turns[0].action, reward: episode.turns[0].reward });
    expect(stored?.turns[2]).toMatchObject({ role: 'collaborator', text: episode.turns[0].observation, backend: 'simulator' });
    expect(stored?.outcome).toEqual({ success: episode.success, totalReward: expect.closeTo(episode.totalReward, 6), turns: episode.turns.length });
    store.close();
  });

  it('keeps the turns a full store refuses and writes them, in order, once it takes writes again (issue 22 point 7)', async () => {
    const store = await TrajectoryStore.open({ name: `quota-${Math.random()}` });
    let full = false;
    const writer = {
      beginEpisode: store.beginEpisode.bind(store),
      abortEpisode: store.abortEpisode.bind(store),
      commitTurn: (...args: Parameters<TrajectoryStore['commitTurn']>) =>
        full ? Promise.reject(new StoreError('quota', QUOTA_MESSAGE)) : store.commitTurn(...args),
    };
    const spec = { family: 'guess' as const, split: 'test' as const, seed: 4 };
    const task = createEnv('guess').reset(spec);
    const episode = await playEpisode(createAgent('expert', 'guess', { seed: 4 }), spec);
    expect(episode.turns.length).toBeGreaterThanOrEqual(3);
    const rec = await EpisodeRecorder.begin(writer, task, { policy: 'expert', adapter: null, critic: null }, { collaborative: true });
    await rec.turn(episode.turns[0]);
    full = true;
    await expect(rec.turn(episode.turns[1])).rejects.toThrow(/Storage is full/);
    await expect(rec.turn(episode.turns[2])).rejects.toThrow(/Storage is full/);
    expect(rec.unsaved).toBe(2);
    expect((await store.getEpisode(rec.episodeId))?.turns.length).toBe(3); // system + the first turn only
    full = false;
    for (const t of episode.turns.slice(3)) await rec.turn(t); // the next turn writes the backlog first
    await rec.flush();
    expect(rec.unsaved).toBe(0);
    const stored = (await store.getEpisode(rec.episodeId))!;
    expect(stored.status).toBe('complete');
    expect(stored.turns.filter((t) => t.role === 'agent').map((t) => t.text)).toEqual(episode.turns.map((t) => t.action));
    expect(stored.outcome).toEqual({ success: episode.success, totalReward: expect.closeTo(episode.totalReward, 6), turns: episode.turns.length });
    store.close();
  });
});
