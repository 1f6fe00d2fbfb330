// The IndexedDB layout of the trajectory store and its versioned migrations (idb). Rows are what
// IndexedDB holds; schema.ts has the portable records they convert to (convert.ts). Token ids and
// log-probs are stored as typed arrays (structured clone keeps them compact); credit values as
// Float32Array with NaN for "no value".
//
// Versions:
//  1 — runs, tasks, episodes (indexed by run and status), turns. The first layout, kept as a real
//      upgrade source: tests build a version-1 database with data and open it with the current code.
//  2 — credit, adapters, metrics stores; episodes gain `live` (1, or 0 when soft-deleted) and
//      `outcomeKey`, and every listing index is [live, field, createdAt, id] so that a page of any
//      filter is one bounded index range, newest first. Existing episodes are backfilled.
//  3 — episodes gain `agentTurns`, the turns as the lab counts them (an agent message and the reply
//      to it are one turn; `turnCount` counts message records). Backfilled from the stored records.
//  4 — a `scores` store: the critic's scores of an episode's agent turns (values, per-token values,
//      critic and reference log-probs), one row per episode, so that critic-based credit can be
//      recomputed without the critic. Older episodes simply have none.
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import type { EpisodeStatus, JsonObject, JsonValue, ModelRef, OutcomeRecord, RunRecord, MessageRecord } from './schema.ts';

/** The current database version (the number of migrations). */
export const DB_VERSION = 4;
/** Default database name; tests and benches use their own. */
export const DEFAULT_DB_NAME = 'turnwise';

export type OutcomeKey = 'success' | 'failure' | 'none';

/** A stored run: the run line of our JSONL (schema.ts) without its `type`. */
export type RunRow = Omit<RunRecord, 'type'>;

/** Hidden task information, stored once per distinct task. */
export interface TaskRow {
  /** `${family}/${split}/${seed}/${hash of options and hidden}` (convert.ts taskKey) */
  key: string;
  family: string;
  split: 'train' | 'test';
  seed: number;
  /** Absent in rows written by version 1 (read as {}). */
  options?: JsonObject;
  hidden: JsonValue;
}

export interface EpisodeRow {
  id: string;
  /** '' when the episode belongs to no run (IndexedDB keys cannot hold null). */
  runId: string;
  taskKey: string;
  family: string;
  split: 'train' | 'test';
  seed: number;
  status: EpisodeStatus;
  outcome: OutcomeRecord | null;
  outcomeKey: OutcomeKey;
  model: ModelRef;
  /** The store session writing it; an in-progress episode whose session is gone is interrupted. */
  sessionId: string;
  /** Message records stored (the prompt, each agent message, each reply): the next record's index. */
  turnCount: number;
  /** Agent messages stored: the episode's turns (an agent message and its reply are one turn). */
  agentTurns: number;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  abortReason: string | null;
  /** Set on imported episodes; never exported (exports carry the trajectory, not where it came from). */
  imported: { source: string; at: number } | null;
  /** 1 when visible, 0 when soft-deleted (pending undo). */
  live: 0 | 1;
  deletedAt: number | null;
}

/**
 * A stored message record (schema.ts MessageRecord) keyed by episode and position. Token ids and
 * log-probs are typed arrays here and only here: structured clone stores them compactly (4 bytes a
 * number instead of a boxed double each); convert.ts turns them back into the records' plain arrays.
 */
export type MessageRow = Omit<MessageRecord, 'tokens' | 'logprobs'> & {
  episodeId: string;
  index: number;
  tokens: Int32Array | null;
  logprobs: Float32Array | null;
};

export interface CreditRow {
  episodeId: string;
  estimator: string;
  version: string;
  params: JsonObject;
  /** One value per turn; NaN where the estimator gives none. */
  values: Float32Array;
  at: number;
}

/**
 * The critic's scores of an episode (schema.ts CriticScoresRecord) with typed arrays, as structured
 * clone stores them compactly; convert.ts turns them back into the record's plain arrays.
 */
export interface ScoresRow {
  episodeId: string;
  version: string;
  values: Float32Array;
  tokenOffsets: Int32Array;
  tokens: Int32Array;
  tokenText: string[];
  tokenValues: Float32Array | null;
  criticLogprobs: Float32Array;
  refLogprobs: Float32Array;
  at: number;
}

/** One named tensor of an adapter (row-major). */
export interface AdapterTensor {
  dims: number[];
  data: Float32Array;
}

/** LoRA weights plus config and lineage. PEFT export (adapter_model.safetensors + adapter_config.json) reads this. */
export interface AdapterRow {
  id: string;
  /** Which model it adapts. */
  target: 'policy' | 'critic';
  /** The base model's id (manifest name). */
  baseModel: string;
  /** Rank, alpha, target modules… as the trainer wrote them. */
  config: JsonObject;
  /** The adapter this one was trained from; null for a fresh one. */
  parentId: string | null;
  /** '' when trained outside a run. */
  runId: string;
  createdAt: number;
  tensors: Record<string, AdapterTensor>;
}

/** Statistics of one training iteration of a run. */
export interface MetricsRow {
  runId: string;
  iteration: number;
  at: number;
  values: Record<string, number>;
}

type ListKey = [number, string, number, string];

export interface StoreSchema extends DBSchema {
  runs: { key: string; value: RunRow; indexes: { byDate: number } };
  tasks: { key: string; value: TaskRow };
  episodes: {
    key: string;
    value: EpisodeRow;
    indexes: {
      byStatus: EpisodeStatus;
      byDate: [number, number, string];
      byRun: ListKey;
      byFamily: ListKey;
      bySplit: ListKey;
      byOutcome: ListKey;
    };
  };
  turns: { key: [string, number]; value: MessageRow };
  credit: { key: [string, string, string]; value: CreditRow };
  scores: { key: string; value: ScoresRow };
  adapters: { key: string; value: AdapterRow; indexes: { byRun: string } };
  metrics: { key: [string, number]; value: MetricsRow };
}

