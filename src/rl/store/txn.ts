// One helper for every write: run the body inside a single IndexedDB transaction and resolve only
// after the transaction's `complete` event (so the data is committed), or abort it on any failure so
// that no half-written record remains, mapping the cause to a StoreError (quota included).
import type { IDBPTransaction, StoreNames } from 'idb';
import type { StoreDb, StoreSchema } from './db.ts';
import { toStoreError } from './errors.ts';

export type Durability = 'strict' | 'relaxed' | 'default';
export type WriteTx<S extends StoreNames<StoreSchema>[]> = IDBPTransaction<StoreSchema, S, 'readwrite'>;

/**
 * Runs `body` in one readwrite transaction over `stores`; resolves with its result once committed.
 * The body must only await requests of this transaction (anything else lets it auto-commit early).
 */
export async function writeTx<const S extends StoreNames<StoreSchema>[], T>(
  db: StoreDb,
  stores: S,
  durability: Durability,
  body: (tx: WriteTx<S>) => Promise<T>,
): Promise<T> {
  let tx: WriteTx<S>;
  try {
    tx = db.transaction(stores, 'readwrite', { durability });
  } catch (e) {
    throw toStoreError(e);
  }
  try {
    const result = await body(tx);
    await tx.done;
    return result;
  } catch (e) {
    try {
      tx.abort();
    } catch {
      // Already aborted by the failed request, or finished.
    }
    await tx.done.catch(() => undefined);
    // A request that failed because the transaction aborted says AbortError; the cause is tx.error.
    const cause = (e as { name?: unknown } | null)?.name === 'AbortError' && tx.error ? tx.error : e;
    throw toStoreError(cause);
  }
}
