// The body of the store's bulk write — an import (many records, one transaction) — as a function over
// an open transaction, so store.ts stays about the API (delete, undo and purge are in trash.ts).
import { creditOf, messageRange } from './db.ts';
import { StoreError } from './errors.ts';
import { episodeFromRecord, runFromRecord } from './convert.ts';
import type { WriteTx } from './txn.ts';
import type { ImportOptions, ImportResult } from './api.ts';
import type { PortableRecord } from './schema.ts';

type ImportStores = ['runs', 'tasks', 'episodes', 'turns', 'credit', 'scores'];

/**
 * Writes validated records; an id already stored is skipped, replaced, or fails the whole transaction.
 * An episode deleted and not yet purged (pending undo) is no longer the person's: re-importing it
 * replaces it whatever `onConflict` says, instead of "skipping" it into staying deleted.
 */
export async function importTx(
  tx: WriteTx<ImportStores>,
  records: readonly PortableRecord[],
  onConflict: NonNullable<ImportOptions['onConflict']>,
  imported: { source: string; at: number },
): Promise<ImportResult> {
  const result: ImportResult = { runs: 0, episodes: 0, turns: 0, skipped: 0 };
  for (const rec of records) {
    const stored = rec.type === 'run' ? await tx.objectStore('runs').getKey(rec.id) : (await tx.objectStore('episodes').get(rec.id))?.live;
    const existing = stored === 0 ? undefined : stored;
    if (existing !== undefined) {
      if (onConflict === 'error') throw new StoreError('conflict', `${rec.type} ${rec.id} is already in the store; nothing was imported`);
      if (onConflict === 'skip') {
        result.skipped++;
        continue;
      }
    }
    if (rec.type === 'run') {
      await tx.objectStore('runs').put(runFromRecord(rec));
      result.runs++;
      continue;
    }
    const { row, task, turns, credit, scores } = episodeFromRecord(rec, imported);
    if (stored !== undefined) {
      await tx.objectStore('turns').delete(messageRange(rec.id));
      await tx.objectStore('credit').delete(creditOf(rec.id));
      await tx.objectStore('scores').delete(rec.id);
    }
    await tx.objectStore('tasks').put(task);
    await tx.objectStore('episodes').put(row);
    for (const t of turns) await tx.objectStore('turns').put(t);
    for (const c of credit) await tx.objectStore('credit').put(c);
    if (scores) await tx.objectStore('scores').put(scores);
    result.episodes++;
    result.turns += turns.length;
  }
  return result;
}