export type StoreDb = IDBPDatabase<StoreSchema>;
type UpgradeTx = IDBPTransaction<StoreSchema, StoreNames<StoreSchema>[], 'versionchange'>;

/** Migration i (0-based) upgrades a database from version i to i + 1. */
type Migration = (db: StoreDb, tx: UpgradeTx) => void;

export const MIGRATIONS: Migration[] = [
  // 0 → 1
  (db) => {
    db.createObjectStore('runs', { keyPath: 'id' }).createIndex('byDate', 'createdAt');
    db.createObjectStore('tasks', { keyPath: 'key' });
    const episodes = db.createObjectStore('episodes', { keyPath: 'id' });
    episodes.createIndex('byStatus', 'status');
    // Version 1's run index; dropped by migration 2. idb's typing only knows the current indexes.
    (episodes as unknown as IDBObjectStore).createIndex('byRunV1', ['runId', 'createdAt']);
    db.createObjectStore('turns', { keyPath: ['episodeId', 'index'] });
  },
  // 1 → 2
  (db, tx) => {
    db.createObjectStore('credit', { keyPath: ['episodeId', 'estimator', 'version'] });
    db.createObjectStore('adapters', { keyPath: 'id' }).createIndex('byRun', 'runId');
    db.createObjectStore('metrics', { keyPath: ['runId', 'iteration'] });
    const episodes = tx.objectStore('episodes');
    (episodes as unknown as IDBObjectStore).deleteIndex('byRunV1');
    episodes.createIndex('byDate', ['live', 'createdAt', 'id']);
    for (const field of ['Run', 'Family', 'Split', 'Outcome'] as const) {
      const key = field === 'Run' ? 'runId' : field === 'Outcome' ? 'outcomeKey' : field.toLowerCase();
      episodes.createIndex(`by${field}`, ['live', key, 'createdAt', 'id']);
    }
    // Backfill the new fields. Requests chained from promise callbacks keep the upgrade transaction alive.
    void (async () => {
      let cursor = await episodes.openCursor();
      while (cursor) {
        const row = cursor.value;
        row.live ??= 1;
        row.deletedAt ??= null;
        row.imported ??= null;
        row.outcomeKey = outcomeKeyOf(row.outcome);
        await cursor.update(row);
        cursor = await cursor.continue();
      }
    })().catch(() => abortUpgrade(tx));
  },
  // 2 → 3
  (_db, tx) => {
    void (async () => {
      // Turns are keyed [episodeId, index], so one walk counts each episode's agent records.
      const agents = new Map<string, number>();
      let turn = await tx.objectStore('turns').openCursor();
      while (turn) {
        if (turn.value.role === 'agent') agents.set(turn.value.episodeId, (agents.get(turn.value.episodeId) ?? 0) + 1);
        turn = await turn.continue();
      }
      let cursor = await tx.objectStore('episodes').openCursor();
      while (cursor) {
        await cursor.update({ ...cursor.value, agentTurns: agents.get(cursor.value.id) ?? 0 });
        cursor = await cursor.continue();
      }
    })().catch(() => abortUpgrade(tx));
  },
  // 3 → 4
  (db) => {
    db.createObjectStore('scores', { keyPath: 'episodeId' });
  },
];

/** A failed backfill must fail the upgrade, not leave half-migrated rows. */
function abortUpgrade(tx: UpgradeTx): void {
  try {
    tx.abort();
  } catch {
    // already aborted
  }
}

export function outcomeKeyOf(outcome: OutcomeRecord | null): OutcomeKey {
  return outcome === null ? 'none' : outcome.success ? 'success' : 'failure';
}

/** Key range of one episode's rows in `turns` (keyed [episodeId, index]). */
export const messageRange = (episodeId: string): IDBKeyRange => IDBKeyRange.bound([episodeId, 0], [episodeId, Infinity]);
/** Key range of one episode's rows in `credit` (keyed [episodeId, estimator, version]; an array sorts after every string). */
export const creditOf = (episodeId: string): IDBKeyRange => IDBKeyRange.bound([episodeId], [episodeId, []]);

/** What the caller hears about other connections while a database is open. */
export interface OpenHooks {
  /** This connection waits for older tabs to close (they have been asked to). */
  blocked?: () => void;
  /** Another tab wants a newer version: this connection must close (and its page reload). */
  blocking?: () => void;
  /** The browser closed the connection abnormally (e.g. storage cleared). */
  terminated?: () => void;
}

/**
 * Opens (creating or upgrading) the store's database. `version` defaults to DB_VERSION; tests pass an
 * earlier one to build fixtures of old layouts. Uses the global indexedDB (fake-indexeddb in Node tests).
 */
export function openStoreDb(name: string, hooks: OpenHooks = {}, version = DB_VERSION): Promise<StoreDb> {
  if (version < 1 || version > MIGRATIONS.length) throw new RangeError(`no database version ${version} (1…${MIGRATIONS.length})`);
  return openDB<StoreSchema>(name, version, {
    upgrade(db, oldVersion, newVersion, tx) {
      for (let v = oldVersion; v < (newVersion ?? version); v++) MIGRATIONS[v](db, tx);
    },
    blocked: () => hooks.blocked?.(),
    blocking: () => hooks.blocking?.(),
    terminated: () => hooks.terminated?.(),
  });
}
