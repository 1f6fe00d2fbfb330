// Delete with undo, as functions over an open transaction: a delete only hides episodes (live = 0,
// stamped with when); a restore brings back exactly that deletion (its stamp), so an undo never
// revives a later one; a purge removes for good what was deleted long enough ago, with its turns,
// credit and critic scores. store.ts runs each in one write and tells the other tabs.
import { creditOf, messageRange } from './db.ts';
import { matches, scanOf, type EpisodeFilter } from './queries.ts';
import type { WriteTx } from './txn.ts';

type PurgeStores = ['episodes', 'turns', 'credit', 'scores'];

/** Hides the live episodes among `ids`, stamped `deletedAt`; returns the ids it hid (missing or already deleted ones are left out). */
export async function softDeleteTx(tx: WriteTx<['episodes']>, ids: readonly string[], deletedAt: number): Promise<string[]> {
  const hit: string[] = [];
  for (const id of ids) {
    const ep = await tx.store.get(id);
    if (!ep || ep.live === 0) continue;
    await tx.store.put({ ...ep, live: 0, deletedAt });
    hit.push(id);
  }
  return hit;
}

/**
 * Hides every live episode matching `filter` (e.g. one run's rollouts: thousands, issue 49), walking
 * only the filter's index range; returns the ids it hid, stamped `deletedAt` as softDeleteTx does.
 */
export async function softDeleteMatchingTx(tx: WriteTx<['episodes']>, filter: EpisodeFilter, deletedAt: number): Promise<string[]> {
  const hit: string[] = [];
  if (filter.runIds?.length === 0) return hit;
  const { index, range } = scanOf(filter, 1);
  // An updated row's key moves to the live = 0 part of the index, outside the range being walked.
  let cursor = await tx.store.index(index).openCursor(range as IDBKeyRange);
  while (cursor) {
    if (matches(cursor.value, filter)) {
      await cursor.update({ ...cursor.value, live: 0, deletedAt });
      hit.push(cursor.value.id);
    }
    cursor = await cursor.continue();
  }
  return hit;
}

/** Brings back the episodes among `ids` still hidden by the deletion stamped `deletedAt`; returns their ids. */
export async function restoreTx(tx: WriteTx<['episodes']>, ids: readonly string[], deletedAt: number): Promise<string[]> {
  const hit: string[] = [];
  for (const id of ids) {
    const ep = await tx.store.get(id);
    if (!ep || ep.live === 1 || ep.deletedAt !== deletedAt) continue;
    await tx.store.put({ ...ep, live: 1, deletedAt: null });
    hit.push(id);
  }
  return hit;
}

/** Deletes for good the soft-deleted episodes (with turns, credit and critic scores) deleted at or before `cutoff`. */
export async function purgeTx(tx: WriteTx<PurgeStores>, cutoff: number): Promise<number> {
  let count = 0;
  let cursor = await tx
    .objectStore('episodes')
    .index('byDate')
    .openCursor(IDBKeyRange.bound([0, -Infinity, ''], [0, Infinity, '']));
  while (cursor) {
    const ep = cursor.value;
    if (ep.deletedAt !== null && ep.deletedAt <= cutoff) {
      await tx.objectStore('turns').delete(messageRange(ep.id));
      await tx.objectStore('credit').delete(creditOf(ep.id));
      await tx.objectStore('scores').delete(ep.id);
      await cursor.delete();
      count++;
    }
    cursor = await cursor.continue();
  }
  return count;
}
