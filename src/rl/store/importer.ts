// Import: validate a whole file first (streamed: bounded memory, stops after the first N problems),
// then write every record in one transaction — all or nothing. Problems are reported by line number
// and field path. Used by the lab's import dialog (with a TrajectoryStore) and by
// `turnwise import --check` (validation only), so both accept exactly the same files.
import type { PortableRecord } from './schema.ts';
import { readLines, type ByteSource, type LineEvent, type ReadProgress } from './formats/lines.ts';
import { decodeTurnwise, type DecodeEvent, type LineIssue } from './formats/turnwise.ts';
import { decodeSweet } from './formats/sweet.ts';
import { arrayLines, detectLine, FORMAT_LABEL, opensArray, type ImportFormat } from './formats/detect.ts';
import type { ImportOptions, ImportResult } from './api.ts';

export type { ImportFormat };

export interface ValidateOptions {
  /** The file's format; 'auto' (the default) detects it from the first line (formats/detect.ts). */
  format?: ImportFormat | 'auto';
  /** Shown as the episodes' origin; SWEET-RL episode ids are "<source>#<line>". */
  source: string;
  /** Stop after this many problems (default 100). */
  maxErrors?: number;
  /** Longest accepted line in bytes (default 64 MiB). */
  maxLineBytes?: number;
  /** Keep the validated records for importing (default false: check only, constant memory). */
  collect?: boolean;
  /** Most records one import may hold (default 1,000,000); larger files must be split. */
  maxRecords?: number;
  /** Time stamped on SWEET-RL episodes (default Date.now()). */
  now?: number;
  /** SWEET-RL only: family and split of the imported tasks. */
  family?: string;
  split?: 'train' | 'test';
  /** Largest JSON array file read whole (default 256 MiB); JSONL has no such bound. */
  maxArrayBytes?: number;
  onProgress?: (p: ReadProgress & { records: number; errors: number }) => void;
}

export interface ValidationReport {
  ok: boolean;
  /** The format read (the detected one with format 'auto'); null when none could be told. */
  format: ImportFormat | null;
  /** How the format was chosen, in words: "given" or what detection saw, e.g. "SWEET-RL / ColBench JSONL (line 1 has task and dialogue_history)". */
  detected: string;
  /** Lines read (all of them unless stoppedEarly). */
  lines: number;
  bytes: number;
  counts: { runs: number; episodes: number; turns: number };
  errors: LineIssue[];
  /** Checking stopped at maxErrors (or maxRecords) before the end of the file. */
  stoppedEarly: boolean;
}

/** The events already read (`head`) and then the rest of the stream, as one stream. */
async function* rejoin(head: readonly LineEvent[], rest?: AsyncIterator<LineEvent>): AsyncGenerator<LineEvent> {
  yield* head;
  if (rest) for (let n = await rest.next(); !n.done; n = await rest.next()) yield n.value;
}

/**
 * The decoded records and issues of a file in any import format: the given one, or (format 'auto')
 * the one its first non-blank line shows. `onDetect` hears the choice before the first event.
 */
export async function* decodeAny(
  lines: AsyncIterable<LineEvent>,
  opts: Pick<ValidateOptions, 'format' | 'source' | 'now' | 'family' | 'split' | 'maxArrayBytes'> & {
    onDetect?: (d: { format: ImportFormat | null; message: string }) => void;
  },
): AsyncGenerator<DecodeEvent<PortableRecord>> {
  const it = lines[Symbol.asyncIterator]();
  try {
    yield* decodeFrom(it, opts);
  } finally {
    await it.return?.(); // however decoding ended (done, undetected, stopped early), the reader is closed
  }
}

