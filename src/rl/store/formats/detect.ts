// Which importable format a file is, from its first non-blank line: Turnwise JSONL (a header line
// {"format":"turnwise.trajectories",…}, or run/episode records without one, which the decoder then
// reports), SWEET-RL / ColBench JSONL ({task, dialogue_history, …} per line), or a JSON array of
// either — SWEET-RL's own scripts save trajectory lists with json.dump. An array is read whole
// (bounded by maxArrayBytes) and its elements become numbered lines, so every decoder, check and error
// message works unchanged; the numbers are then element numbers, which the detection message says.
import { FORMAT_NAME, FORMAT_VERSION, LIMITS } from '../schema.ts';
import { parseJsonLine, type LineEvent } from './lines.ts';
import { isPlainObject } from '../../util/json.ts';

/** The formats import reads. */
export type ImportFormat = 'turnwise' | 'sweet';

/** What detection found: the format, how records are laid out, and a sentence saying why. */
export interface Detection {
  format: ImportFormat;
  container: 'jsonl' | 'json-array';
  /** e.g. "SWEET-RL / ColBench JSONL (line 1 has task and dialogue_history)". */
  message: string;
}

/** Why a file is not importable before any record is read: empty, or no format recognised. */
export interface Undetected {
  format: null;
  line: number;
  message: string;
}

/** The formats' names in messages. */
export const FORMAT_LABEL: Record<ImportFormat, string> = { turnwise: 'Turnwise JSONL', sweet: 'SWEET-RL / ColBench JSONL' };

/**
 * Why a record of one of the lab's export-only formats cannot be imported (chat messages for TRL,
 * preference pairs for DPO), or null: they drop what an episode needs (the task's seed, hidden
 * information, each turn's reward), so the lab says which export to import instead.
 */
function exportOnly(x: unknown): string | null {
  if (!isPlainObject(x)) return null;
  const what = 'messages' in x ? 'chat-messages JSONL (for TRL)' : 'chosen' in x && 'rejected' in x ? 'preference pairs (for DPO)' : null;
  return (
    what &&
    `${what}, a format the lab exports but cannot import back: it leaves out the task and each turn's reward. Import the Turnwise JSONL export of the same episodes instead`
  );
}

/** The format of one parsed record, or null when it is neither ours nor SWEET-RL's. */
function formatOf(x: unknown): { format: ImportFormat; why: string } | null {
  if (!isPlainObject(x)) return null;
  if ('format' in x) return { format: 'turnwise', why: x.format === FORMAT_NAME ? 'a Turnwise header' : 'a "format" field' };
  if (x.type === 'run' || x.type === 'episode') return { format: 'turnwise', why: `a ${x.type} record` };
  if ('dialogue_history' in x) return { format: 'sweet', why: 'task and dialogue_history' };
  return null;
}

const EXPECTED = `expected a Turnwise header {"format":"${FORMAT_NAME}","version":${FORMAT_VERSION}}, a SWEET-RL record {"task":…,"dialogue_history":[…]}, or a JSON array of SWEET-RL records`;

/** Detects the format of JSONL from its first non-blank line (already known not to open an array). */
export function detectLine(first: LineEvent | undefined): Detection | Undetected {
  if (first === undefined) return { format: null, line: 1, message: 'the file is empty: nothing to import' };
  if (first.kind === 'error') return { format: null, line: first.line, message: `cannot tell the format: ${first.message}` };
  const parsed = parseJsonLine(first.text, LIMITS.maxDepth);
  if (!parsed.ok) return { format: null, line: first.line, message: `cannot tell the format: line ${first.line} is ${parsed.message}; ${EXPECTED}` };
  const f = formatOf(parsed.value);
  const only = exportOnly(parsed.value);
  if (!f && only) return { format: null, line: first.line, message: `line ${first.line} is ${only}` };
  if (!f) return { format: null, line: first.line, message: `cannot tell the format of line ${first.line}: ${EXPECTED}` };
  return { format: f.format, container: 'jsonl', message: `${FORMAT_LABEL[f.format]} (line ${first.line} has ${f.why})` };
}

/** True when a file's first non-blank line opens a JSON array. */
export const opensArray = (first: LineEvent | undefined): boolean => first?.kind === 'line' && first.text.trimStart().startsWith('[');

/**
 * Reads a JSON array file whole and returns its elements as numbered lines (element k = line k), with
 * the format of its first element; an empty array, or one whose elements are not records, is undetected.
 */
export async function arrayLines(lines: AsyncIterable<LineEvent>, maxArrayBytes: number): Promise<{ detection: Detection | Undetected; lines: LineEvent[] }> {
  const parts: string[] = [];
  let size = 0;
  for await (const ev of lines) {
    if (ev.kind === 'error') return { detection: { format: null, line: ev.line, message: `a JSON array file: line ${ev.line}: ${ev.message}` }, lines: [] };
    size += ev.text.length + 1;
    if (size > maxArrayBytes)
      return {
        detection: {
          format: null,
          line: ev.line,
          message: `a JSON array longer than ${maxArrayBytes} bytes: convert it to JSONL (one record per line) to import it`,
        },
        lines: [],
      };
    parts.push(ev.text);
  }
  // One level more than a line allows: the array itself.
  const parsed = parseJsonLine(parts.join('\n'), LIMITS.maxDepth + 1);
  if (!parsed.ok || !Array.isArray(parsed.value))
    return {
      detection: { format: null, line: 1, message: `the file opens a JSON array but is not one (${parsed.ok ? 'not an array' : parsed.message})` },
      lines: [],
    };
  const items = parsed.value as unknown[];
  if (items.length === 0) return { detection: { format: null, line: 1, message: 'the file is an empty JSON array: nothing to import' }, lines: [] };
  const f = formatOf(items[0]);
  if (!f) return { detection: { format: null, line: 1, message: `cannot tell the format of the array's first element: ${EXPECTED}` }, lines: [] };
  return {
    detection: {
      format: f.format,
      container: 'json-array',
      message: `a JSON array of ${items.length} ${f.format === 'sweet' ? 'SWEET-RL / ColBench records' : 'Turnwise records'} (element 1 has ${f.why}); line numbers below are element numbers`,
    },
    lines: items.map((x, i): LineEvent => ({ kind: 'line', line: i + 1, text: JSON.stringify(x) })),
  };
}
