// Listing episodes: a filter picks the most selective index (run, family, split, outcome, else date),
// each of which is keyed [live, field, createdAt, id], so a page is one bounded cursor walk in
// creation order (newest first by default) and a cursor {createdAt, id} continues exactly where the
// previous page stopped, whatever is written meanwhile.
import type { EpisodeRow, OutcomeKey, StoreDb } from './db.ts';
import type { EpisodeStatus } from './schema.ts';

/** Which episodes to list; every given field must match. */
export interface EpisodeFilter {
  /** A run id, or null for episodes outside any run. */
  runId?: string | null;
  /** Any of these runs (e.g. every training run: the Data view's origin filter); [] matches nothing. */
  runIds?: readonly string[];
  family?: string;
  split?: 'train' | 'test';
  outcome?: OutcomeKey;
  status?: EpisodeStatus | EpisodeStatus[];
  /** createdAt ≥ from (ms since epoch). */
  from?: number;
  /** createdAt < to. */
  to?: number;
  /** true: only imported episodes; false: only the lab's own. */
  imported?: boolean;
}

/** Where the previous page stopped. */
export interface PageCursor {
  createdAt: number;
  id: string;
}

export interface PageRequest {
  /** Items per page (default 50). */
  limit?: number;
  /** Continue after this item (the previous page's `next`). */
  after?: PageCursor | null;
  /** Creation order; default newest first. */
  order?: 'newest' | 'oldest';
}

/** The row fields a list shows. */
const SUMMARY_FIELDS = [
  'id',
  'family',
  'split',
  'seed',
  'status',
  'outcome',
  'model',
  'turnCount',
  'agentTurns',
  'createdAt',
  'updatedAt',
  'finishedAt',
  'abortReason',
  'imported',
] as const;

/** An episode without its turns, as lists show it: the row's fields, with runId null for no run. */
export type EpisodeSummary = Pick<EpisodeRow, (typeof SUMMARY_FIELDS)[number]> & { runId: string | null };

export interface EpisodePage {
  items: EpisodeSummary[];
  /** Pass as `after` for the next page; null when this was the last. */
  next: PageCursor | null;
}

export function summaryOf(r: EpisodeRow): EpisodeSummary {
  const picked = Object.fromEntries(SUMMARY_FIELDS.map((k) => [k, r[k]])) as Pick<EpisodeRow, (typeof SUMMARY_FIELDS)[number]>;
  return { ...picked, runId: r.runId === '' ? null : r.runId };
}

type IndexName = 'byRun' | 'byFamily' | 'bySplit' | 'byOutcome' | 'byDate';

interface Plan {
  index: IndexName;
  /** Key prefix before [createdAt, id]. */
  prefix: (number | string)[];
  /** Whether the index range alone decides the filter (so counting needs no row reads). */
  exact: boolean;
}

function plan(f: EpisodeFilter, live: 0 | 1): Plan {
  const extra = (used: keyof EpisodeFilter) =>
    (['runId', 'runIds', 'family', 'split', 'outcome', 'status', 'imported'] as const).some((k) => k !== used && f[k] !== undefined);
  if (f.runId !== undefined) return { index: 'byRun', prefix: [live, f.runId ?? ''], exact: !extra('runId') };
  if (f.runIds?.length === 1) return { index: 'byRun', prefix: [live, f.runIds[0]], exact: !extra('runIds') };
  if (f.family !== undefined) return { index: 'byFamily', prefix: [live, f.family], exact: !extra('family') };
  if (f.split !== undefined) return { index: 'bySplit', prefix: [live, f.split], exact: !extra('split') };
  if (f.outcome !== undefined) return { index: 'byOutcome', prefix: [live, f.outcome], exact: !extra('outcome') };
  return { index: 'byDate', prefix: [live], exact: !extra('from') };
}

export function matches(r: EpisodeRow, f: EpisodeFilter): boolean {
  if (f.runId !== undefined && r.runId !== (f.runId ?? '')) return false;
  if (f.runIds !== undefined && !f.runIds.includes(r.runId)) return false;
  if (f.family !== undefined && r.family !== f.family) return false;
  if (f.split !== undefined && r.split !== f.split) return false;
  if (f.outcome !== undefined && r.outcomeKey !== f.outcome) return false;
  if (f.status !== undefined && !(Array.isArray(f.status) ? f.status.includes(r.status) : r.status === f.status)) return false;
  if (f.imported !== undefined && (r.imported !== null) !== f.imported) return false;
  return true;
}

function range(p: Plan, f: EpisodeFilter, after: PageCursor | null | undefined, order: 'newest' | 'oldest'): IDBKeyRange {
  const lower = [...p.prefix, f.from ?? -Infinity, ''];
  const upper = [...p.prefix, f.to ?? Infinity, ''];
  // Ids are never empty, so [createdAt, ''] sorts before every real key with that createdAt.
  if (after && order === 'newest') return IDBKeyRange.bound(lower, [...p.prefix, after.createdAt, after.id], false, true);
  if (after && order === 'oldest') return IDBKeyRange.bound([...p.prefix, after.createdAt, after.id], upper, true, true);
  return IDBKeyRange.bound(lower, upper, false, true);
}

/** Where the rows matching `filter` lie: one bounded range of the most selective index (trash.ts deletes by it too). */
export function scanOf(filter: EpisodeFilter, live: 0 | 1): { index: IndexName; range: IDBKeyRange } {
  const p = plan(filter, live);
  return { index: p.index, range: range(p, filter, null, 'newest') };
}

/** One page of episodes matching `filter` (soft-deleted ones only with `deleted`). */
export async function listEpisodes(db: StoreDb, filter: EpisodeFilter = {}, page: PageRequest = {}, deleted = false): Promise<EpisodePage> {
  if (filter.runIds?.length === 0) return { items: [], next: null };
  const limit = Math.max(1, page.limit ?? 50);
  const order = page.order ?? 'newest';
  const p = plan(filter, deleted ? 0 : 1);
  const tx = db.transaction('episodes', 'readonly');
  const index = tx.store.index(p.index);
  const items: EpisodeSummary[] = [];
  let more = false;
  // The index type is a union over its key shapes; the range is built for the chosen one.
  let cursor = await index.openCursor(range(p, filter, page.after, order) as IDBKeyRange, order === 'newest' ? 'prev' : 'next');
  while (cursor) {
    if (matches(cursor.value, filter)) {
      if (items.length === limit) {
        more = true;
        break;
      }
      items.push(summaryOf(cursor.value));
    }
    cursor = await cursor.continue();
  }
  await tx.done;
  const last = items[items.length - 1];
  return { items, next: more && last ? { createdAt: last.createdAt, id: last.id } : null };
}

/** How many episodes match `filter` (not counting soft-deleted ones). */
export async function countEpisodes(db: StoreDb, filter: EpisodeFilter = {}): Promise<number> {
  // several runs and nothing else: each run's count is one index count, no row read
  const { runIds, ...rest } = filter;
  if (runIds && runIds.length !== 1 && Object.values(rest).every((v) => v === undefined)) {
    const counts = await Promise.all(runIds.map((runId) => countEpisodes(db, { runId })));
    return counts.reduce((a, b) => a + b, 0);
  }
  const p = plan(filter, 1);
  const index = db.transaction('episodes', 'readonly').store.index(p.index);
  const r = range(p, filter, null, 'newest');
  if (p.exact) return index.count(r);
  let n = 0;
  let cursor = await index.openCursor(r);
  while (cursor) {
    if (matches(cursor.value, filter)) n++;
    cursor = await cursor.continue();
  }
  return n;
}
