// The argument and result types of TrajectoryStore's methods (store.ts), kept apart so that callers
// in workers and UI state classes can import them without the store's implementation.
import type { Durability } from './txn.ts';
import type { AdapterRow } from './db.ts';
import type { JsonObject, ModelRef, TaskRecord, MessageRecord } from './schema.ts';

/** How a store opens. */
export interface StoreOptions {
  /** IndexedDB database name (default "turnwise"). */
  name?: string;
  /** Commit durability of turn writes: 'strict' survives an OS crash, 'relaxed' only a tab crash (default 'strict'). */
  durability?: Durability;
  /** New ids (default crypto.randomUUID). */
  newId?: () => string;
  /** Clock in ms since the epoch (default Date.now). */
  now?: () => number;
  /** Called if opening waits for an older tab to let go of the database. */
  onBlocked?: () => void;
}

export interface RunInput {
  id?: string;
  name: string;
  models: { policy: string; critic: string | null };
  adapterId?: string | null;
  algorithm: string;
  settings?: JsonObject;
  seed: number;
  notes?: string;
}

export interface BeginEpisodeInput {
  id?: string;
  runId?: string | null;
  /** The task suite's TaskSpec (options completed) plus the hidden information reset returned. */
  task: Omit<TaskRecord, 'options'> & { options?: JsonObject };
  model: ModelRef;
  /** The episode's opening message records (the task's prompt), written with it in one transaction. */
  records?: MessageInput[];
}

/**
 * A message record as appendTurn and commitTurn take it (the recorder commits turn.ts messagesOf's two per turn):
 * role and text, the rest optional — omitted numbers default to 0, backend to '', info to {} — and
 * the store stamps `at`.
 */
export type MessageInput = Pick<MessageRecord, 'role' | 'text'> &
  Partial<Omit<MessageRecord, 'role' | 'text' | 'at' | 'tokens' | 'logprobs'>> & {
    tokens?: ArrayLike<number> | null;
    logprobs?: ArrayLike<number> | null;
  };

/** Credit of one estimator for an episode's turns so far; NaN (or a shorter array) where none yet. */
export interface CreditInput {
  estimator: string;
  version: string;
  params?: JsonObject;
  values: ArrayLike<number>;
}

/** Undo handle of a delete. */
export interface RestoreToken {
  ids: string[];
  deletedAt: number;
}

export interface ImportOptions {
  /** Shown in the episode list, e.g. the file name. */
  source: string;
  /** An id already in the store: keep the stored one ('skip', default), overwrite it, or fail the whole import. */
  onConflict?: 'skip' | 'replace' | 'error';
}

export interface ImportResult {
  runs: number;
  episodes: number;
  turns: number;
  skipped: number;
}

export type AdapterInput = Omit<AdapterRow, 'createdAt' | 'runId'> & { createdAt?: number; runId?: string | null };

/** The store's adapter table, what training checkpoints (algos/checkpoint.ts) read and write; TrajectoryStore implements it. */
export interface AdapterTable {
  putAdapter(adapter: AdapterInput): Promise<void>;
  getAdapter(id: string): Promise<AdapterRow | null>;
}

/** An adapter row without its tensors: what a list of adapters shows (TrajectoryStore.listAdapters). */
export type AdapterSummary = Omit<AdapterRow, 'tensors'>;
