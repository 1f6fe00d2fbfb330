// The export formats behind one call: records in (from TrajectoryStore.exportRecords or a decoded
// JSONL file), byte chunks out, so the browser can stream them into a Blob or file handle and the CLI
// into a file. Adapters are exported separately: PEFT (adapter_model.safetensors +
// adapter_config.json) from an AdapterRow (db.ts) belongs in formats/peft.ts, written with the
// adapter-training issue.
import type { PortableRecord } from '../schema.ts';
import { encodeChatJsonl } from './chat.ts';
import { encodeSweet } from './sweet.ts';
import { encodeTurnwise, type EncodeProgress } from './turnwise.ts';
import { encodeVerlParquet } from './verl.ts';
import { encodeDpo, encodeTurnDpo, noPairsReason, type PairingSummary } from './preference.ts';

export type ExportFormat = 'jsonl' | 'chat' | 'sweet' | 'parquet' | 'dpo' | 'turn-dpo';

export const EXPORT_FORMATS: Record<ExportFormat, { extension: string; mime: string; description: string }> = {
  jsonl: { extension: '.turnwise.jsonl', mime: 'application/x-ndjson', description: 'Turnwise JSONL: everything, versioned; re-importable' },
  chat: { extension: '.chat.jsonl', mime: 'application/x-ndjson', description: 'chat messages (TRL conversational) with reward and credit' },
  sweet: { extension: '.sweet.jsonl', mime: 'application/x-ndjson', description: 'SWEET-RL / ColBench trajectory records' },
  parquet: { extension: '.parquet', mime: 'application/vnd.apache.parquet', description: 'Parquet with veRL multi-turn columns' },
  dpo: { extension: '.dpo.jsonl', mime: 'application/x-ndjson', description: 'TRL preference pairs (prompt/chosen/rejected), episode level' },
  'turn-dpo': { extension: '.turn-dpo.jsonl', mime: 'application/x-ndjson', description: 'TRL preference pairs per agent turn (SWEET-RL turn-level DPO)' },
};

export const isExportFormat = (s: string): s is ExportFormat => Object.hasOwn(EXPORT_FORMATS, s);

/** True for the formats whose lines are pairs formed from several episodes (they can be empty when no pair forms). */
export const isPairFormat = (f: ExportFormat): f is 'dpo' | 'turn-dpo' => f === 'dpo' || f === 'turn-dpo';

export interface EncodeExportOptions {
  onProgress?: (p: EncodeProgress) => void;
  /** dpo and turn-dpo: what pairing saw, before the first chunk (noPairsReason says why none formed). */
  onPairing?: (s: PairingSummary) => void;
  chunkBytes?: number;
}

/** Encodes `records` in `format` as UTF-8 byte chunks of about `chunkBytes` (Parquet: one chunk at the end). */
export async function* encodeExport(
  format: ExportFormat,
  records: AsyncIterable<PortableRecord> | Iterable<PortableRecord>,
  opts: EncodeExportOptions = {},
): AsyncGenerator<Uint8Array> {
  if (format === 'parquet') {
    yield await encodeVerlParquet(records, { onProgress: opts.onProgress });
    return;
  }
  const lines = isPairFormat(format)
    ? (format === 'dpo' ? encodeDpo : encodeTurnDpo)(records, opts.onProgress, { onSummary: opts.onPairing })
    : { jsonl: encodeTurnwise, chat: encodeChatJsonl, sweet: encodeSweet }[format](records, opts.onProgress);
  const encoder = new TextEncoder();
  const chunkChars = opts.chunkBytes ?? 1 << 20;
  let pending: string[] = [];
  let size = 0;
  for await (const line of lines) {
    pending.push(line);
    size += line.length;
    if (size >= chunkChars) {
      yield encoder.encode(pending.join(''));
      pending = [];
      size = 0;
    }
  }
  if (pending.length) yield encoder.encode(pending.join(''));
}

export { encodeChatJsonl, encodeDpo, encodeSweet, encodeTurnDpo, encodeTurnwise, encodeVerlParquet, noPairsReason, type PairingSummary };
