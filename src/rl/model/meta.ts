// config.json's "turnwise" section as typed model metadata, checked once where a model folder is read
// (llama/config.ts fromHfConfig → parseModelMeta): what a model was forged for travels with it, so the engine, the rollout loop, the UI
// and the CLI read it from the loaded model instead of from the forge's build-time defaults.
//   contextTokens   the sliding window the forge trained on (model/tokenizer/dialogue.ts windowIds)
//   maxReplyTokens  the reply budget per agent turn
//   tasks           per family, the task options the model learned (e.g. guess: 4 candidates, T = 4),
//                   so Play, training and evaluation pose the tasks it can take
//   chat            how a dialogue becomes the chat (the layout dialogue.ts toChat implements)
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
  /** Anything else the forge or an export recorded (figures, commands). */
  [field: string]: unknown;
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

/** The model's reply budget in tokens. */
export function replyTokens(meta: ModelMeta | undefined): number {
  return meta?.maxReplyTokens ?? DEFAULT_REPLY_TOKENS;
}
