// Chat-messages JSONL: the conversational format TRL reads (`{"messages":[{"role","content"}…]}`,
// https://huggingface.co/docs/trl/dataset_formats), one episode per line, with the episode's reward and
// per-message rewards and credit as extra fields (TRL ignores columns it does not use). Roles map
// agent → assistant, collaborator and env → user, system → system.
import type { EpisodeRecord, PortableRecord, TurnRole } from '../schema.ts';
import type { EncodeProgress } from './turnwise.ts';

export type ChatRole = 'system' | 'user' | 'assistant';

export const chatRole = (role: TurnRole): ChatRole => (role === 'agent' ? 'assistant' : role === 'system' ? 'system' : 'user');

/** One line of the chat export. */
export interface ChatRecord {
  messages: { role: ChatRole; content: string }[];
  id: string;
  task: { family: string; split: 'train' | 'test'; seed: number; options: EpisodeRecord['task']['options'] };
  /** Training-time information the policy never saw (for asymmetric critics). */
  hidden: EpisodeRecord['task']['hidden'];
  /** Episode return (the outcome's total reward; null when unfinished). */
  reward: number | null;
  success: boolean | null;
  /** Reward of each message, index-aligned with `messages`. */
  turn_rewards: number[];
  /** Per-message credit, keyed "estimator@version"; null where the estimator gave none. */
  credit: Record<string, (number | null)[]>;
}

export function toChatRecord(e: EpisodeRecord): ChatRecord {
  const credit: Record<string, (number | null)[]> = {};
  for (const c of e.credit) credit[`${c.estimator}@${c.version}`] = c.values;
  return {
    messages: e.turns.map((t) => ({ role: chatRole(t.role), content: t.text })),
    id: e.id,
    task: { family: e.task.family, split: e.task.split, seed: e.task.seed, options: e.task.options },
    hidden: e.task.hidden,
    reward: e.outcome ? e.outcome.totalReward : null,
    success: e.outcome ? e.outcome.success : null,
    turn_rewards: e.turns.map((t) => t.reward),
    credit,
  };
}

/** The chat JSONL of the episodes among `records` (runs are skipped), one line per yielded string. */
export async function* encodeChat(records: AsyncIterable<PortableRecord> | Iterable<PortableRecord>, onProgress?: (p: EncodeProgress) => void): AsyncGenerator<string> {
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
