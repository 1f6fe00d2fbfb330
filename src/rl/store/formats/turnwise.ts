// Our own JSONL (docs/data-formats.md): a header line {"format":"turnwise.trajectories","version":3},
// then one run or episode record per line (schema.ts). Encoding is canonical — fields in the order
// convert.ts builds them, no whitespace — so export → import → export reproduces the same bytes.
// Decoding validates every line with valibot and reports problems by line number and field path.
// Version 3 lines differ from the records in two places, so that every path has one Arrow type for
// pyarrow's JSON reader (`datasets.load_dataset("json")`, schema.ts): each credit annotation lists the
// messages that have a value (`turns`, ascending indices) and those values, instead of one value or
// null per message (the reader drops a list's leading nulls), and `task.hidden`, whose shape is the
// family's and whose values differ in type between tasks (a backend test expects a number in one task
// and a string in another), is JSON text, as in the chat export.
import * as v from 'valibot';
import {
  EpisodeSchema,
  FORMAT_NAME,
  FORMAT_VERSION,
  HeaderSchema,
  LIMITS,
  READABLE_VERSIONS,
  RunSchema,
  type CreditRecord,
  type HeaderRecord,
  type PortableRecord,
} from '../schema.ts';
import { jsonLines, parseJsonLine, type LineEvent } from './lines.ts';

/** One problem with one line. `path` is the field, e.g. "turns[3].reward" ("" for the whole line). */
export interface LineIssue {
  line: number;
  path: string;
  message: string;
}

export type DecodeEvent<T> = { kind: 'record'; line: number; record: T } | { kind: 'issue'; issue: LineIssue };

export interface EncodeProgress {
  records: number;
  bytes: number;
}

export const header = (): HeaderRecord => ({ format: FORMAT_NAME, version: FORMAT_VERSION });

/** One credit annotation as a version 3 line writes it: the messages with a value, and their values. */
export interface CreditLine {
  estimator: string;
  version: string;
  params: CreditRecord['params'];
  /** Indices into the episode's turns (ascending) that have a value. */
  turns: number[];
  values: number[];
  at: number;
}

/** A credit record as a line: its nulls left out (the fields in the record's order, `turns` before `values`). */
export function creditLine(c: CreditRecord): CreditLine {
  const turns: number[] = [];
  const values: number[] = [];
  c.values.forEach((x, i) => {
    if (x === null) return;
    turns.push(i);
    values.push(x);
  });
  return { estimator: c.estimator, version: c.version, params: c.params, turns, values, at: c.at };
}

/** The record a version 3 credit line stands for (values aligned with `turnCount` turns), or why it cannot be. */
export function creditFromLine(x: unknown, turnCount: number): { ok: true; credit: unknown } | { ok: false; path: string; message: string } {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return { ok: true, credit: x }; // valibot reports it
  const { turns, values, ...rest } = x as Record<string, unknown>;
  if (!Array.isArray(turns) || !Array.isArray(values))
    return { ok: false, path: 'turns', message: 'a version 3 credit annotation needs "turns" (message indices) and "values" arrays' };
  if (turns.length !== values.length)
    return { ok: false, path: 'values', message: `"turns" has ${turns.length} entries and "values" ${values.length}; they must pair up` };
  const dense: (number | null)[] = new Array<number | null>(turnCount).fill(null);
  let last = -1;
  for (let k = 0; k < turns.length; k++) {
    const i = turns[k];
    if (!Number.isSafeInteger(i) || (i as number) <= last || (i as number) >= turnCount) {
      return { ok: false, path: `turns[${k}]`, message: `expected ascending message indices below ${turnCount}, got ${JSON.stringify(i)}` };
    }
    last = i as number;
    dense[last] = values[k] as number; // the schema checks that it is a finite number
  }
  const { estimator, version, params, at, ...extra } = rest; // extra fields stay for the schema to refuse
  return { ok: true, credit: { estimator, version, params, values: dense, at, ...extra } };
}

/** A record as our JSONL writes it (version 3: the hidden information as JSON text, credit without nulls). */
export function toLine(r: PortableRecord): unknown {
  return r.type === 'episode' ? { ...r, task: { ...r.task, hidden: JSON.stringify(r.task.hidden) }, credit: r.credit.map(creditLine) } : r;
}

/** Our JSONL, one line per yielded string (each ends in "\n"), header first. */
export async function* encodeTurnwise(
  records: AsyncIterable<PortableRecord> | Iterable<PortableRecord>,
  onProgress?: (p: EncodeProgress) => void,
): AsyncGenerator<string> {
  let bytes = 0;
  let n = 0;
  const first = `${JSON.stringify(header())}\n`;
  bytes += first.length;
  yield first;
  for await (const r of records) {
    const line = `${JSON.stringify(toLine(r))}\n`;
    bytes += line.length;
    n++;
    onProgress?.({ records: n, bytes });
    yield line;
  }
}

