// The one shape of a turn (DESIGN.md "Data"): the agent's message and the reply it got, together, with
// what the agent side recorded (tokens, log-probs, token counts, latency, backend). Its TypeScript
// type is inferred from the valibot schema below, and the same object travels from the rollout
// (envs/episode.ts playTurn, rollout/rollout.ts) through the recorder into IndexedDB, and back out of
// stored episodes (turnsOf) for credit, training and exports.
//
// On disk (IndexedDB rows and our JSONL, schema.ts) a turn is kept as two message records — the
// agent's, then the collaborator's or environment's — so that format version 1 files, SWEET-RL and
// chat exports (which are message lists) stay as they are. messagesOf and turnsOf are the only
// mapping between the two; `turnsOf(messagesOf(t)) = t` for every turn the lab plays.
//
// Representation at the boundary: token ids and log-probs are plain `number[]` here, never typed
// arrays. A Turn must cross postMessage, JSON (eval files, exports) and valibot checks unchanged, and
// the engine already hands out number[] (Generation.tokenIds). Typed arrays appear only inside the
// IndexedDB rows (db.ts: structured clone stores them compactly; convert.ts converts) and in the
// credit estimators' inputs.
import * as v from 'valibot';
import type { StepInfo, StepReason } from '../envs/types.ts';
import { isJsonValue, LIMITS, type JsonObject, type TurnRecord, type TurnRole } from './schema.ts';

const STEP_REASONS = ['question', 'proposal', 'answer', 'move', 'invalid-format', 'too-long', 'unsafe', 'code-error', 'turn-limit', 'solved', 'failed'] as const satisfies readonly StepReason[];
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
const isInt32s = (x: unknown): x is number[] => Array.isArray(x) && x.every((t) => Number.isInteger(t) && t >= -2147483648 && t <= 2147483647);
const isFinites = (x: unknown): x is number[] => Array.isArray(x) && x.every((t) => typeof t === 'number' && Number.isFinite(t));

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
  tokens: v.nullable(v.pipe(v.custom<number[]>(isInt32s, 'Invalid value: expected int32 token ids'), v.maxLength(LIMITS.maxTokensPerTurn))),
  /** Per-token log-probabilities under the sampling policy, aligned with tokens (float32 precision once stored). */
  logprobs: v.nullable(v.pipe(v.custom<number[]>(isFinites, 'Invalid value: expected finite numbers'), v.maxLength(LIMITS.maxTokensPerTurn))),
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
  return { tokens: t.tokens, logprobs: t.logprobs, promptTokens: t.promptTokens, completionTokens: t.completionTokens, latencyMs: t.latencyMs, backend: t.backend };
}

/** A message record without its write time (the store stamps `at`). */
export type MessageInput = Omit<TurnRecord, 'at'>;

const REPLY_BACKEND = { person: 'human', simulated: 'simulator' } as const;

/**
 * The two message records of a turn: the agent's (reward, tokens, step info), then the reply's (role
 * collaborator or env by family; backend says who wrote it: human, simulator, or env when the step
 * needed no reply; info.reply keeps a reply that differs from the observation).
 */
export function messagesOf(turn: Turn, collaborative: boolean): [MessageInput, MessageInput] {
  const agent: MessageInput = { role: 'agent', text: turn.action, tokens: turn.tokens, logprobs: turn.logprobs, promptTokens: turn.promptTokens, completionTokens: turn.completionTokens, reward: turn.reward, done: turn.done, latencyMs: turn.latencyMs, backend: turn.backend, info: turn.info };
  const reply: MessageInput = {
    role: collaborative ? 'collaborator' : 'env',
    text: turn.observation,
    tokens: null,
    logprobs: null,
    promptTokens: 0,
    completionTokens: 0,
    reward: 0,
    done: turn.done,
    latencyMs: 0,
    backend: turn.replySource ? REPLY_BACKEND[turn.replySource] : 'env',
    info: turn.reply !== null && turn.reply !== turn.observation ? { reply: turn.reply } : {},
  };
  return [agent, reply];
}

/**
 * Per-turn values (credit, a person's thumbs) aligned with a lab episode's message records — the
 * system prompt, then agent and reply per turn — as the store's credit rows are: value t on agent
 * record 1 + 2t, NaN (no value) on the prompt and the replies.
 */
export function perRecord(perTurn: ArrayLike<number>): Float32Array {
  const out = new Float32Array(1 + 2 * perTurn.length).fill(Number.NaN);
  for (let t = 0; t < perTurn.length; t++) out[1 + 2 * t] = perTurn[t];
  return out;
}

/** Why message records do not read back as turns. */
export class TurnShapeError extends Error {
  override name = 'TurnShapeError';
}

/** The prompt and turns of an episode's message records (inverse of the system record plus messagesOf). */
export function turnsOf(records: readonly Pick<TurnRecord, 'role' | 'text' | 'tokens' | 'logprobs' | 'promptTokens' | 'completionTokens' | 'reward' | 'done' | 'latencyMs' | 'backend' | 'info'>[]): { prompt: string; turns: Turn[] } {
  let prompt = '';
  const turns: Turn[] = [];
  const roles: TurnRole[] = records.map((r) => r.role);
  records.forEach((r, i) => {
    if (r.role === 'system') prompt = prompt ? `${prompt}\n${r.text}` : r.text;
    else if (r.role === 'agent') {
      if (!isStepInfo(r.info)) throw new TurnShapeError(`record ${i}: an agent record's info is not step info (not written by the lab)`);
      turns.push({ action: r.text, reply: null, replySource: null, observation: '', reward: r.reward, done: r.done, info: r.info, tokens: r.tokens, logprobs: r.logprobs, promptTokens: r.promptTokens, completionTokens: r.completionTokens, latencyMs: r.latencyMs, backend: r.backend });
    } else {
      const last = turns[turns.length - 1];
      if (!last || roles[i - 1] !== 'agent') throw new TurnShapeError(`record ${i}: a ${r.role} record must follow an agent record`);
      const source = r.backend === 'human' ? 'person' : r.backend === 'simulator' ? 'simulated' : null;
      last.observation = r.text;
      last.replySource = source;
      last.reply = typeof r.info.reply === 'string' ? r.info.reply : source ? r.text : null;
      last.reward += r.reward;
      last.done = last.done || r.done;
    }
  });
  return { prompt, turns };
}
