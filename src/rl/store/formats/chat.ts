// Chat-messages JSONL: the conversational format TRL reads (`{"messages":[{"role","content"}…]}`,
// https://huggingface.co/docs/trl/dataset_formats), one episode per line, with the episode's reward and
// per-message rewards and credit as extra fields (TRL ignores columns it does not use). Roles map
// agent → assistant, collaborator and env → user, system → system.
// Every column has one Arrow type across all lines, because `datasets.load_dataset('json')` reads the
// file with pyarrow's JSON reader, which infers one schema per block and fails on free-form values
// (a family's options or hidden information are differently shaped objects in every family) and on
// `null` inside numeric lists ("Length spanned by list offsets … larger than values array"). So the
// free-form parts are JSON text, and credit lists only the messages that have a value: no nulls.
import type { EpisodeRecord, PortableRecord, MessageRole } from '../schema.ts';
import type { EncodeProgress } from './turnwise.ts';

export type ChatRole = 'system' | 'user' | 'assistant';

export const chatRole = (role: MessageRole): ChatRole => (role === 'agent' ? 'assistant' : role === 'system' ? 'system' : 'user');

/** One estimator's credit on one episode: the messages it gave a value (ascending) and those values. */
export interface ChatCredit {
  /** "estimator@version", e.g. "sweet@critic-2". */
  name: string;
  /** Its parameters as JSON text (one type for every estimator), e.g. SWEET-RL's '{"beta":1,"centre":8}': centred over K = 8 candidates. */
  params: string;
  /** Indices into `messages` (agent messages, for the lab's estimators). */
  messages: number[];
  values: number[];
}

/** One line of the chat export. */
export interface ChatRecord {
  messages: { role: ChatRole; content: string }[];
  id: string;
  /** The task's identity; `options` (the family options, a different object per family) as JSON text. */
  task: { family: string; split: 'train' | 'test'; seed: number; options: string };
  /** Training-time information the policy never saw (for asymmetric critics), as JSON text. */
  hidden: string;
  /** Episode return (the outcome's total reward; null when unfinished). */
  reward: number | null;
  success: boolean | null;
  /** Reward of each message, index-aligned with `messages`. */
  turn_rewards: number[];
  /** Per-estimator credit, messages without a value left out (a list, so any estimator set has one type). */
  credit: ChatCredit[];
}

export function toChatRecord(e: EpisodeRecord): ChatRecord {
  const credit = e.credit.map((c): ChatCredit => {
    const messages: number[] = [];
    const values: number[] = [];
    c.values.forEach((x, i) => {
      if (x === null) return;
      messages.push(i);
      values.push(x);
    });
    return { name: `${c.estimator}@${c.version}`, params: JSON.stringify(c.params ?? {}), messages, values };
  });
  return {
    messages: e.turns.map((t) => ({ role: chatRole(t.role), content: t.text })),
    id: e.id,
    task: { family: e.task.family, split: e.task.split, seed: e.task.seed, options: JSON.stringify(e.task.options) },
    hidden: JSON.stringify(e.task.hidden),
    reward: e.outcome ? e.outcome.totalReward : null,
    success: e.outcome ? e.outcome.success : null,
    turn_rewards: e.turns.map((t) => t.reward),
    credit,
  };
}

/** The chat JSONL of the episodes among `records` (runs are skipped), one line per yielded string. */
export async function* encodeChatJsonl(
  records: AsyncIterable<PortableRecord> | Iterable<PortableRecord>,
  onProgress?: (p: EncodeProgress) => void,
): AsyncGenerator<string> {
  let n = 0;
  let bytes = 0;
  for await (const r of records) {
    if (r.type !== 'episode') continue;
    const line = `${JSON.stringify(toChatRecord(r))}\n`;
    bytes += line.length;
    onProgress?.({ records: ++n, bytes });
    yield line;
  }
}
