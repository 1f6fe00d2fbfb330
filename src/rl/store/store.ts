// The trajectory store: every turn durable in IndexedDB the moment it completes (docs/design.md "Data").
// One connection per tab (or worker); each write is one transaction that resolves only once committed;
// a tab that closes or crashes mid-episode leaves an episode that the next session marks interrupted
// (resume or discard); other tabs hear every change (notify.ts) and an upgrade in another tab closes
// this connection with a reload-required event. Formats and import validation live in formats/ and
// importer.ts; the rows built from inputs in rows.ts; the transaction bodies of import (bulk.ts) and
// of delete, undo and purge (trash.ts) beside it; this file is the API and its notifications.
import {
  DEFAULT_DB_NAME,
  creditOf,
  outcomeKeyOf,
  openStoreDb,
  messageRange,
  type AdapterRow,
  type EpisodeRow,
  type MetricsRow,
  type RunRow,
  type StoreDb,
} from './db.ts';
import { RELOAD_MESSAGE, StoreError, toStoreError } from './errors.ts';
import { ChangeNotifier, type StoreChange, type StoreListener } from './notify.ts';
import { countEpisodes, listEpisodes, summaryOf, type EpisodeFilter, type EpisodePage, type EpisodeSummary, type PageRequest } from './queries.ts';
import { SessionHandle, estimateStorage, liveSessions, requestPersistence, type StorageInfo } from './session.ts';
import { writeTx } from './txn.ts';
import { importTx } from './bulk.ts';
import { purgeTx, restoreTx, softDeleteMatchingTx, softDeleteTx } from './trash.ts';
import type {
  AdapterInput,
  AdapterSummary,
  AdapterTable,
  BeginEpisodeInput,
  CreditInput,
  ImportOptions,
  ImportResult,
  RestoreToken,
  RunInput,
  StoreOptions,
  MessageInput,
} from './api.ts';
import { creditFromRecord, episodeToRecord, runToRecord, scoresFromRecord, taskKey } from './convert.ts';
import { agentCount, messageRow, newEpisodeRow } from './rows.ts';
import {
  criticScoresProblem,
  type CreditRecord,
  type CriticScoresRecord,
  type EpisodeRecord,
  type OutcomeRecord,
  type PortableRecord,
  type RunRecord,
} from './schema.ts';

export type * from './api.ts';

const isIds = (x: readonly string[] | EpisodeFilter): x is readonly string[] => Array.isArray(x);

export class TrajectoryStore implements AdapterTable {
  private closedMessage: string | null = null;
  /** Episodes this session found interrupted when it opened (their writer had gone). */
  interrupted: string[] = [];

  private constructor(
    private readonly db: StoreDb,
    private readonly session: SessionHandle,
    private readonly notifier: ChangeNotifier,
    private readonly opts: Required<Omit<StoreOptions, 'onBlocked'>>,
  ) {}

  /** Opens (creating or upgrading) the database, starts a session and marks orphaned episodes interrupted. */
  static async open(options: StoreOptions = {}): Promise<TrajectoryStore> {
    const opts = {
      name: options.name ?? DEFAULT_DB_NAME,
      durability: options.durability ?? 'strict',
      newId: options.newId ?? (() => globalThis.crypto.randomUUID()),
      now: options.now ?? Date.now,
    };
    let store: TrajectoryStore | null = null;
    let db: StoreDb;
    try {
      db = await openStoreDb(opts.name, {
        blocked: () => options.onBlocked?.(),
        blocking: () => store?.lose(RELOAD_MESSAGE),
        terminated: () => store?.lose('The browser closed the database (storage cleared?): reload this page.'),
      });
    } catch (e) {
      throw toStoreError(e);
    }
    const session = await SessionHandle.start(opts.newId());
    store = new TrajectoryStore(db, session, new ChangeNotifier(opts.name), opts);
    store.interrupted = await store.recoverInterrupted();
    return store;
  }

  get sessionId(): string {
    return this.session.id;
  }

  /** True once closed (by close(), or because another tab upgraded the schema). */
  get closed(): boolean {
    return this.closedMessage !== null;
  }

  subscribe(listener: StoreListener): () => void {
    return this.notifier.subscribe(listener);
  }

  close(): void {
    if (this.closed) return;
    this.closedMessage = 'The store is closed.';
    this.session.end();
    this.db.close();
    this.notifier.close();
  }

  // ---- runs ----------------------------------------------------------------------------------------

