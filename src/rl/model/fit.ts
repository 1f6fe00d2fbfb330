// Whether a loaded policy can take a task (issue 18): its opening prompt plus the reply it reserves
// must fit the context window it was forged on (model/tokenizer/dialogue.ts windowIds keeps the
// prompt whole, so a prompt that does not fit fails in the engine: "prompt 0 has 371 tokens; a prompt
// may have at most 255"). Play, the Train view and the CLI ask this before any work, from the loaded
// model's metadata (meta.ts) — never from a list of families — so a policy re-forged with a longer
// context takes the tasks that now fit. A family the policy was not forged on fits but is reported,
// so callers may prefer a scripted agent there.
import { CodedError } from '../util/errors.ts';
import { contextTokens, replyTokens, type ModelMeta } from './meta.ts';

/** What a loaded policy can take, from its metadata. */
export interface PolicyLimits {
  /** The context window in tokens (turnwise.contextTokens, never past the model's positions). */
  contextTokens: number;
  /** Tokens reserved for each reply (turnwise.maxReplyTokens, or the caller's maxNewTokens). */
  replyTokens: number;
  /** The families it was forged on; null when the metadata does not say. */
  families: readonly string[] | null;
}

/** The limits of a policy with metadata `meta` and `maxSeq` positions; `reply` overrides the reply reserve (a run's maxNewTokens). */
export function policyLimits(meta: ModelMeta | undefined, maxSeq: number, reply?: number): PolicyLimits {
  return { contextTokens: contextTokens(meta, maxSeq), replyTokens: reply ?? replyTokens(meta), families: meta?.families ?? null };
}

/** A task as the check sees it: its family and its opening prompt's length in the policy's tokens. */
export interface TaskPrompt {
  family: string;
  /** The opening prompt as the policy is prompted with it (chat template and generation prompt included). */
  promptTokens: number;
}

/** The verdict: the policy takes the task, cannot (too long), or can but was never forged on its family. */
export type PolicyFit =
  | { kind: 'fits' }
  | { kind: 'too-long'; reason: string; promptTokens: number; replyTokens: number; contextTokens: number }
  | { kind: 'not-forged'; reason: string };

/** Whether the policy can take the task, and if not why, in plain words. */
export function policyFit(limits: PolicyLimits, task: TaskPrompt): PolicyFit {
  if (task.promptTokens + limits.replyTokens > limits.contextTokens) {
    return {
      kind: 'too-long',
      reason: `the policy's context is ${limits.contextTokens} tokens; this ${task.family} prompt needs ${task.promptTokens} + ${limits.replyTokens} reply tokens`,
      promptTokens: task.promptTokens,
      replyTokens: limits.replyTokens,
      contextTokens: limits.contextTokens,
    };
  }
  if (limits.families && !limits.families.includes(task.family))
    return { kind: 'not-forged', reason: `the policy was trained on ${limits.families.join(', ')}, not ${task.family}` };
  return { kind: 'fits' };
}

/** A policy asked to play a task it cannot take. */
export class PolicyFitError extends CodedError<'too-long'> {
  override name = 'PolicyFitError';
}
