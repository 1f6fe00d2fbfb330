// config.json's "turnwise" section as typed model metadata, checked once where a model folder is read
// (llama/config.ts fromHfConfig → parseModelMeta): what a model was forged for travels with it, so the engine, the rollout loop, the UI
// and the CLI read it from the loaded model instead of from the forge's build-time defaults.
//   contextTokens   the sliding window the forge trained on (model/tokenizer/dialogue.ts windowIds)
//   maxReplyTokens  the reply budget per agent turn
//   tasks           per family, the task options the model learned (e.g. guess: 4 candidates, T = 4),
//                   so Play, training and evaluation pose the tasks it can take
//   chat            how a dialogue becomes the chat (the layout dialogue.ts toChat implements)
//   keepAnswered    the window also keeps the agent turn its first kept reply answers (dialogue.ts windowIds)
// Other fields (forge figures, export notes) are kept as they are, for reports.
import type { JsonObject } from '../envs/types.ts';

/** The "turnwise" section of config.json. */
export interface ModelMeta {
  /** What the forge made this model for. */
  role?: 'policy' | 'critic';
  /** Context window in tokens (prompt + recent turns + reply) the model was trained on; default maxSeq. */
  contextTokens?: number;
  /** Longest reply in tokens; default DEFAULT_REPLY_TOKENS. */
  maxReplyTokens?: number;
  /** Families the model was forged on. */
  families?: string[];
  /** Task options by family, as forged; a family without an entry plays with its defaults. */
  tasks?: Record<string, JsonObject>;
  /** The chat layout, in words. */
  chat?: string;
  /** Whether the forge trained on windows that keep the agent turn a cut window's first reply answers (dialogue.ts windowIds); default false. */
  keepAnswered?: boolean;
  /** Anything else the forge or an export recorded (figures, commands). */
  [field: string]: unknown;
}

/** How one family went at the forge's held-out check (config.json "turnwise".heldOut), success in [0, 1]. */
export interface ForgedRecord {
  episodes: number;
  /** The policy sampling at temperature 1, and greedy. */
  sampled: number;
  greedy: number | null;
  /** The noisy expert the policy imitated, when it was measured. */
  noisy: number | null;
}

/**
 * The forge's held-out figures for `family`, or null when the metadata has none: what the policy
 * managed there when it was made, so a person choosing it is told before playing (issue 49).
 */
export function forgedRecord(meta: ModelMeta | undefined, family: string): ForgedRecord | null {
  const rows = Array.isArray(meta?.heldOut) ? (meta.heldOut as unknown[]) : [];
  const rate = (agent: string) => {
    const r = rows.find(
      (x): x is { family: string; agent: string; episodes: number; successRate: number } =>
        typeof x === 'object' && x !== null && (x as { family?: unknown }).family === family && (x as { agent?: unknown }).agent === agent,
    );
    return r && typeof r.successRate === 'number' && typeof r.episodes === 'number' ? r : null;
  };
  const sampled = rate('policy-sampled');
  if (!sampled) return null;
  return {
    episodes: sampled.episodes,
    sampled: sampled.successRate,
    greedy: rate('policy-greedy')?.successRate ?? null,
    noisy: rate('noisy')?.successRate ?? null,
  };
}

/** Reply budget when a model's metadata names none. */
export const DEFAULT_REPLY_TOKENS = 64;

/** The task options `meta` was forged on for `family`, or undefined (play with the family's defaults). */
export function taskOptions(meta: ModelMeta | undefined, family: string): JsonObject | undefined {
  return meta?.tasks?.[family];
}

/** The model's context window in tokens: its forged window, never past its positions (maxSeq). */
export function contextTokens(meta: ModelMeta | undefined, maxSeq: number): number {
  return Math.min(maxSeq, meta?.contextTokens ?? maxSeq);
}

/** Whether the model's windows keep the agent turn their first reply answers (dialogue.ts windowIds). */
export function keepsAnswered(meta: ModelMeta | undefined): boolean {
  return meta?.keepAnswered === true;
}

/** The model's reply budget in tokens. */
export function replyTokens(meta: ModelMeta | undefined): number {
  return meta?.maxReplyTokens ?? DEFAULT_REPLY_TOKENS;
}