  async createRun(input: RunInput): Promise<RunRecord> {
    const row: RunRow = {
      id: input.id ?? this.opts.newId(),
      name: input.name,
      createdAt: this.opts.now(),
      models: { policy: input.models.policy, critic: input.models.critic },
      adapterId: input.adapterId ?? null,
      algorithm: input.algorithm,
      settings: input.settings ?? {},
      seed: input.seed,
      notes: input.notes ?? '',
    };
    await this.write(['runs'], (tx) => tx.objectStore('runs').add(row));
    this.notifier.publish({ type: 'run', id: row.id });
    return runToRecord(row);
  }

  async getRun(id: string): Promise<RunRecord | null> {
    const row = await this.read(() => this.db.get('runs', id));
    return row ? runToRecord(row) : null;
  }

  async listRuns(): Promise<RunRecord[]> {
    return (await this.read(() => this.db.getAllFromIndex('runs', 'byDate'))).map(runToRecord);
  }

  // ---- episode lifecycle --------------------------------------------------------------------------

  async beginEpisode(input: BeginEpisodeInput): Promise<EpisodeSummary> {
    const now = this.opts.now();
    const key = taskKey(input.task);
    const row = newEpisodeRow(input, input.id ?? this.opts.newId(), key, this.session.id, now);
    const { family, split, seed, hidden } = input.task;
    const options = input.task.options ?? {};
    // The opening records (the task's prompt) go in the same transaction, so a kill never leaves
    // an episode without the prompt its first turn answers.
    const first = (input.records ?? []).map((r) => messageRow(row.id, r, now));
    const counted: EpisodeRow = { ...row, turnCount: first.length, agentTurns: agentCount(first) };
    await this.write(['tasks', 'episodes', 'turns'], async (tx) => {
      await tx.objectStore('tasks').put({ key, family, split, seed, options, hidden });
      for (const [i, r] of first.entries()) await tx.objectStore('turns').add({ ...r, index: i });
      await tx.objectStore('episodes').add(counted);
    });
    this.notifier.publish({ type: 'episode', id: row.id, status: row.status });
    return summaryOf(counted);
  }

  /**
   * Writes one message record in its own transaction and resolves (with its index) only after that
   * transaction committed. On StoreError 'quota' neither the record nor the episode's counters were
   * written. A lab turn is two records: write it with commitTurn, never as two appendTurn calls.
   */
  async appendTurn(episodeId: string, turn: MessageInput): Promise<{ index: number }> {
    const { first } = await this.commitTurn(episodeId, [turn]);
    return { index: first };
  }

  /**
   * Writes a whole turn — its message records (the agent's and the reply's) and, when it ended the
   * episode, the outcome — in one transaction, resolving once committed (issue 22: a kill between
   * two separate writes left episodes ending on an agent message, or finished ones without their
   * outcome). Either every record and the outcome are stored, or (on any failure) none of them.
   */
  async commitTurn(episodeId: string, records: readonly MessageInput[], outcome: OutcomeRecord | null = null): Promise<{ first: number }> {
    const now = this.opts.now();
    const rows = records.map((r) => messageRow(episodeId, r, now));
    const first = await this.write(['episodes', 'turns'], async (tx) => {
      const ep = await this.ownEpisode(tx.objectStore('episodes').get(episodeId), episodeId);
      const i = ep.turnCount;
      for (const [k, r] of rows.entries()) await tx.objectStore('turns').add({ ...r, index: i + k });
      const counted: EpisodeRow = { ...ep, turnCount: i + rows.length, agentTurns: ep.agentTurns + agentCount(rows), updatedAt: now };
      await tx.objectStore('episodes').put(outcome ? { ...counted, status: 'complete', outcome, outcomeKey: outcomeKeyOf(outcome), finishedAt: now } : counted);
      return i;
    });
    rows.forEach((_, k) => this.notifier.publish({ type: 'turn', episodeId, index: first + k }));
    if (outcome) this.notifier.publish({ type: 'episode', id: episodeId, status: 'complete' });
    return { first };
  }

  async finishEpisode(episodeId: string, outcome: OutcomeRecord): Promise<EpisodeSummary> {
    return this.transition(episodeId, ['in-progress'], (ep, now) => ({
      ...ep,
      status: 'complete',
      outcome,
      outcomeKey: outcomeKeyOf(outcome),
      finishedAt: now,
    }));
  }

