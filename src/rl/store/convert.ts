// Conversions between IndexedDB rows (db.ts) and portable records (schema.ts). Exports put every
// record's fields in its schema's order (canonical), so that export → import → export is
// byte-identical: typed arrays round-trip exactly (a float32 printed as a double parses back to the
// same float32). Rows differ from records only where IndexedDB needs it (keys, typed arrays).
import { outcomeKeyOf, type CreditRow, type EpisodeRow, type RunRow, type ScoresRow, type TaskRow, type MessageRow } from './db.ts';
import {
  MessageSchema,
  RunSchema,
  type CreditRecord,
  type CriticScoresRecord,
  type EpisodeRecord,
  type RunRecord,
  type TaskRecord,
  type MessageRecord,
} from './schema.ts';

/** `x`'s fields in the order of `schema`'s entries (the one key order exports use). */
function canonical<T extends object>(schema: { entries: Record<keyof T, unknown> }, x: T): T {
  return Object.fromEntries(Object.keys(schema.entries).map((k) => [k, x[k as keyof T]])) as T;
}

/** cyrb53: a 53-bit string hash (public domain, bryc), enough to tell hidden-information blobs apart. */
function hash53(s: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * Key of a task row: family/split/seed plus a hash of the options and hidden information, so that two
 * imported files whose tasks share a seed but not their content never overwrite each other.
 */
export const taskKey = (t: Pick<TaskRecord, 'family' | 'split' | 'seed' | 'hidden'> & { options?: TaskRecord['options'] }): string =>
  `${t.family}/${t.split}/${t.seed}/${hash53(JSON.stringify([t.options ?? {}, t.hidden]))}`;

export function runToRecord(r: RunRow): RunRecord {
  return canonical(RunSchema, { type: 'run', ...r, models: { policy: r.models.policy, critic: r.models.critic } });
}

export function runFromRecord(r: RunRecord): RunRow {
  const { type: _type, ...row } = r;
  return row;
}

export function turnToRecord(t: MessageRow): MessageRecord {
  const { episodeId: _episode, index: _index, tokens, logprobs, ...same } = t;
  return canonical(MessageSchema, { ...same, tokens: tokens ? Array.from(tokens) : null, logprobs: logprobs ? Array.from(logprobs) : null });
}

export function turnFromRecord(episodeId: string, index: number, t: MessageRecord): MessageRow {
  return { episodeId, index, ...t, tokens: t.tokens ? Int32Array.from(t.tokens) : null, logprobs: t.logprobs ? Float32Array.from(t.logprobs) : null };
}

/** Credit written while an episode was running may be shorter than its turns: pad with null. */
export function creditToRecord(c: CreditRow, turns: number): CreditRecord {
  const values: (number | null)[] = new Array<number | null>(turns).fill(null);
  for (let i = 0; i < Math.min(turns, c.values.length); i++) values[i] = Number.isNaN(c.values[i]) ? null : c.values[i];
  return {
    estimator: c.estimator,
    version: c.version,
    params: c.params,
    values,
    at: c.at,
  };
}

export function creditFromRecord(episodeId: string, c: CreditRecord): CreditRow {
  return {
    episodeId,
    estimator: c.estimator,
    version: c.version,
    params: c.params,
    values: Float32Array.from(c.values, (x) => (x === null ? NaN : x)),
    at: c.at,
  };
}

/** The critic's scores as the record (plain arrays, in the schema's field order). */
export function scoresToRecord(r: ScoresRow): CriticScoresRecord {
  return {
    version: r.version,
    values: Array.from(r.values),
    tokenOffsets: Array.from(r.tokenOffsets),
    tokens: Array.from(r.tokens),
    tokenText: r.tokenText.slice(),
    tokenValues: r.tokenValues ? Array.from(r.tokenValues) : null,
    criticLogprobs: Array.from(r.criticLogprobs),
    refLogprobs: Array.from(r.refLogprobs),
    at: r.at,
  };
}

/** The row of an episode's critic scores (numbers rounded to float32, as every stored score is). */
export function scoresFromRecord(episodeId: string, s: CriticScoresRecord): ScoresRow {
  return {
    episodeId,
    version: s.version,
    values: Float32Array.from(s.values),
    tokenOffsets: Int32Array.from(s.tokenOffsets),
    tokens: Int32Array.from(s.tokens),
    tokenText: s.tokenText.slice(),
    tokenValues: s.tokenValues ? Float32Array.from(s.tokenValues) : null,
    criticLogprobs: Float32Array.from(s.criticLogprobs),
    refLogprobs: Float32Array.from(s.refLogprobs),
    at: s.at,
  };
}

/** Credit rows sort by estimator then version, so exports do not depend on write order. */
export const creditOrder = (a: { estimator: string; version: string }, b: { estimator: string; version: string }): number =>
  a.estimator < b.estimator ? -1 : a.estimator > b.estimator ? 1 : a.version < b.version ? -1 : a.version > b.version ? 1 : 0;

export function episodeToRecord(
  row: EpisodeRow,
  task: TaskRow | undefined,
  turns: MessageRow[],
  credit: CreditRow[],
  scores: ScoresRow | undefined,
): EpisodeRecord {
  const taskRecord: TaskRecord = { family: row.family, split: row.split, seed: row.seed, options: task?.options ?? {}, hidden: task ? task.hidden : null };
  return {
    type: 'episode',
    id: row.id,
    runId: row.runId === '' ? null : row.runId,
    status: row.status,
    task: taskRecord,
    model: { policy: row.model.policy, adapter: row.model.adapter, critic: row.model.critic },
    turns: turns.map(turnToRecord),
    outcome: row.outcome ? { success: row.outcome.success, totalReward: row.outcome.totalReward, turns: row.outcome.turns } : null,
    credit: credit
      .slice()
      .sort(creditOrder)
      .map((c) => creditToRecord(c, turns.length)),
    criticScores: scores ? scoresToRecord(scores) : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    finishedAt: row.finishedAt,
    abortReason: row.abortReason,
  };
}

/** The rows an imported episode becomes (its session id is empty: nobody is writing it). */
export function episodeFromRecord(e: EpisodeRecord, imported: { source: string; at: number } | null) {
  const row: EpisodeRow = {
    id: e.id,
    runId: e.runId ?? '',
    taskKey: taskKey(e.task),
    family: e.task.family,
    split: e.task.split,
    seed: e.task.seed,
    status: e.status,
    outcome: e.outcome,
    outcomeKey: outcomeKeyOf(e.outcome),
    model: e.model,
    sessionId: '',
    turnCount: e.turns.length,
    agentTurns: e.turns.filter((t) => t.role === 'agent').length,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    finishedAt: e.finishedAt,
    abortReason: e.abortReason,
    imported,
    live: 1,
    deletedAt: null,
  };
  const task: TaskRow = { key: row.taskKey, family: e.task.family, split: e.task.split, seed: e.task.seed, options: e.task.options, hidden: e.task.hidden };
  const turns = e.turns.map((t, i) => turnFromRecord(e.id, i, t));
  const credit = e.credit.map((c) => creditFromRecord(e.id, c));
  const scores = e.criticScores ? scoresFromRecord(e.id, e.criticScores) : null;
  return { row, task, turns, credit, scores };
}
