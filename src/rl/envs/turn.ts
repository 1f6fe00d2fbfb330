// The one shape of a turn (docs/design.md "Data"): the agent's message and the reply it got, together, with
// what the agent side recorded (tokens, log-probs, token counts, latency, backend). Its TypeScript
// type is inferred from the valibot schema below, and the same object travels from the rollout
// (envs/episode.ts playTurn, rollout/rollout.ts) through the recorder into IndexedDB, and back out of
// stored episodes (store/turn.ts turnsOf) for credit, training and exports. It lives with the task
// suite because the environment's step produces it; the store maps it to its records.
//
// Representation at the boundary: token ids and log-probs are plain `number[]` here, never typed
// arrays. A Turn must cross postMessage, JSON (eval files, exports) and valibot checks unchanged, and
// the engine already hands out number[] (Generation.tokenIds). Typed arrays appear only inside the
// IndexedDB rows (store/db.ts: structured clone stores them compactly; store/convert.ts converts) and
// in the credit estimators' inputs.
import * as v from 'valibot';
import { isFiniteList, isInt32List, isJsonValue, type JsonObject } from '../util/json.ts';
import type { StepInfo, StepReason } from './types.ts';

/** Most tokens (or log-probs) in one turn. */
export const MAX_TOKENS_PER_TURN = 1_000_000;

const STEP_REASONS = [
  'question',
  'proposal',
  'answer',
  'move',
  'invalid-format',
  'too-long',
  'unsafe',
  'code-error',
  'turn-limit',
  'solved',
  'failed',
] as const satisfies readonly StepReason[];
// Compile-time: the list names every StepReason (a new reason must be added here to be storable).
const everyReason: [Exclude<StepReason, (typeof STEP_REASONS)[number]>] extends [never] ? true : false = true;
void everyReason;

/** True for an environment's per-step facts (envs/types.ts StepInfo). */
export function isStepInfo(x: unknown): x is StepInfo {
  if (typeof x !== 'object' || x === null || Array.isArray(x) || !isJsonValue(x)) return false;
  const o = x as JsonObject;
  return (STEP_REASONS as readonly unknown[]).includes(o.reason) && typeof o.invalidFormat === 'boolean' && typeof o.success === 'boolean';
}

const finite = v.pipe(v.number(), v.finite());
const count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/** One turn: agent message, reply, reward, and the agent side's record. */
export const TurnSchema = v.strictObject({
  /** The agent's message. */
  action: v.string(),
  /** The collaborator's reply, when one was asked for (the observation may add environment text). */
  reply: v.nullable(v.string()),
  /** Who produced the reply. */
  replySource: v.nullable(v.picklist(['simulated', 'person'])),
  /** What the agent sees next (collaborator reply and/or environment text). */
  observation: v.string(),
  reward: finite,
  done: v.boolean(),
  info: v.custom<StepInfo>(isStepInfo, 'Invalid value: expected step info {reason, invalidFormat, success, …}'),
  /** Token ids of `action` as sampled (policy turns; null for scripted agents or people). */
  tokens: v.nullable(v.pipe(v.custom<number[]>(isInt32List, 'Invalid value: expected int32 token ids'), v.maxLength(MAX_TOKENS_PER_TURN))),
  /** Per-token log-probabilities under the sampling policy, aligned with tokens (float32 precision once stored). */
  logprobs: v.nullable(v.pipe(v.custom<number[]>(isFiniteList, 'Invalid value: expected finite numbers'), v.maxLength(MAX_TOKENS_PER_TURN))),
  promptTokens: count,
  completionTokens: count,
  latencyMs: v.pipe(v.number(), v.finite(), v.minValue(0)),
  /** "wasm", "webgpu", "node", or "scripted" for scripted agents. */
  backend: v.pipe(v.string(), v.maxLength(64)),
});

/** One turn of an episode (see the file comment). */
export type Turn = v.InferOutput<typeof TurnSchema>;

/** What the agent side adds to the environment's part of a turn. */
export type AgentSide = Pick<Turn, 'tokens' | 'logprobs' | 'promptTokens' | 'completionTokens' | 'latencyMs' | 'backend'>;

/** The agent side of a turn no model produced (scripted agents, people, forced replays). */
export const SCRIPTED: AgentSide = { tokens: null, logprobs: null, promptTokens: 0, completionTokens: 0, latencyMs: 0, backend: 'scripted' };

/** The agent side of a recorded turn. */
export function agentSideOf(t: AgentSide): AgentSide {
  return {
    tokens: t.tokens,
    logprobs: t.logprobs,
    promptTokens: t.promptTokens,
    completionTokens: t.completionTokens,
    latencyMs: t.latencyMs,
    backend: t.backend,
  };
}