  /** Ends an episode without an outcome (stopped, failed, or an interrupted one discarded); its turns stay. */
  async abortEpisode(episodeId: string, reason: string): Promise<EpisodeSummary> {
    return this.transition(episodeId, ['in-progress', 'interrupted'], (ep, now) => ({ ...ep, status: 'aborted', abortReason: reason, finishedAt: now }));
  }

  /** Takes over an interrupted episode: it becomes in-progress in this session; returns it with its turns. */
  async resumeEpisode(episodeId: string): Promise<EpisodeRecord> {
    await this.transition(episodeId, ['interrupted'], (ep) => ({ ...ep, status: 'in-progress', sessionId: this.session.id }));
    return (await this.getEpisode(episodeId))!;
  }

  /**
   * Marks in-progress episodes whose session is no longer alive (closed or crashed tab) as
   * interrupted; returns their ids. open() calls it; calling it again is harmless. A run's episode
   * (training or Evaluate rollouts) cannot be continued — its run plays its own task stream — so it is
   * closed as aborted instead, and only Play's episodes come back as interrupted.
   */
  async recoverInterrupted(): Promise<string[]> {
    const live = await liveSessions();
    const ids = await this.write(['episodes'], async (tx) => {
      const found: string[] = [];
      let cursor = await tx.store.index('byStatus').openCursor('in-progress');
      while (cursor) {
        const ep = cursor.value;
        if (!live.has(ep.sessionId) && ep.runId !== '') {
          await cursor.update({
            ...ep,
            status: 'aborted',
            abortReason: 'its run ended when the lab closed',
            finishedAt: this.opts.now(),
            updatedAt: this.opts.now(),
          });
        } else if (!live.has(ep.sessionId)) {
          found.push(ep.id);
          await cursor.update({ ...ep, status: 'interrupted', updatedAt: this.opts.now() });
        }
        cursor = await cursor.continue();
      }
      return found;
    });
    if (ids.length) this.notifier.publish({ type: 'interrupted', ids });
    return ids;
  }

  // ---- reading --------------------------------------------------------------------------------------

  listEpisodes(filter: EpisodeFilter = {}, page: PageRequest = {}): Promise<EpisodePage> {
    return this.read(() => listEpisodes(this.db, filter, page));
  }

  /** Soft-deleted episodes awaiting undo or purge. */
  listDeleted(page: PageRequest = {}): Promise<EpisodePage> {
    return this.read(() => listEpisodes(this.db, {}, page, true));
  }

  countEpisodes(filter: EpisodeFilter = {}): Promise<number> {
    return this.read(() => countEpisodes(this.db, filter));
  }

  /** The whole trajectory (task with hidden info, turns, credit), or null. Soft-deleted ones too. */
  async getEpisode(id: string): Promise<EpisodeRecord | null> {
    return (await this.getEpisodes([id]))[0];
  }

  /** Several whole trajectories read in one transaction, in the order asked (null where missing). */
  async getEpisodes(ids: readonly string[]): Promise<(EpisodeRecord | null)[]> {
    return this.read(async () => {
      const tx = this.db.transaction(['episodes', 'tasks', 'turns', 'credit', 'scores'], 'readonly');
      const load = async (id: string): Promise<EpisodeRecord | null> => {
        const row = await tx.objectStore('episodes').get(id);
        if (!row) return null;
        const [task, turns, credit, scores] = await Promise.all([
          tx.objectStore('tasks').get(row.taskKey),
          tx.objectStore('turns').getAll(messageRange(id)),
          tx.objectStore('credit').getAll(creditOf(id)),
          tx.objectStore('scores').get(id),
        ]);
        return episodeToRecord(row, task, turns, credit, scores);
      };
      const out = await Promise.all(ids.map(load));
      await tx.done;
      return out;
    });
  }

  // ---- delete with undo -----------------------------------------------------------------------------

  /** Hides the episodes of an id list, or every live one a filter matches (one index walk); `restoreEpisodes(token)` undoes it until `purgeDeleted`. */
  async deleteEpisodes(which: readonly string[] | EpisodeFilter): Promise<RestoreToken> {
    const deletedAt = this.opts.now();
    const done = await this.write(['episodes'], (tx) => (isIds(which) ? softDeleteTx(tx, which, deletedAt) : softDeleteMatchingTx(tx, which, deletedAt)));
    this.notifier.publish({ type: 'deleted', ids: done });
    return { ids: done, deletedAt };
  }

