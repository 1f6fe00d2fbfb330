// Named errors of the trajectory store. They cross comlink as plain Errors, so callers branch on
// `name === 'StoreError'` and `code`, never on instanceof (docs/style.md 4).
import { CodedError } from '../util/errors.ts';

export type StoreErrorCode =
  /** The browser refused the write (QuotaExceededError); nothing of that write was saved. */
  | 'quota'
  /** The database was closed, e.g. because another tab upgraded the schema: reload the page. */
  | 'closed'
  /** Opening waits for another tab that holds an older schema version open. */
  | 'blocked'
  /** No such episode, run or adapter. */
  | 'not-found'
  /** The operation does not fit the record's state (e.g. a turn appended to a finished episode). */
  | 'state'
  /** An imported record's id is already in the store (with onConflict: 'error'). */
  | 'conflict'
  /** The argument is malformed (e.g. a turn's tokens and log-probs differ in length). */
  | 'invalid'
  /** Anything else IndexedDB reported; the message carries its name. */
  | 'failed';

export class StoreError extends CodedError<StoreErrorCode> {
  override name = 'StoreError';
}

export const QUOTA_MESSAGE =
  'Storage is full: the browser refused to save more (quota exceeded). Nothing from this write was saved; ' +
  'export and delete old episodes, or allow more storage, then continue.';

export const RELOAD_MESSAGE = 'The lab was upgraded in another tab: reload this page to continue.';

/** True for the error a browser raises when an IndexedDB write exceeds the origin's quota. */
export function isQuotaError(e: unknown): boolean {
  const err = e as { name?: unknown; code?: unknown } | null;
  return !!err && (err.name === 'QuotaExceededError' || err.code === 22);
}

/** Turns whatever IndexedDB threw into a StoreError (StoreErrors pass through). */
export function toStoreError(e: unknown): StoreError {
  if (e instanceof StoreError) return e;
  if ((e as { name?: unknown } | null)?.name === 'StoreError') return e as StoreError;
  if (isQuotaError(e)) return new StoreError('quota', QUOTA_MESSAGE);
  const err = e as { name?: string; message?: string } | null;
  if (err?.name === 'InvalidStateError' && /clos/i.test(err.message ?? '')) return new StoreError('closed', RELOAD_MESSAGE);
  // The database on disk is newer than this page's code (another tab upgraded it).
  if (err?.name === 'VersionError') return new StoreError('closed', RELOAD_MESSAGE);
  return new StoreError('failed', `IndexedDB ${err?.name ?? 'error'}: ${err?.message ?? String(e)}`);
}
