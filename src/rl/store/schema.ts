// The trajectory schema (docs/design.md "Data"): the portable record of one episode — task (family, split,
// seed, hidden information), every turn with its tokens, log-probs, token counts, reward, latency and
// backend, the outcome, model and adapter ids, credit annotations per estimator — and of the run it
// belongs to. These are the shapes of our JSONL lines (docs/data-formats.md) and what the store's
// getEpisode returns. Each record's type is inferred from its valibot schema (one definition);
// the schemas validate anything that comes from outside (imports), the store's own writes are typed by
// TypeScript alone. Bump FORMAT_VERSION when a line's shape changes, and keep reading the older ones.
import { isFiniteList, isInt32List, isJsonValue, JSON_MAX_DEPTH, type JsonObject, type JsonValue } from '../util/json.ts';
import { MAX_TOKENS_PER_TURN } from '../envs/turn.ts';
import * as v from 'valibot';

/**
 * Version of the JSONL line shapes below (the header line carries it). 2 added an episode's
 * `criticScores`; a version 1 file is a version 2 file without them. 3 writes each credit annotation
 * without nulls (formats/turnwise.ts creditLine: the messages that have a value and their values) and
 * the task's hidden information as JSON text, because pyarrow's JSON reader, which
 * `datasets.load_dataset("json")` uses, loses the leading nulls of a list (apache/arrow#51305: "Length
 * spanned by list offsets … larger than values array") and refuses a field whose type changes between
 * lines (hidden values differ in type between tasks); in memory and in versions 1 and 2, `values`
 * stays aligned with the turns, null where there is none, and `hidden` is the value. All import.
 */
export const FORMAT_VERSION = 3;
/** Versions this code reads. */
export const READABLE_VERSIONS = [1, 2, 3] as const;
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

export const MESSAGE_ROLES = ['agent', 'collaborator', 'env', 'system'] as const;
/** Who wrote a message: the policy, the (simulated or human) collaborator, the environment, or the task prompt. */
export type MessageRole = (typeof MESSAGE_ROLES)[number];

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
  role: v.picklist(MESSAGE_ROLES),
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
export type MessageRecord = v.InferOutput<typeof MessageSchema>;

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
  values: v.custom<(number | null)[]>(
    (x) => Array.isArray(x) && x.every((y) => y === null || (typeof y === 'number' && Number.isFinite(y))),
    'Invalid value: expected an array of finite numbers or null',
  ),
  at: time,
});
export type CreditRecord = v.InferOutput<typeof CreditSchema>;

/**
 * What the critic said about an episode's agent turns as it was played (rollout/criticInputs.ts),
 * kept so that turn-level GAE, bi-level GAE and SWEET-RL can be recomputed later, with other
 * γ/λ/β, without the critic (rollout/stored.ts). Arrays are float32 values, laid out as
 * credit/types.ts EpisodeCreditInput: T = agent turns, token arrays flat and turn-major.
 */
export const CriticScoresSchema = v.pipe(
  v.strictObject({
    /** The critic and its adapter, e.g. "critic" or "critic@adapter-7" (π_ref is always its base). */
    version: v.pipe(v.string(), v.maxLength(256)),
    /** V(s_0) … V(s_T): [T+1]; V(s_T) is 0 when the episode ended, else the critic's bootstrap. */
    values: v.custom<number[]>(isFiniteList, 'Invalid value: expected an array of finite numbers'),
    /** [T+1] token boundaries: agent turn t owns tokens [tokenOffsets[t], tokenOffsets[t+1]). */
    tokenOffsets: v.custom<number[]>(isInt32List, 'Invalid value: expected an array of int32 offsets'),
    /** [N] the token ids the critic scored (the agent's sampled ids, or its text encoded). */
    tokens: v.custom<number[]>(isInt32List, 'Invalid value: expected an array of int32 token ids'),
    /** [N] each token's text, for drawing per-token credit without the tokenizer. */
    tokenText: v.custom<string[]>((x) => Array.isArray(x) && x.every((t) => typeof t === 'string'), 'Invalid value: expected an array of strings'),
    /** [N] the value head after each token (bi-level GAE); null when the critic has none. */
    tokenValues: v.nullable(v.custom<number[]>(isFiniteList, 'Invalid value: expected an array of finite numbers')),
    /** [N] log π_critic(token | o_t, c): the critic with its adapter and the hidden information (SWEET-RL). */
    criticLogprobs: v.custom<number[]>(isFiniteList, 'Invalid value: expected an array of finite numbers'),
    /** [N] log π_ref(token | o_t, c): the critic's base on the same inputs. */
    refLogprobs: v.custom<number[]>(isFiniteList, 'Invalid value: expected an array of finite numbers'),
    at: time,
  }),
  v.check(
    (s) => criticScoresProblem(s) === null,
    (issue) => criticScoresProblem(issue.input as CriticScoresShape) ?? 'inconsistent critic scores',
  ),
);
export type CriticScoresRecord = v.InferOutput<typeof CriticScoresSchema>;

/** The arrays of critic scores whose lengths must agree. */
interface CriticScoresShape {
  values: readonly number[];
  tokenOffsets: readonly number[];
  tokens: readonly number[];
  tokenText: readonly string[];
  tokenValues: readonly number[] | null;
  criticLogprobs: readonly number[];
  refLogprobs: readonly number[];
}

/** Why the arrays of critic scores do not fit together (null when they do). */
export function criticScoresProblem(s: CriticScoresShape): string | null {
  const T = s.tokenOffsets.length - 1;
  if (T < 0 || s.tokenOffsets[0] !== 0) return 'tokenOffsets must start with 0';
  if (s.values.length !== T + 1) return `values has ${s.values.length} entries, expected ${T + 1} (one per turn, plus the last state)`;
  for (let t = 0; t < T; t++) if (s.tokenOffsets[t + 1] < s.tokenOffsets[t]) return `tokenOffsets[${t + 1}] is below tokenOffsets[${t}]`;
  const N = s.tokenOffsets[T];
  for (const [name, arr] of [
    ['tokens', s.tokens],
    ['tokenText', s.tokenText],
    ['criticLogprobs', s.criticLogprobs],
    ['refLogprobs', s.refLogprobs],
    ['tokenValues', s.tokenValues],
  ] as const) {
    if (arr !== null && arr.length !== N) return `${name} has ${arr.length} entries, expected ${N} (tokenOffsets[${T}])`;
  }
  return null;
}

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
    /** Its message records (system prompt, then each agent message and its reply); named `turns` on disk since format version 1. */
    turns: v.pipe(v.array(MessageSchema), v.maxLength(LIMITS.maxTurns)),
    /** null until the episode finishes. */
    outcome: v.nullable(OutcomeSchema),
    credit: v.array(CreditSchema),
    /** The critic's scores of its agent turns, when it was scored as it was played (absent in version 1 files). */
    criticScores: v.optional(v.nullable(CriticScoresSchema)),
    createdAt: time,
    updatedAt: time,
    finishedAt: v.nullable(time),
    abortReason: v.nullable(v.string()),
  }),
  v.check((e) => e.credit.every((c) => c.values.length === e.turns.length), 'every credit annotation needs one value per turn'),
  v.check(
    (e) => !e.criticScores || e.criticScores.values.length === e.turns.filter((t) => t.role === 'agent').length + 1,
    'criticScores needs one value per agent turn, plus the last state',
  ),
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

export const HeaderSchema = v.strictObject({ format: v.literal(FORMAT_NAME), version: v.picklist(READABLE_VERSIONS) });