  async restoreEpisodes(token: RestoreToken): Promise<number> {
    const done = await this.write(['episodes'], (tx) => restoreTx(tx, token.ids, token.deletedAt));
    this.notifier.publish({ type: 'restored', ids: done });
    return done.length;
  }

  /** Removes for good the episodes (with turns and credit) deleted at least `olderThanMs` ago. */
  async purgeDeleted(olderThanMs = 0): Promise<number> {
    const cutoff = this.opts.now() - olderThanMs;
    const n = await this.write(['episodes', 'turns', 'credit', 'scores'], (tx) => purgeTx(tx, cutoff));
    this.notifier.publish({ type: 'purged', count: n });
    return n;
  }

  // ---- credit, adapters, metrics ----------------------------------------------------------------------

  /** Stores (or replaces) one estimator's credit for an episode, keyed by estimator and version. */
  async putCredit(episodeId: string, credit: CreditInput): Promise<void> {
    const record: CreditRecord = {
      estimator: credit.estimator,
      version: credit.version,
      params: credit.params ?? {},
      values: Array.from(credit.values, (x) => (Number.isNaN(x) ? null : x)),
      at: this.opts.now(),
    };
    await this.write(['episodes', 'credit'], async (tx) => {
      const ep = await tx.objectStore('episodes').get(episodeId);
      if (!ep) throw new StoreError('not-found', `no episode ${episodeId}`);
      if (record.values.length > ep.turnCount) {
        throw new StoreError('invalid', `credit has ${record.values.length} values but episode ${episodeId} has ${ep.turnCount} turns`);
      }
      await tx.objectStore('credit').put(creditFromRecord(episodeId, record));
    });
    this.notifier.publish({ type: 'credit', episodeId, estimator: credit.estimator, version: credit.version });
  }

  /** Stores (or replaces) the critic's scores of an episode's agent turns (what critic-based credit is recomputed from). */
  async putCriticScores(episodeId: string, scores: Omit<CriticScoresRecord, 'at'>): Promise<void> {
    const problem = criticScoresProblem(scores);
    if (problem) throw new StoreError('invalid', `critic scores of episode ${episodeId}: ${problem}`);
    await this.write(['episodes', 'scores'], async (tx) => {
      const ep = await tx.objectStore('episodes').get(episodeId);
      if (!ep) throw new StoreError('not-found', `no episode ${episodeId}`);
      const T = scores.values.length - 1;
      if (T !== ep.agentTurns) throw new StoreError('invalid', `critic scores cover ${T} turns but episode ${episodeId} has ${ep.agentTurns}`);
      await tx.objectStore('scores').put(scoresFromRecord(episodeId, { ...scores, at: this.opts.now() }));
    });
    this.notifier.publish({ type: 'scores', episodeId });
  }

  async putAdapter(adapter: AdapterInput): Promise<void> {
    const row: AdapterRow = { ...adapter, runId: adapter.runId ?? '', createdAt: adapter.createdAt ?? this.opts.now() };
    await this.write(['adapters'], (tx) => tx.store.put(row));
    this.notifier.publish({ type: 'adapter', id: row.id });
  }

  async getAdapter(id: string): Promise<AdapterRow | null> {
    return (await this.read(() => this.db.get('adapters', id))) ?? null;
  }

