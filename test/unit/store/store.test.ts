// TrajectoryStore under fake-indexeddb: episode lifecycle, listing and paging by every index,
// interrupted-episode recovery, delete with undo (by ids or by filter), credit/adapters/metrics, change notifications.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { agentTurn, collaboratorTurn, freshName, model, openStore, task, writeEpisode } from './helpers.ts';
import type { StoreEvent } from '../../../src/rl/store/notify.ts';

describe('TrajectoryStore episodes', () => {
  it('writes an episode turn by turn and reads it back whole', async () => {
    const store = await openStore();
    const run = await store.createRun({ name: 'r', models: { policy: 'p', critic: null }, algorithm: 'grpo', seed: 7 });
    const id = await writeEpisode(store, { runId: run.id, pairs: 2 });
    const ep = (await store.getEpisode(id))!;
    expect(ep.status).toBe('complete');
    expect(ep.runId).toBe(run.id);
    expect(ep.task).toEqual(task(1));
    expect(ep.turns.map((t) => t.role)).toEqual(['system', 'agent', 'collaborator', 'agent', 'collaborator', 'agent']);
    expect(ep.turns[1].tokens).toEqual([3, 14, 15]);
    expect(ep.turns[1].logprobs).toEqual([-0.5, -1.25, Math.fround(-0.1)]);
    expect(ep.turns[5]).toMatchObject({ reward: 1, done: true, promptTokens: 42, backend: 'wasm' });
    expect(ep.turns[2]).toMatchObject({ tokens: null, logprobs: null, reward: 0, done: false, info: {} });
    expect(ep.outcome).toEqual({ success: true, totalReward: 1, turns: 3 });
    expect(ep.finishedAt).toBeGreaterThan(ep.createdAt);
    // The list counts turns as the lab does (an agent message and its reply are one), not message records.
    const listed = (await store.listEpisodes()).items[0];
    expect(listed).toMatchObject({ turnCount: 6, agentTurns: 3 });
    // A turn written whole (commitTurn) and an episode opened with its prompt count the same way.
    const b = await store.beginEpisode({ runId: null, task: task(2), model, records: [{ role: 'system', text: 'P', backend: 'env' }] });
    expect(b).toMatchObject({ turnCount: 1, agentTurns: 0 });
    await store.commitTurn(b.id, [agentTurn(0), collaboratorTurn(0)]);
    expect((await store.listEpisodes()).items[0]).toMatchObject({ id: b.id, turnCount: 3, agentTurns: 1 });
    store.close();
  });

  it('refuses turns on finished or unknown episodes and mismatched token/log-prob lengths', async () => {
    const store = await openStore();
    const id = await writeEpisode(store);
    await expect(store.appendTurn(id, collaboratorTurn(0))).rejects.toMatchObject({ name: 'StoreError', code: 'state' });
    await expect(store.appendTurn('nope', collaboratorTurn(0))).rejects.toMatchObject({ code: 'not-found' });
    const ep = await store.beginEpisode({ task: task(2), model });
    await expect(store.appendTurn(ep.id, { role: 'agent', text: 'x', tokens: [1, 2], logprobs: [-1] })).rejects.toThrow('turn has 2 tokens but 1 log-probs');
    expect((await store.getEpisode(ep.id))!.turns).toHaveLength(0);
    store.close();
  });

  it('lists by run, family, split, outcome and date, newest first, in pages that chain exactly', async () => {
    const store = await openStore();
    const a = await store.createRun({ name: 'a', models: { policy: 'p', critic: null }, algorithm: 'grpo', seed: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push(await writeEpisode(store, { seed: i, runId: i % 3 === 0 ? a.id : null, family: i % 2 ? 'guess' : 'bandit', success: i % 4 !== 1, pairs: 0 }));
    }
    const all: string[] = [];
    let after = null;
    do {
      const page: Awaited<ReturnType<typeof store.listEpisodes>> = await store.listEpisodes({}, { limit: 5, after });
      expect(page.items.length).toBeLessThanOrEqual(5);
      all.push(...page.items.map((s) => s.id));
      after = page.next;
    } while (after);
    expect(all).toEqual(ids.slice().reverse());
    expect((await store.listEpisodes({ runId: a.id }, { limit: 100 })).items.map((s) => s.id)).toEqual([ids[9], ids[6], ids[3], ids[0]]);
    expect((await store.listEpisodes({ runId: null }, { limit: 100 })).items).toHaveLength(8);
    expect(await store.countEpisodes({ family: 'guess' })).toBe(6);
    expect(await store.countEpisodes({ outcome: 'failure' })).toBe(3);
    expect(await store.countEpisodes({ family: 'guess', outcome: 'failure' })).toBe(3);
    expect(await store.countEpisodes({ split: 'test' })).toBe(0);
    const oldest = await store.listEpisodes({ family: 'bandit' }, { limit: 2, order: 'oldest' });
    expect(oldest.items.map((s) => s.id)).toEqual([ids[0], ids[2]]);
    const rest = await store.listEpisodes({ family: 'bandit' }, { limit: 10, order: 'oldest', after: oldest.next });
    expect(rest.items.map((s) => s.id)).toEqual([ids[4], ids[6], ids[8], ids[10]]);
    expect(rest.next).toBeNull();
    const created = (await store.getEpisode(ids[5]))!.createdAt;
    expect((await store.listEpisodes({ from: created, to: created + 1 })).items.map((s) => s.id)).toEqual([ids[5]]);
    store.close();
  });

  it('marks the in-progress episodes of a closed session interrupted on reopen; resume and discard work', async () => {
    const name = freshName();
    const first = await openStore(name);
    const ep = await first.beginEpisode({ task: task(3), model });
    await first.appendTurn(ep.id, { role: 'system', text: 'prompt' });
    await first.appendTurn(ep.id, agentTurn(0));
    const other = await first.beginEpisode({ task: task(4), model });
    // a training run's rollout cannot be continued: it comes back closed, not interrupted
    const run = await first.createRun({ name: 'r', models: { policy: 'p', critic: null }, algorithm: 'grpo', seed: 1 });
    const rollout = await first.beginEpisode({ runId: run.id, task: task(5), model });
    first.close(); // the tab goes away mid-episode

    const second = await openStore(name, { newId: () => `s2-${Math.random()}` });
    expect(second.interrupted.sort()).toEqual([ep.id, other.id].sort());
    expect(await second.countEpisodes({ status: 'interrupted' })).toBe(2);
    expect(await second.getEpisode(rollout.id)).toMatchObject({ status: 'aborted', abortReason: 'its run ended when the lab closed' });
    await expect(second.appendTurn(ep.id, collaboratorTurn(0))).rejects.toMatchObject({ code: 'state' });
    const resumed = await second.resumeEpisode(ep.id);
    expect(resumed.turns).toHaveLength(2);
    expect((await second.appendTurn(ep.id, collaboratorTurn(0))).index).toBe(2);
    const discarded = await second.abortEpisode(other.id, 'discarded');
    expect(discarded).toMatchObject({ status: 'aborted', abortReason: 'discarded' });
    second.close();
  });

  it('does not mark episodes of a live session (another tab) interrupted', async () => {
    const name = freshName();
    const tabA = await openStore(name);
    const ep = await tabA.beginEpisode({ task: task(5), model });
    const tabB = await openStore(name, { newId: () => `b-${Math.random()}` });
    expect(tabB.interrupted).toEqual([]);
    await tabA.appendTurn(ep.id, agentTurn(0));
    await expect(tabB.appendTurn(ep.id, agentTurn(1))).rejects.toThrow('being written by another session');
    tabA.close();
    tabB.close();
  });

  it('deletes softly with undo, then purges turns, credit and critic scores for good', async () => {
    const store = await openStore();
    const keep = await writeEpisode(store, { seed: 1 });
    const gone = await writeEpisode(store, { seed: 2 });
    await store.putCredit(gone, { estimator: 'mc', version: 'v', values: [0, 1, 0, 1, 0, 1] });
    const T = (await store.getEpisode(gone))!.turns.filter((t) => t.role === 'agent').length;
    const n = (x: number) => new Array<number>(T).fill(x);
    await store.putCriticScores(gone, {
      version: 'critic',
      values: [...n(0.5), 0],
      tokenOffsets: [0, ...n(1).map((_, i) => i + 1)],
      tokens: n(3),
      tokenText: n(3).map(() => 'x'),
      tokenValues: null,
      criticLogprobs: n(-1),
      refLogprobs: n(-1),
    });
    const record = { ...(await store.getEpisode(gone))!, criticScores: null };
    const token = await store.deleteEpisodes([gone, 'missing']);
    expect(token.ids).toEqual([gone]);
    expect((await store.listEpisodes()).items.map((s) => s.id)).toEqual([keep]);
    expect((await store.listDeleted()).items.map((s) => s.id)).toEqual([gone]);
    expect(await store.restoreEpisodes(token)).toBe(1);
    expect(await store.countEpisodes()).toBe(2);
    await store.deleteEpisodes([gone]);
    expect(await store.purgeDeleted()).toBe(1);
    expect(await store.getEpisode(gone)).toBeNull();
    expect(await store.countEpisodes()).toBe(1);
    expect((await store.getEpisode(keep))!.turns).toHaveLength(6);
    // the same id imported again without scores has none left over from the purged one
    await store.importRecords([record], { source: 'again' });
    expect((await store.getEpisode(gone))!.criticScores).toBeNull();
    store.close();
  });

  it("lists and counts any of several runs, and deletes one run's episodes by filter with undo (the Data view's bulk action)", async () => {
    const store = await openStore();
    const runs = await Promise.all(['a', 'b', 'c'].map((name) => store.createRun({ name, models: { policy: 'p', critic: null }, algorithm: 'grpo', seed: 1 })));
    const ids: Record<string, string[]> = { a: [], b: [], c: [], none: [] };
    for (let i = 0; i < 20; i++) {
      const key = i < 9 ? 'a' : i < 14 ? 'b' : i < 17 ? 'c' : 'none';
      const run = runs.find((r) => r.name === key);
      ids[key].push(await writeEpisode(store, { seed: i, runId: run?.id ?? null, family: i % 2 ? 'guess' : 'bandit', pairs: 0 }));
    }
    const [a, b, c] = runs.map((r) => r.id);
    expect(await store.countEpisodes({ runIds: [a, b] })).toBe(14);
    expect(await store.countEpisodes({ runIds: [a, c], family: 'guess' })).toBe(5); // odd seeds: a 1, 3, 5, 7; c 15
    expect(await store.countEpisodes({ runIds: [] })).toBe(0);
    expect((await store.listEpisodes({ runIds: [] })).items).toEqual([]);
    const page = await store.listEpisodes({ runIds: [b, c] }, { limit: 5 });
    expect(page.items.map((s) => s.id)).toEqual([...ids.b, ...ids.c].reverse().slice(0, 5));
    expect((await store.listEpisodes({ runIds: [b, c] }, { limit: 5, after: page.next })).items.map((s) => s.id)).toEqual([...ids.b].reverse().slice(2));

    const token = await store.deleteEpisodes({ runId: a });
    expect(token.ids.sort()).toEqual([...ids.a].sort());
    expect(await store.countEpisodes()).toBe(11);
    expect(await store.countEpisodes({ runId: a })).toBe(0);
    expect(await store.countEpisodes({ runId: b })).toBe(5);
    expect((await store.listDeleted({ limit: 100 })).items).toHaveLength(9);
    expect(await store.restoreEpisodes(token)).toBe(9);
    expect(await store.countEpisodes({ runId: a })).toBe(9);
    store.close();
  });

  it('stores credit per estimator and version, padded with null to the turn count', async () => {
    const store = await openStore();
    const ep = await store.beginEpisode({ task: task(1), model });
    await store.appendTurn(ep.id, agentTurn(0));
    await store.putCredit(ep.id, { estimator: 'mc', version: 'critic-1', values: [0.5] });
    await store.appendTurn(ep.id, collaboratorTurn(0));
    await store.putCredit(ep.id, { estimator: 'gae', version: 'critic-1', params: { gamma: 0.99, lambda: 0.95 }, values: [0.25, NaN] });
    await store.putCredit(ep.id, { estimator: 'mc', version: 'critic-1', values: [0.75, 0] });
    await expect(store.putCredit(ep.id, { estimator: 'mc', version: 'x', values: [1, 2, 3] })).rejects.toMatchObject({ code: 'invalid' });
    const credit = (await store.getEpisode(ep.id))!.credit;
    expect(credit.map((c) => [c.estimator, c.values])).toEqual([
      ['gae', [0.25, null]],
      ['mc', [0.75, 0]],
    ]);
    expect(credit[0].params).toEqual({ gamma: 0.99, lambda: 0.95 });
    store.close();
  });

  it('keeps adapters as typed arrays and metrics per iteration', async () => {
    const store = await openStore();
    const a = new Float32Array([1.5, -2, 0.25, 8]);
    await store.putAdapter({
      id: 'ad-1',
      target: 'policy',
      baseModel: 'policy-v1',
      config: { r: 2, alpha: 4 },
      parentId: null,
      tensors: { 'layers.0.q.lora_A': { dims: [2, 2], data: a } },
    });
    const got = (await store.getAdapter('ad-1'))!;
    expect(got.tensors['layers.0.q.lora_A'].data).toBeInstanceOf(Float32Array);
    expect(Array.from(got.tensors['layers.0.q.lora_A'].data)).toEqual([1.5, -2, 0.25, 8]);
    expect(await store.getAdapter('none')).toBeNull();
    await store.putMetrics('run-1', 2, { loss: 0.5 });
    await store.putMetrics('run-1', 1, { loss: 0.75 });
    await store.putMetrics('run-2', 1, { loss: 9 });
    expect((await store.listMetrics('run-1')).map((m) => [m.iteration, m.values.loss])).toEqual([
      [1, 0.75],
      [2, 0.5],
    ]);
    store.close();
  });

  it('tells its own listeners (local) and other instances on the same database (remote)', async () => {
    const name = freshName();
    const a = await openStore(name);
    const b = await openStore(name, { newId: () => `b-${Math.random()}` });
    const seenA: StoreEvent[] = [];
    const seenB: StoreEvent[] = [];
    a.subscribe((e) => seenA.push(e));
    b.subscribe((e) => seenB.push(e));
    const ep = await a.beginEpisode({ task: task(1), model });
    await a.appendTurn(ep.id, agentTurn(0));
    await new Promise((r) => setTimeout(r, 50));
    expect(seenA.map((e) => `${e.type}/${e.origin}`)).toEqual(['episode/local', 'turn/local']);
    expect(seenB).toEqual([
      { type: 'episode', id: ep.id, status: 'in-progress', origin: 'remote' },
      { type: 'turn', episodeId: ep.id, index: 0, origin: 'remote' },
    ]);
    a.close();
    b.close();
  });
});