async function* decodeFrom(it: AsyncIterator<LineEvent>, opts: Parameters<typeof decodeAny>[1]): AsyncGenerator<DecodeEvent<PortableRecord>> {
  const head: LineEvent[] = [];
  let first: LineEvent | undefined;
  for (let n = await it.next(); !n.done; n = await it.next()) {
    head.push(n.value);
    if (n.value.kind === 'error' || n.value.text.trim() !== '') {
      first = n.value;
      break;
    }
  }
  let body: AsyncIterable<LineEvent> = rejoin(head, it);
  let format: ImportFormat;
  const given = opts.format ?? 'auto';
  if (given !== 'auto' && !opensArray(first)) {
    format = given;
    opts.onDetect?.({ format, message: `${FORMAT_LABEL[format]} (as given)` });
  } else {
    let d;
    if (opensArray(first)) {
      const a = await arrayLines(body, opts.maxArrayBytes ?? 256 * 1024 * 1024);
      d = a.detection;
      body = rejoin(a.lines);
    } else d = detectLine(first);
    if (d.format !== null && given !== 'auto' && d.format !== given)
      d = { format: null, line: 1, message: `--format ${given} was given, but the file is ${d.message}` };
    opts.onDetect?.({ format: d.format, message: d.message });
    if (d.format === null) {
      yield { kind: 'issue', issue: { line: d.line, path: '', message: d.message } };
      return;
    }
    format = d.format;
  }
  yield* format === 'turnwise'
    ? decodeTurnwise(body)
    : decodeSweet(body, { idPrefix: opts.source, family: opts.family, split: opts.split, now: opts.now ?? Date.now() });
}

/** Validates a file; with `collect`, also returns its records when (and only when) all are valid. */
export async function validateImport(source: ByteSource, opts: ValidateOptions): Promise<{ report: ValidationReport; records: PortableRecord[] | null }> {
  const maxErrors = opts.maxErrors ?? 100;
  const maxRecords = opts.maxRecords ?? 1_000_000;
  let progress: ReadProgress = { bytes: 0, lines: 0 };
  const report: ValidationReport = {
    ok: false,
    format: null,
    detected: '',
    lines: 0,
    bytes: 0,
    counts: { runs: 0, episodes: 0, turns: 0 },
    errors: [],
    stoppedEarly: false,
  };
  let records: PortableRecord[] | null = opts.collect ? [] : null;
  const lines = readLines(source, {
    maxLineBytes: opts.maxLineBytes,
    onProgress: (p) => {
      progress = p;
      opts.onProgress?.({ ...p, records: report.counts.runs + report.counts.episodes, errors: report.errors.length });
    },
  });
  const events = decodeAny(lines, {
    ...opts,
    onDetect: (d) => {
      report.format = d.format;
      report.detected = d.message;
    },
  });
  for await (const ev of events) {
    if (ev.kind === 'issue') {
      report.errors.push(ev.issue);
      records = null; // nothing will be imported: free what was held
      if (report.errors.length >= maxErrors) {
        report.stoppedEarly = true;
        break; // closes the decoder, the line reader and the source
      }
      continue;
    }
    const r = ev.record;
    if (r.type === 'run') report.counts.runs++;
    else {
      report.counts.episodes++;
      report.counts.turns += r.turns.length;
    }
    if (report.counts.runs + report.counts.episodes > maxRecords) {
      report.errors.push({ line: ev.line, path: '', message: `more than ${maxRecords} records in one import; split the file` });
      report.stoppedEarly = true;
      records = null;
      break;
    }
    records?.push(r);
  }
  report.lines = progress.lines;
  report.bytes = progress.bytes;
  report.ok = report.errors.length === 0;
  return { report, records: report.ok ? records : null };
}

/** Where validated records go: a TrajectoryStore (or anything with its importRecords). */
export interface ImportTarget {
  importRecords(records: readonly PortableRecord[], options: ImportOptions): Promise<ImportResult>;
}

/** Validates the whole file, then imports it in one transaction; imports nothing if any line is invalid. */
export async function importFile(
  target: ImportTarget,
  source: ByteSource,
  opts: ValidateOptions & { onConflict?: ImportOptions['onConflict'] },
): Promise<{ report: ValidationReport; result: ImportResult | null }> {
  const { report, records } = await validateImport(source, { ...opts, collect: true });
  if (!report.ok || !records) return { report, result: null };
  const result = await target.importRecords(records, { source: opts.source, onConflict: opts.onConflict });
  return { report, result };
}
