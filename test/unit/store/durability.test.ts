// Durability and multi-tab semantics under fake-indexeddb: a turn's promise resolves only after its
// transaction committed; a quota error leaves no half-written record; an upgrade in another tab closes
// this one with reload-required; two store instances on one database (two tabs) write concurrently
// and keep every count right.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { agentTurn, collaboratorTurn, freshName, model, openStore, task } from './helpers.ts';
import { DB_VERSION } from '../../../src/rl/store/db.ts';
import { QUOTA_MESSAGE, RELOAD_MESSAGE } from '../../../src/rl/store/errors.ts';
import type { StoreEvent } from '../../../src/rl/store/notify.ts';

interface PatchableStore {
  name: string;
  transaction: { _execRequestAsync(req: { operation: () => unknown; source: unknown }): IDBRequest };
  put(value: unknown, key?: IDBValidKey): IDBRequest;
}
const storeProto = globalThis.IDBObjectStore.prototype as unknown as PatchableStore;
const originalPut = storeProto.put;
const dbProto = globalThis.IDBDatabase.prototype;
const originalTransaction = dbProto.transaction;

afterEach(() => {
  storeProto.put = originalPut;
  dbProto.transaction = originalTransaction;
});

/** Makes the next put into `target` fail the way a full disk does: the request errors, the transaction aborts. */
function failNextPut(target: string, mode: 'async' | 'sync'): void {
  storeProto.put = function (this: PatchableStore, value: unknown, key?: IDBValidKey) {
    if (this.name !== target) return originalPut.call(this, value, key);
    storeProto.put = originalPut;
    const quota = new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    if (mode === 'sync') throw quota;
    // fake-indexeddb's request queue (internal): the operation throws when the request runs, as a real backend would.
    return this.transaction._execRequestAsync({
      operation: () => {
        throw quota;
      },
      source: this,
    });
  };
}

describe('durability', () => {
  it('resolves appendTurn only after its transaction fired complete', async () => {
    const store = await openStore();
    const ep = await store.beginEpisode({ task: task(1), model });
    const log: string[] = [];
    dbProto.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase['transaction']>) {
      const tx = originalTransaction.apply(this, args);
      if (tx.mode === 'readwrite') tx.addEventListener('complete', () => log.push('complete'));
      return tx;
    } as IDBDatabase['transaction'];
    for (let i = 0; i < 3; i++) {
      await store.appendTurn(ep.id, agentTurn(i));
      log.push('resolved');
    }
    expect(log).toEqual(['complete', 'resolved', 'complete', 'resolved', 'complete', 'resolved']);
    store.close();
  });

  for (const mode of ['async', 'sync'] as const) {
    it(`turns a quota error (${mode}) into StoreError('quota') with neither the turn nor the counters written`, async () => {
      const store = await openStore();
      const ep = await store.beginEpisode({ task: task(1), model });
      await store.appendTurn(ep.id, agentTurn(0));
      failNextPut('episodes', mode); // the turn's add succeeds, then the episode's counter update fails
      const err = await store.appendTurn(ep.id, collaboratorTurn(0)).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'StoreError', code: 'quota', message: QUOTA_MESSAGE });
      const after = (await store.getEpisode(ep.id))!;
      expect(after.turns).toHaveLength(1);
      expect((await store.listEpisodes()).items[0].turnCount).toBe(1);
      // The store stays usable: the next write lands at the right index.
      expect((await store.appendTurn(ep.id, collaboratorTurn(0))).index).toBe(1);
      store.close();
    });
  }

  it('commits a turn (agent, reply, outcome) in one transaction: a failure keeps none of it', async () => {
    const store = await openStore();
    const ep = await store.beginEpisode({ task: task(1), model, records: [{ role: 'system', text: 'prompt', backend: 'env' }] });
    expect(ep.turnCount).toBe(1);
    expect((await store.commitTurn(ep.id, [agentTurn(0), collaboratorTurn(0)])).first).toBe(1);
    failNextPut('episodes', 'async'); // both records are added, then the counter/outcome update fails
    const outcome = { success: true, totalReward: 1, turns: 2 };
    await expect(store.commitTurn(ep.id, [agentTurn(1, true), collaboratorTurn(1)], outcome)).rejects.toMatchObject({ code: 'quota' });
    let after = (await store.getEpisode(ep.id))!;
    expect(after.turns.map((t) => t.role)).toEqual(['system', 'agent', 'collaborator']);
    expect(after.status).toBe('in-progress');
    expect(after.outcome).toBeNull();
    await store.commitTurn(ep.id, [agentTurn(1, true), collaboratorTurn(1)], outcome);
    after = (await store.getEpisode(ep.id))!;
    expect(after.turns).toHaveLength(5);
    expect(after.status).toBe('complete');
    expect(after.outcome).toEqual(outcome);
    store.close();
  });
});

describe('several tabs', () => {
  it('closes with reload-required when another tab opens a newer schema', async () => {
    const name = freshName();
    const store = await openStore(name);
    const events: StoreEvent[] = [];
    store.subscribe((e) => events.push(e));
    await new Promise<void>((resolve, reject) => {
      const req = indexedDB.open(name, DB_VERSION + 1);
      req.onsuccess = () => {
        req.result.close();
        resolve();
      };
      req.onerror = () => reject(req.error);
    });
    expect(events).toEqual([{ type: 'reload-required', origin: 'local', message: RELOAD_MESSAGE }]);
    expect(store.closed).toBe(true);
    await expect(store.listEpisodes()).rejects.toMatchObject({ code: 'closed', message: RELOAD_MESSAGE });
    // A page with the old code cannot open the newer database either: same message.
    await expect(openStore(name)).rejects.toMatchObject({ code: 'closed', message: RELOAD_MESSAGE });
  });

  it('keeps counts right when two instances write concurrently', async () => {
    const name = freshName();
    const tabs = [await openStore(name, { newId: () => `a-${crypto.randomUUID()}` }), await openStore(name, { newId: () => `b-${crypto.randomUUID()}` })];
    const perTab = 10;
    const turnsPer = 5;
    const ids = await Promise.all(
      tabs.map(async (store, t) =>
        Promise.all(
          Array.from({ length: perTab }, async (_, k) => {
            const ep = await store.beginEpisode({ task: task(t * 100 + k), model });
            for (let i = 0; i < turnsPer; i++) await store.appendTurn(ep.id, i % 2 ? collaboratorTurn(i) : agentTurn(i));
            await store.finishEpisode(ep.id, { success: k % 2 === 0, totalReward: 1, turns: 3 });
            return ep.id;
          }),
        ),
      ),
    );
    for (const store of tabs) {
      expect(await store.countEpisodes()).toBe(2 * perTab);
      expect(await store.countEpisodes({ outcome: 'success' })).toBe(perTab);
    }
    for (const id of ids.flat()) {
      const ep = (await tabs[0].getEpisode(id))!;
      expect(ep.turns.map((t) => t.role)).toEqual(['agent', 'collaborator', 'agent', 'collaborator', 'agent']);
      expect(ep.turns.map((t) => t.promptTokens)).toEqual([40, 0, 42, 0, 44]);
    }
    tabs.forEach((s) => s.close());
  });
});
