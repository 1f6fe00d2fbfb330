// The trajectory schema (DESIGN.md "Data"): the portable record of one episode — task (family, split,
// seed, hidden information), every turn with its tokens, log-probs, token counts, reward, latency and
// backend, the outcome, model and adapter ids, credit annotations per estimator — and of the run it
// belongs to. These are the shapes of our JSONL lines (docs/data-formats.md) and what the store's
// getEpisode returns. Each record's type is inferred from its valibot schema (one definition);
// the schemas validate anything that comes from outside (imports), the store's own writes are typed by
// TypeScript alone. Bump FORMAT_VERSION when a line's shape changes.
import { isFiniteList, isInt32List, isJsonValue, JSON_MAX_DEPTH, type JsonObject, type JsonValue } from '../util/json.ts';
import { MAX_TOKENS_PER_TURN } from '../envs/turn.ts';
import * as v from 'valibot';

/** Version of the JSONL line shapes below (the header line carries it). */
export const FORMAT_VERSION = 1;
/** The `format` field of our JSONL header line. */
export const FORMAT_NAME = 'turnwise.trajectories';

/** Bounds applied to imported records, so that a hostile or broken file cannot exhaust memory. */
export const LIMITS = {
  /** Longest accepted line, in UTF-8 bytes (longer lines are reported and skipped unread). */
  maxLineBytes: 64 * 1024 * 1024,
  /** Deepest accepted JSON nesting (objects and arrays) in one line. */
  maxDepth: JSON_MAX_DEPTH,
  /** Most turns in one episode. */
  maxTurns: 10_000,
  /** Most tokens (or log-probs) in one turn. */
  maxTokensPerTurn: MAX_TOKENS_PER_TURN,
} as const;

export type { JsonObject, JsonValue } from '../util/json.ts';

export const TURN_ROLES = ['agent', 'collaborator', 'env', 'system'] as const;
/** Who produced a turn: the policy, the (simulated or human) collaborator, the environment, or the task prompt. */
export type TurnRole = (typeof TURN_ROLES)[number];

export const EPISODE_STATUSES = ['in-progress', 'interrupted', 'complete', 'aborted'] as const;
/** in-progress: being written by a live session; interrupted: its session ended mid-episode (resume or discard). */
export type EpisodeStatus = (typeof EPISODE_STATUSES)[number];

/** What a JSONL line (after the header) holds. */
export type PortableRecord = RunRecord | EpisodeRecord;

/** The first line of our JSONL. */
export interface HeaderRecord {
  format: typeof FORMAT_NAME;
  version: number;
}

// ---- valibot schemas for imports -------------------------------------------------------------------

const finite = v.pipe(v.number(), v.finite());
const nonNegInt = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const time = nonNegInt;
const id = v.pipe(v.string(), v.minLength(1), v.maxLength(256));


// Checked as wholes (not element by element) because valibot's per-element pipes cost ~1 µs per number.
/** Any JSON value with finite numbers. Nesting depth is bounded before parsing (lines.ts parseJsonLine). */
export const JsonValueSchema = v.custom<JsonValue>((x) => isJsonValue(x), 'Invalid value: expected JSON with finite numbers');
export const JsonObjectSchema = v.custom<JsonObject>(
  (x) => typeof x === 'object' && x !== null && !Array.isArray(x) && isJsonValue(x),
  'Invalid value: expected a JSON object with finite numbers',
);
const TokensSchema = v.pipe(v.custom<number[]>(isInt32List, 'Invalid value: expected an array of int32 token ids'), v.maxLength(LIMITS.maxTokensPerTurn));
const LogprobsSchema = v.pipe(v.custom<number[]>(isFiniteList, 'Invalid value: expected an array of finite numbers'), v.maxLength(LIMITS.maxTokensPerTurn));

/** Identity of a task instance, as the task suite's TaskSpec, plus the hidden (training-time) information. */
export const TaskSchema = v.strictObject({
  family: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  split: v.picklist(['train', 'test']),
  /** Any safe integer; with family, split and options it fixes the task (the task suite's TaskSpec). */
  seed: v.pipe(v.number(), v.safeInteger()),
  /** Overrides of the family's default options, as completed by the task suite (e.g. {candidates: 8}). */
  options: JsonObjectSchema,
  /** What the collaborator (and the asymmetric critic) knows and the agent must elicit. */
  hidden: JsonValueSchema,
});
export type TaskRecord = v.InferOutput<typeof TaskSchema>;