/** valibot's issue path as "a.b[2].c". */
export function issuePath(issue: v.BaseIssue<unknown>): string {
  let out = '';
  for (const item of issue.path ?? []) {
    const key = item.key;
    out += typeof key === 'number' ? `[${key}]` : out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** The deepest issue of a union or pipe, whose message names the actual problem. */
function leafIssues(issue: v.BaseIssue<unknown>): v.BaseIssue<unknown>[] {
  if (!issue.issues?.length) return [issue];
  // A union reports one sub-issue per option; the one with the longest path got furthest.
  const best = issue.issues.reduce((a, b) => ((b.path?.length ?? 0) > (a.path?.length ?? 0) ? b : a));
  return leafIssues(best);
}

/** Turns a valibot failure into line issues (at most `max`). */
export function toLineIssues(line: number, issues: readonly v.BaseIssue<unknown>[], max = 5): LineIssue[] {
  const out: LineIssue[] = [];
  for (const top of issues) {
    for (const leaf of leafIssues(top)) {
      if (out.length >= max) return out;
      out.push({ line, path: issuePath(leaf), message: leaf.message });
    }
  }
  return out;
}

const RecordSchema = v.variant('type', [RunSchema, EpisodeSchema]);

/** A version 3 episode line in the record's shape: the hidden information parsed, credit values aligned with the turns. */
function fromLine(x: unknown): { ok: true; value: unknown } | { ok: false; path: string; message: string } {
  if (typeof x !== 'object' || x === null || (x as { type?: unknown }).type !== 'episode') return { ok: true, value: x };
  let e = x as { credit?: unknown; turns?: unknown; task?: unknown };
  const task = e.task as { hidden?: unknown } | null | undefined;
  if (typeof task === 'object' && task !== null && !Array.isArray(task) && 'hidden' in task) {
    if (typeof task.hidden !== 'string') return { ok: false, path: 'task.hidden', message: 'a version 3 line holds the hidden information as JSON text' };
    const parsed = parseJsonLine(task.hidden, LIMITS.maxDepth);
    if (!parsed.ok) return { ok: false, path: 'task.hidden', message: `the hidden information is ${parsed.message}` };
    e = { ...e, task: { ...task, hidden: parsed.value } };
  }
  if (!Array.isArray(e.credit) || !Array.isArray(e.turns)) return { ok: true, value: e }; // valibot reports it
  const credit: unknown[] = [];
  for (const [i, c] of e.credit.entries()) {
    const lifted = creditFromLine(c, e.turns.length);
    if (!lifted.ok) return { ok: false, path: `credit[${i}].${lifted.path}`, message: lifted.message };
    credit.push(lifted.credit);
  }
  return { ok: true, value: { ...e, credit } };
}

/**
 * Validates our JSONL line by line. The first non-blank line must be a header of a version this
 * code reads; blank lines are skipped; a repeated id is an issue. Yields records and issues in line order.
 */
export async function* decodeTurnwise(lines: AsyncIterable<LineEvent>): AsyncGenerator<DecodeEvent<PortableRecord>> {
  let seenHeader = false;
  let version: number = FORMAT_VERSION;
  const ids = new Set<string>();
  for await (const ev of jsonLines(lines, LIMITS.maxDepth)) {
    if (ev.kind === 'bad') {
      yield { kind: 'issue', issue: { line: ev.line, path: '', message: ev.message } };
      if (ev.stage === 'parse') seenHeader = true; // report a broken first line once, then go on validating
      continue;
    }
    if (!seenHeader) {
      seenHeader = true;
      const h = v.safeParse(HeaderSchema, ev.value);
      if (h.success) version = h.output.version;
      else {
        const version = (ev.value as { version?: unknown } | null)?.version;
        const message =
          (ev.value as { format?: unknown } | null)?.format === FORMAT_NAME
            ? `unsupported format version ${String(version)} (this lab reads versions ${READABLE_VERSIONS.join(', ')})`
            : `the first line must be the header {"format":"${FORMAT_NAME}","version":${FORMAT_VERSION}}`;
        yield { kind: 'issue', issue: { line: ev.line, path: '', message } };
      }
      continue;
    }
    let value = ev.value;
    if (version >= 3) {
      const lifted = fromLine(value);
      if (!lifted.ok) {
        yield { kind: 'issue', issue: { line: ev.line, path: lifted.path, message: lifted.message } };
        continue;
      }
      value = lifted.value;
    }
    const r = v.safeParse(RecordSchema, value);
    if (!r.success) {
      for (const issue of toLineIssues(ev.line, r.issues)) yield { kind: 'issue', issue };
      continue;
    }
    const key = `${r.output.type}:${r.output.id}`;
    if (ids.has(key)) {
      yield { kind: 'issue', issue: { line: ev.line, path: 'id', message: `${r.output.type} id "${r.output.id}" appears earlier in the file` } };
      continue;
    }
    ids.add(key);
    yield { kind: 'record', line: ev.line, record: r.output };
  }
  if (!seenHeader) yield { kind: 'issue', issue: { line: 1, path: '', message: 'the file is empty (no header line)' } };
}
