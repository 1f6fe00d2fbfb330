// Upgrades from every earlier database version keep the data: a version-1 database (built with
// version 1's own migration, filled with version-1 rows) opened by the current code is listed,
// filtered, read and extended like a fresh one.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { DB_VERSION, MIGRATIONS, openStoreDb } from '../../../src/rl/store/db.ts';
import { taskKey } from '../../../src/rl/store/convert.ts';
import { agentTurn, freshName, openStore, task } from './helpers.ts';

/** An episode row as version 1 wrote it: no live, outcomeKey, imported or deletedAt. */
function v1Episode(id: string, runId: string, createdAt: number, outcome: { success: boolean; totalReward: number; turns: number } | null) {
  const t = task(createdAt % 7);
  return {
    id,
    runId,
    taskKey: taskKey(t),
    family: t.family,
    split: t.split,
    seed: t.seed,
    status: outcome ? 'complete' : 'in-progress',
    outcome,
    model: { policy: 'p', adapter: null, critic: null },
    sessionId: 'old-session',
    turnCount: 1,
    createdAt,
    updatedAt: createdAt,
    finishedAt: outcome ? createdAt + 1 : null,
    abortReason: null,
  };
}

async function buildV1(name: string): Promise<void> {
  const db = await openStoreDb(name, {}, 1);
  expect([...db.objectStoreNames].sort()).toEqual(['episodes', 'runs', 'tasks', 'turns']);
  const tx = db.transaction(['runs', 'tasks', 'episodes', 'turns'], 'readwrite');
  const raw = (n: string) => tx.objectStore(n as 'runs') as unknown as { put(v: unknown): Promise<unknown> };
  await raw('runs').put({
    id: 'run-1',
    name: 'old',
    createdAt: 1,
    models: { policy: 'p', critic: null },
    adapterId: null,
    algorithm: 'grpo',
    settings: {},
    seed: 1,
    notes: '',
  });
  const rows = [
    v1Episode('e1', 'run-1', 100, { success: true, totalReward: 1, turns: 1 }),
    v1Episode('e2', 'run-1', 200, { success: false, totalReward: 0, turns: 1 }),
    v1Episode('e3', '', 300, null),
  ];
  for (const r of rows) {
    await raw('episodes').put(r);
    const t = task(r.seed);
    await raw('tasks').put({ key: r.taskKey, family: t.family, split: t.split, seed: t.seed, hidden: t.hidden });
    await raw('turns').put({
      episodeId: r.id,
      index: 0,
      role: 'agent',
      text: `hello ${r.id}`,
      tokens: new Int32Array([1, 2]),
      logprobs: new Float32Array([-1, -2]),
      promptTokens: 5,
      completionTokens: 2,
      reward: 0,
      done: false,
      latencyMs: 1,
      backend: 'wasm',
      info: {},
      at: r.createdAt,
    });
  }
  await tx.done;
  db.close();
}

describe('migrations', () => {
  it('has one migration per version', () => {
    expect(MIGRATIONS).toHaveLength(DB_VERSION);
  });

  it('upgrades a version-1 database with its data to the current version', async () => {
    const name = freshName('v1');
    await buildV1(name);
    const store = await openStore(name);
    expect(store.interrupted).toEqual(['e3']); // its version-1 writer is long gone
    expect((await store.listEpisodes()).items.map((s) => s.id)).toEqual(['e3', 'e2', 'e1']);
    // Version 3's turn count is backfilled from the stored records (each holds one agent message).
    expect((await store.listEpisodes()).items.map((s) => s.agentTurns)).toEqual([1, 1, 1]);
    expect((await store.listEpisodes({ runId: 'run-1' })).items.map((s) => s.id)).toEqual(['e2', 'e1']);
    expect((await store.listEpisodes({ outcome: 'success' })).items.map((s) => s.id)).toEqual(['e1']);
    expect((await store.listEpisodes({ outcome: 'none' })).items.map((s) => s.id)).toEqual(['e3']);
    const e1 = (await store.getEpisode('e1'))!;
    expect(e1.turns[0]).toMatchObject({ text: 'hello e1', tokens: [1, 2], logprobs: [-1, -2] });
    expect(e1.task.hidden).toEqual(task(100 % 7).hidden);
    expect((await store.getRun('run-1'))!.name).toBe('old');
    // New stores work on upgraded data.
    await store.putCredit('e1', { estimator: 'mc', version: 'v', values: [1] });
    expect((await store.getEpisode('e1'))!.credit).toHaveLength(1);
    // Version 4's critic scores: none on upgraded episodes until written
    expect((await store.getEpisode('e2'))!.criticScores).toBeNull();
    const scores = {
      version: 'critic',
      values: [0.5, 0],
      tokenOffsets: [0, 2],
      tokens: [1, 2],
      tokenText: ['a', 'b'],
      tokenValues: [0.25, 0.5],
      criticLogprobs: [-1, -2],
      refLogprobs: [-1.5, -2],
    };
    await store.putCriticScores('e1', scores);
    expect((await store.getEpisode('e1'))!.criticScores).toMatchObject(scores);
    await store.resumeEpisode('e3');
    expect((await store.appendTurn('e3', agentTurn(1))).index).toBe(1);
    expect((await store.listEpisodes({ runId: null })).items[0]).toMatchObject({ id: 'e3', turnCount: 2, agentTurns: 2 });
    await store.deleteEpisodes(['e2']);
    expect(await store.countEpisodes({ runId: 'run-1' })).toBe(1);
    store.close();
  });
});
