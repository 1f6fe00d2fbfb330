// Parquet shaped for veRL (https://verl.readthedocs.io "Prepare Data"): one row per episode with the
// columns veRL's RL dataset reads — data_source, prompt (a list of chat messages: what the agent saw
// before its first turn), ability, reward_model {style, ground_truth}, extra_info {split, index, …} —
// plus `messages`, the whole dialogue, which veRL's multi-turn SFT dataset reads. ground_truth is the
// hidden task information as JSON text; extra_info.options the task's family options as JSON text (a
// different object per family, so text keeps one Parquet type; recipes/verl/prepare_data.py passes
// them to the veRL interaction, e.g. guess's maxTurns). Written with hyparquet-writer in row groups of `rowGroup`
// episodes so only one group of rows is held at a time besides the output bytes.
import { ByteWriter, ParquetWriter, type ColumnSource, type SchemaElement } from 'hyparquet-writer';
import type { EpisodeRecord, PortableRecord } from '../schema.ts';
import { chatRole, type ChatRole } from './chat.ts';
import type { EncodeProgress } from './turnwise.ts';

interface Message {
  role: ChatRole;
  content: string;
}

/** One veRL row, as written and as hyparquet reads it back (INT64 fields are bigint). */
export interface VerlRow {
  data_source: string;
  prompt: Message[];
  ability: string;
  reward_model: { style: string; ground_truth: string };
  extra_info: {
    split: string;
    index: bigint;
    episode_id: string;
    family: string;
    seed: bigint;
    reward: number | null;
    success: boolean | null;
    turns: number;
    options: string;
  };
  messages: Message[];
}

const str = (name: string, repetition: 'REQUIRED' | 'OPTIONAL' = 'REQUIRED'): SchemaElement => ({
  name,
  type: 'BYTE_ARRAY',
  converted_type: 'UTF8',
  repetition_type: repetition,
});

/** A LIST of {role, content} structs, in the standard three-level layout. */
const messageList = (name: string): SchemaElement[] => [
  { name, repetition_type: 'REQUIRED', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  { name: 'element', repetition_type: 'REQUIRED', num_children: 2 },
  str('role'),
  str('content'),
];

export const VERL_SCHEMA: SchemaElement[] = [
  { name: 'root', num_children: 6 },
  str('data_source'),
  ...messageList('prompt'),
  str('ability'),
  { name: 'reward_model', repetition_type: 'REQUIRED', num_children: 2 },
  str('style'),
  str('ground_truth'),
  { name: 'extra_info', repetition_type: 'REQUIRED', num_children: 9 },
  str('split'),
  { name: 'index', type: 'INT64', repetition_type: 'REQUIRED' },
  str('episode_id'),
  str('family'),
  { name: 'seed', type: 'INT64', repetition_type: 'REQUIRED' },
  { name: 'reward', type: 'DOUBLE', repetition_type: 'OPTIONAL' },
  { name: 'success', type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
  { name: 'turns', type: 'INT32', repetition_type: 'REQUIRED' },
  str('options'),
  ...messageList('messages'),
];

export function toVerlRow(e: EpisodeRecord, index: number): VerlRow {
  const messages = e.turns.map((t) => ({ role: chatRole(t.role), content: t.text }));
  const firstAgent = e.turns.findIndex((t) => t.role === 'agent');
  return {
    data_source: `turnwise/${e.task.family}`,
    prompt: firstAgent === -1 ? messages : messages.slice(0, firstAgent),
    ability: e.task.family,
    reward_model: { style: 'rule', ground_truth: JSON.stringify(e.task.hidden) },
    extra_info: {
      split: e.task.split,
      index: BigInt(index),
      episode_id: e.id,
      family: e.task.family,
      seed: BigInt(e.task.seed),
      reward: e.outcome ? e.outcome.totalReward : null,
      success: e.outcome ? e.outcome.success : null,
      turns: e.outcome ? e.outcome.turns : e.turns.filter((t) => t.role === 'agent').length,
      options: JSON.stringify(e.task.options),
    },
    messages,
  };
}

function columns(rows: VerlRow[]): ColumnSource[] {
  const col = <K extends keyof VerlRow>(name: K): ColumnSource => ({ name, data: rows.map((r) => r[name]) });
  return [col('data_source'), col('prompt'), col('ability'), col('reward_model'), col('extra_info'), col('messages')];
}

/** Parquet bytes of the episodes among `records` (runs skipped). */
export async function encodeVerlParquet(
  records: AsyncIterable<PortableRecord> | Iterable<PortableRecord>,
  opts: { rowGroup?: number; onProgress?: (p: EncodeProgress) => void } = {},
): Promise<Uint8Array> {
  const rowGroup = opts.rowGroup ?? 1000;
  const writer = new ByteWriter();
  const pq = new ParquetWriter({ writer, schema: VERL_SCHEMA, createdBy: 'turnwise', kvMetadata: [{ key: 'turnwise.format', value: 'verl-multiturn/1' }] });
  let batch: VerlRow[] = [];
  let n = 0;
  const flush = async () => {
    if (!batch.length) return;
    await pq.write({ columnData: columns(batch), rowGroupSize: batch.length });
    batch = [];
    opts.onProgress?.({ records: n, bytes: writer.offset });
  };
  for await (const r of records) {
    if (r.type !== 'episode') continue;
    batch.push(toVerlRow(r, n++));
    if (batch.length >= rowGroup) await flush();
  }
  await flush();
  pq.finish();
  return new Uint8Array(writer.getBuffer());
}
