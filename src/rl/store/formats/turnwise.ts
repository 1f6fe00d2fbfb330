// Our own JSONL (docs/data-formats.md): a header line {"format":"turnwise.trajectories","version":2},
// then one run or episode record per line (schema.ts). Encoding is canonical — fields in the order
// convert.ts builds them, no whitespace — so export → import → export reproduces the same bytes.
// Decoding validates every line with valibot and reports problems by line number and field path.
import * as v from 'valibot';
import { EpisodeSchema, FORMAT_NAME, FORMAT_VERSION, HeaderSchema, LIMITS, READABLE_VERSIONS, RunSchema, type HeaderRecord, type PortableRecord } from '../schema.ts';
import { jsonLines, type LineEvent } from './lines.ts';

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

/** Our JSONL, one line per yielded string (each ends in "\n"), header first. */
export async function* encodeTurnwise(records: AsyncIterable<PortableRecord> | Iterable<PortableRecord>, onProgress?: (p: EncodeProgress) => void): AsyncGenerator<string> {
  let bytes = 0;
  let n = 0;
  const first = `${JSON.stringify(header())}\n`;
  bytes += first.length;
  yield first;
  for await (const r of records) {
    const line = `${JSON.stringify(r)}\n`;
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

/**
 * Validates our JSONL line by line. The first non-blank line must be a header of a version this
 * code reads; blank lines are skipped; a repeated id is an issue. Yields records and issues in line order.
 */
export async function* decodeTurnwise(lines: AsyncIterable<LineEvent>): AsyncGenerator<DecodeEvent<PortableRecord>> {
  let seenHeader = false;
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
      if (!h.success) {
        const version = (ev.value as { version?: unknown } | null)?.version;
        const message =
          (ev.value as { format?: unknown } | null)?.format === FORMAT_NAME
            ? `unsupported format version ${String(version)} (this lab reads versions ${READABLE_VERSIONS.join(', ')})`
            : `the first line must be the header {"format":"${FORMAT_NAME}","version":${FORMAT_VERSION}}`;
        yield { kind: 'issue', issue: { line: ev.line, path: '', message } };
      }
      continue;
    }
    const r = v.safeParse(RecordSchema, ev.value);
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
