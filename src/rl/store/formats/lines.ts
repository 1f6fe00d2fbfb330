// Streaming JSON-lines input, shared by every importer: bytes in (a browser File's stream, a Node
// read stream, or a string), numbered lines out, with bounded memory — a line longer than the limit
// is skipped without being buffered, invalid UTF-8 and over-deep nesting are reported per line
// rather than thrown — so no input, however broken or large, can crash the page.

/** Bytes from anywhere: `file.stream()`, `fs.createReadStream(path)`, `textSource(text)`. */
export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export type LineEvent = { kind: 'line'; line: number; text: string } | { kind: 'error'; line: number; message: string };

export interface ReadProgress {
  bytes: number;
  lines: number;
}

export interface ReadLinesOptions {
  /** Longest accepted line in bytes (default 64 MiB). */
  maxLineBytes?: number;
  /** Called after each chunk read. */
  onProgress?: (p: ReadProgress) => void;
}

const NEWLINE = 0x0a;

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Splits a byte stream at "\n" (dropping a trailing "\r" and a leading BOM) into decoded lines, numbered from 1. */
export async function* readLines(source: ByteSource, opts: ReadLinesOptions = {}): AsyncGenerator<LineEvent> {
  const max = opts.maxLineBytes ?? 64 * 1024 * 1024;
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let parts: Uint8Array[] = [];
  let length = 0;
  let tooLong = false;
  let line = 0;
  let bytes = 0;

  function finish(): LineEvent {
    line++;
    const event: LineEvent = tooLong ? { kind: 'error', line, message: `line is longer than ${max} bytes` } : decode(concat(parts, length));
    parts = [];
    length = 0;
    tooLong = false;
    return event;
  }

  function decode(b: Uint8Array): LineEvent {
    let end = b.length;
    if (end > 0 && b[end - 1] === 0x0d) end--;
    let start = 0;
    if (line === 1 && end >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) start = 3;
    try {
      return { kind: 'line', line, text: decoder.decode(b.subarray(start, end)) };
    } catch {
      return { kind: 'error', line, message: 'line is not valid UTF-8' };
    }
  }

  for await (const chunk of source) {
    bytes += chunk.length;
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, from);
      const end = nl === -1 ? chunk.length : nl;
      if (!tooLong) {
        if (length + (end - from) > max) {
          tooLong = true;
          parts = [];
          length = 0;
        } else if (end > from) {
          // Copy: the source may reuse its chunk buffers.
          parts.push(chunk.slice(from, end));
          length += end - from;
        }
      }
      if (nl === -1) break;
      yield finish();
      from = nl + 1;
    }
    opts.onProgress?.({ bytes, lines: line });
  }
  if (length > 0 || tooLong) yield finish();
  opts.onProgress?.({ bytes, lines: line });
}

/** A string as a byte source, in 64 KiB chunks. */
export function* textSource(text: string, chunkChars = 65536): Generator<Uint8Array> {
  const encoder = new TextEncoder();
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + chunkChars);
    // Never split a surrogate pair between chunks.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    yield encoder.encode(text.slice(start, end));
    start = end;
  }
}

/** The deepest nesting of objects/arrays in JSON text, found without parsing (stops once past `limit`). */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

export type ParsedLine = { ok: true; value: unknown } | { ok: false; message: string };

/** JSON.parse with the nesting bounded first, so that validation (recursive) can never overflow the stack. */
export function parseJsonLine(text: string, maxDepth: number): ParsedLine {
  if (jsonDepth(text, maxDepth) > maxDepth) return { ok: false, message: `JSON nested deeper than ${maxDepth} levels` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, message: `not valid JSON (${(e as Error).message})` };
  }
}

/** A non-blank line parsed as JSON, or why it could not be read (too long, not UTF-8) or parsed. */
export type JsonLineEvent = { kind: 'json'; line: number; value: unknown } | { kind: 'bad'; stage: 'read' | 'parse'; line: number; message: string };

/** The JSON value of every non-blank line (depth-bounded by parseJsonLine); read errors and bad JSON as 'bad'. */
export async function* jsonLines(lines: AsyncIterable<LineEvent>, maxDepth: number): AsyncGenerator<JsonLineEvent> {
  for await (const ev of lines) {
    if (ev.kind === 'error') {
      yield { kind: 'bad', stage: 'read', line: ev.line, message: ev.message };
      continue;
    }
    if (ev.text.trim() === '') continue;
    const parsed = parseJsonLine(ev.text, maxDepth);
    yield parsed.ok ? { kind: 'json', line: ev.line, value: parsed.value } : { kind: 'bad', stage: 'parse', line: ev.line, message: parsed.message };
  }
}

/** Joins an async stream of strings (e.g. an encoder's lines) into one string. */
export async function collectText(chunks: AsyncIterable<string>): Promise<string> {
  const parts: string[] = [];
  for await (const c of chunks) parts.push(c);
  return parts.join('');
}