/**
 * One message of a dialogue, as written when it completes: the task prompt (system), an agent
 * message, or the collaborator's or environment's reply. A lab turn (turn.ts Turn) is an agent
 * message and its reply; turn.ts messagesOf/turnsOf convert.
 */
export const MessageSchema = v.strictObject({
  role: v.picklist(TURN_ROLES),
  text: v.string(),
  /** Token ids of `text` (agent messages; null when not tokenised). */
  tokens: v.nullable(TokensSchema),
  /** Per-token log-probabilities under the sampling policy, aligned with tokens (float32 precision). */
  logprobs: v.nullable(LogprobsSchema),
  promptTokens: nonNegInt,
  completionTokens: nonNegInt,
  reward: finite,
  done: v.boolean(),
  latencyMs: v.pipe(v.number(), v.finite(), v.minValue(0)),
  /** Where the message was produced: "wasm", "webgpu", "node", "human", "simulator", "env", "import"… */
  backend: v.pipe(v.string(), v.maxLength(64)),
  info: JsonObjectSchema,
  /** Time the message was written, ms since the Unix epoch. */
  at: time,
});
/** One message record of an episode (see MessageSchema). */
export type TurnRecord = v.InferOutput<typeof MessageSchema>;

export const OutcomeSchema = v.strictObject({
  success: v.boolean(),
  totalReward: finite,
  /** Agent turns taken (the T of Pass@(K,T)). */
  turns: nonNegInt,
});
export type OutcomeRecord = v.InferOutput<typeof OutcomeSchema>;

/** Which weights produced the agent's turns. */
export const ModelRefSchema = v.strictObject({ policy: v.string(), adapter: v.nullable(v.string()), critic: v.nullable(v.string()) });
export type ModelRef = v.InferOutput<typeof ModelRefSchema>;

/** Credit one estimator assigned to every message of an episode; versioned by the critic/adapter that produced it. */
export const CreditSchema = v.strictObject({
  /** e.g. "mc", "gae", "bilevel-gae", "grpo", "sweet", "counterfactual-q", "info-gain". */
  estimator: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  /** Critic or adapter id (and anything else that changes the numbers), e.g. "critic-3@adapter-7". */
  version: v.pipe(v.string(), v.maxLength(256)),
  params: JsonObjectSchema,
  /** One value per message, index-aligned with the episode's turns; null where the estimator gives none. Float32 precision. */
  values: v.custom<(number | null)[]>((x) => Array.isArray(x) && x.every((y) => y === null || (typeof y === 'number' && Number.isFinite(y))), 'Invalid value: expected an array of finite numbers or null'),
  at: time,
});
export type CreditRecord = v.InferOutput<typeof CreditSchema>;

/** One line of our JSONL: an episode. */
export const EpisodeSchema = v.pipe(
  v.strictObject({
    type: v.literal('episode'),
    id,
    /** The run (experiment) it belongs to; null for free play. */
    runId: v.nullable(id),
    status: v.picklist(EPISODE_STATUSES),
    task: TaskSchema,
    model: ModelRefSchema,
    /** Its message records (system prompt, then each agent message and its reply). */
    turns: v.pipe(v.array(MessageSchema), v.maxLength(LIMITS.maxTurns)),
    /** null until the episode finishes. */
    outcome: v.nullable(OutcomeSchema),
    credit: v.array(CreditSchema),
    createdAt: time,
    updatedAt: time,
    finishedAt: v.nullable(time),
    abortReason: v.nullable(v.string()),
  }),
  v.check((e) => e.credit.every((c) => c.values.length === e.turns.length), 'every credit annotation needs one value per turn'),
);
export type EpisodeRecord = v.InferOutput<typeof EpisodeSchema>;

/** One line of our JSONL: a run (an experiment: models, adapter, algorithm, settings, seed). */
export const RunSchema = v.strictObject({
  type: v.literal('run'),
  id,
  name: v.string(),
  createdAt: time,
  models: v.strictObject({ policy: v.string(), critic: v.nullable(v.string()) }),
  adapterId: v.nullable(v.string()),
  algorithm: v.string(),
  settings: JsonObjectSchema,
  seed: nonNegInt,
  notes: v.string(),
});
export type RunRecord = v.InferOutput<typeof RunSchema>;

export const HeaderSchema = v.strictObject({ format: v.literal(FORMAT_NAME), version: v.literal(FORMAT_VERSION) });