  /** Every stored adapter row (checkpoint and optimizer rows included) without its tensors, oldest first. */
  async listAdapters(): Promise<AdapterSummary[]> {
    const rows = await this.read(async () => {
      const out: AdapterSummary[] = [];
      // one row at a time, so the list never holds every adapter's tensors at once
      let cursor = await this.db.transaction('adapters').store.openCursor();
      while (cursor) {
        const { tensors: _, ...summary } = cursor.value;
        out.push(summary);
        cursor = await cursor.continue();
      }
      return out;
    });
    return rows.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  async putMetrics(runId: string, iteration: number, values: Record<string, number>): Promise<void> {
    const row: MetricsRow = { runId, iteration, at: this.opts.now(), values };
    await this.write(['metrics'], (tx) => tx.store.put(row));
    this.notifier.publish({ type: 'metrics', runId, iteration });
  }

  async listMetrics(runId: string): Promise<MetricsRow[]> {
    return this.read(() => this.db.getAll('metrics', IDBKeyRange.bound([runId, -Infinity], [runId, Infinity])));
  }

  // ---- export and import ------------------------------------------------------------------------------

  /**
   * The runs the selected episodes belong to, then the episodes (oldest first), read in batches so a
   * large export never holds more than one batch; feed it to a formats/ encoder.
   */
  async *exportRecords(
    filter: EpisodeFilter = {},
    opts: { batch?: number; onProgress?: (done: number, total: number) => void } = {},
  ): AsyncGenerator<PortableRecord> {
    const total = await this.countEpisodes(filter);
    const runIds = new Set<string>();
    let after = null;
    do {
      const page: EpisodePage = await this.listEpisodes(filter, { limit: 1000, after, order: 'oldest' });
      for (const s of page.items) if (s.runId !== null) runIds.add(s.runId);
      after = page.next;
    } while (after);
    for (const id of [...runIds].sort()) {
      const run = await this.getRun(id);
      if (run) yield run;
    }
    let done = 0;
    after = null;
    do {
      const page: EpisodePage = await this.listEpisodes(filter, { limit: opts.batch ?? 100, after, order: 'oldest' });
      for (const e of await this.getEpisodes(page.items.map((s) => s.id))) {
        if (e) yield e;
        opts.onProgress?.(++done, total);
      }
      after = page.next;
    } while (after);
  }

  /** Writes validated records (importer.ts) in one transaction: all of them, or on any failure none. */
  async importRecords(records: readonly PortableRecord[], options: ImportOptions): Promise<ImportResult> {
    const onConflict = options.onConflict ?? 'skip';
    const at = this.opts.now();
    const result = await this.write(['runs', 'tasks', 'episodes', 'turns', 'credit', 'scores'], (tx) =>
      importTx(tx, records, onConflict, { source: options.source, at }),
    );
    this.notifier.publish({ type: 'imported', runs: result.runs, episodes: result.episodes });
    return result;
  }

  // ---- storage ------------------------------------------------------------------------------------------

  /** Usage and quota of the origin; null where unknown (Node). */
  estimateStorage(): Promise<StorageInfo | null> {
    return estimateStorage();
  }

  /** Asks the browser to keep the lab's data under storage pressure; resolves whether it will. */
  requestPersistence(): Promise<boolean> {
    return requestPersistence();
  }

  // ---- internals ------------------------------------------------------------------------------------------

  /** The connection is gone for good (upgrade elsewhere, or the browser closed it): tell the page to reload. */
  private lose(message: string): void {
    if (this.closed) return;
    this.closedMessage = message;
    this.session.end();
    this.db.close();
    this.notifier.local({ type: 'reload-required', origin: 'local', message });
  }

  private ensureOpen(): void {
    if (this.closedMessage !== null) throw new StoreError('closed', this.closedMessage);
  }

  private async read<T>(body: () => Promise<T>): Promise<T> {
    this.ensureOpen();
    try {
      return await body();
    } catch (e) {
      throw toStoreError(e);
    }
  }

  private write<const S extends Parameters<typeof writeTx>[1], T>(stores: S, body: Parameters<typeof writeTx<S, T>>[3]): Promise<T> {
    this.ensureOpen();
    return writeTx(this.db, stores, this.opts.durability, body);
  }

  private async ownEpisode(get: Promise<EpisodeRow | undefined>, id: string): Promise<EpisodeRow> {
    const ep = await get;
    if (!ep) throw new StoreError('not-found', `no episode ${id}`);
    if (ep.status !== 'in-progress' || ep.sessionId !== this.session.id) {
      throw new StoreError(
        'state',
        `episode ${id} is ${ep.status === 'in-progress' ? 'being written by another session' : ep.status}; turns can only be appended to an in-progress episode of this session`,
      );
    }
    return ep;
  }

  private async transition(id: string, from: EpisodeRow['status'][], next: (ep: EpisodeRow, now: number) => EpisodeRow): Promise<EpisodeSummary> {
    const now = this.opts.now();
    const row = await this.write(['episodes'], async (tx) => {
      const ep = await tx.store.get(id);
      if (!ep) throw new StoreError('not-found', `no episode ${id}`);
      if (!from.includes(ep.status)) throw new StoreError('state', `episode ${id} is ${ep.status}, expected ${from.join(' or ')}`);
      const updated = { ...next(ep, now), updatedAt: now };
      await tx.store.put(updated);
      return updated;
    });
    this.notifier.publish({ type: 'episode', id, status: row.status } satisfies StoreChange);
    return summaryOf(row);
  }
}
