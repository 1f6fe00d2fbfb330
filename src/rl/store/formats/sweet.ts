// SWEET-RL / ColBench trajectory records (arXiv 2503.15478; facebookresearch/sweet_rl
// scripts/simulate_interactions.py writes them): one JSON object per line,
//   {"task": {"problem_description", "ground_truth", "test_cases"?, …},
//    "dialogue_history": [{"role": "user"|"assistant", "content", …}], "answer", "reward"}
// where the first "user" message is the problem description, "assistant" messages are the agent's,
// the other "user" messages the human collaborator's, and `answer` is what followed "I WANT TO ANSWER:".
// Export writes that shape from our episodes; import turns such files into episodes (reward on the
// last agent turn) so someone's own ColBench runs can be opened in the credit view. Our export adds a
// `turnwise` field (task identity, who played, outcome, reply role), which SWEET-RL's loaders ignore
// and our import reads back, so the lab's own SWEET file re-imports with its family, split, seed and
// agent instead of as anonymous ColBench tasks. Our tasks' hidden information goes into
// task.ground_truth as JSON text (ColBench's ground truth is text too): its shape and value types
// differ between families and tasks, and pyarrow's JSON reader (datasets.load_dataset) needs one type
// per field (issue 48.7); `turnwise.groundTruth: "json"` says so, and files without it import as before.
import * as v from 'valibot';
import { LIMITS, ModelRefSchema, type EpisodeRecord, type JsonObject, type JsonValue, type PortableRecord, type MessageRecord } from '../schema.ts';
import { jsonLines, parseJsonLine, type LineEvent } from './lines.ts';
import { toLineIssues, type DecodeEvent, type EncodeProgress } from './turnwise.ts';
import { JsonObjectSchema, JsonValueSchema } from '../schema.ts';

const ANSWER_MARK = 'I WANT TO ANSWER:';

/** What our export adds to a SWEET-RL record so that re-importing it restores the episode's identity. */
export interface SweetMeta {
  /** The episode's id in the lab (absent in older exports). */
  id?: string;
  family: string;
  split: 'train' | 'test';
  seed: number;
  options: JsonObject;
  /** Who played (the policy and adapter, or the scripted agent's name). */
  model: EpisodeRecord['model'];
  /** The episode's success (SWEET-RL's reward ≥ 1 is ColBench's rule, not every family's). */
  success: boolean | null;
  /** Role the "user" messages after the prompt had: a collaborator's reply or the environment's. */
  reply: 'collaborator' | 'env';
  /** "json": task.ground_truth is our hidden information as JSON text (absent: as is, in older exports). */
  groundTruth?: 'json';
}

export interface SweetRecord {
  task: JsonObject;
  dialogue_history: { role: 'user' | 'assistant' | 'system'; content: string }[];
  answer: string;
  reward: number | null;
  turnwise: SweetMeta;
}

const isObject = (x: JsonValue): x is JsonObject => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The agent's final answer: recorded in the last agent turn's info, else the text after the marker. */
function answerOf(e: EpisodeRecord): string {
  const last = [...e.turns].reverse().find((t) => t.role === 'agent');
  if (!last) return 'No answer';
  if (typeof last.info.answer === 'string') return last.info.answer;
  const at = last.text.indexOf(ANSWER_MARK);
  return at === -1 ? last.text : last.text.slice(at + ANSWER_MARK.length);
}

export function toSweetRecord(e: EpisodeRecord): SweetRecord {
  const hidden = e.task.hidden;
  const firstPrompt = e.turns.find((t) => t.role !== 'agent')?.text ?? '';
  const colbench = isObject(hidden) && typeof hidden.problem_description === 'string';
  const task: JsonObject = colbench
    ? hidden
    : { problem_description: firstPrompt, ground_truth: JSON.stringify(hidden), family: e.task.family, split: e.task.split, seed: e.task.seed };
  return {
    task,
    dialogue_history: e.turns.map((t) => ({ role: t.role === 'agent' ? 'assistant' : t.role === 'system' ? 'system' : 'user', content: t.text })),
    answer: answerOf(e),
    reward: e.outcome ? e.outcome.totalReward : null,
    turnwise: {
      // the episode's own id: importing the file into the store it came from finds each episode there
      // (skipped as already stored) instead of adding a copy under "<file>#<line>"
      id: e.id,
      family: e.task.family,
      split: e.task.split,
      seed: e.task.seed,
      options: e.task.options,
      model: e.model,
      success: e.outcome ? e.outcome.success : null,
      reply: e.turns.some((t) => t.role === 'env') ? 'env' : 'collaborator',
      ...(colbench ? {} : { groundTruth: 'json' as const }),
    },
  };
}

/** SWEET-RL JSONL of the episodes among `records`. */
export async function* encodeSweet(
  records: AsyncIterable<PortableRecord> | Iterable<PortableRecord>,
  onProgress?: (p: EncodeProgress) => void,
): AsyncGenerator<string> {
  let n = 0;
  let bytes = 0;
  for await (const r of records) {
    if (r.type !== 'episode') continue;
    const line = `${JSON.stringify(toSweetRecord(r))}\n`;
    bytes += line.length;
    onProgress?.({ records: ++n, bytes });
    yield line;
  }
}

// ---- import -----------------------------------------------------------------------------------------

const finite = v.pipe(v.number(), v.finite());

/** What we accept: the fields SWEET-RL writes; anything else in a message is kept in the turn's info. */
export const SweetRecordSchema = v.looseObject({
  task: v.looseObject({ problem_description: v.string() }),
  dialogue_history: v.pipe(
    v.array(v.looseObject({ role: v.picklist(['user', 'assistant', 'system']), content: v.string() })),
    v.minLength(1),
    v.maxLength(LIMITS.maxTurns),
  ),
  answer: v.optional(v.nullable(v.string())),
  reward: v.optional(v.nullable(finite)),
  turnwise: v.optional(
    v.strictObject({
      /** Absent in files written before it was added: the line's "<file>#<line>" id is used. */
      id: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256))),
      family: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
      split: v.picklist(['train', 'test']),
      seed: v.pipe(v.number(), v.safeInteger()),
      options: JsonObjectSchema,
      model: ModelRefSchema,
      success: v.nullable(v.boolean()),
      reply: v.picklist(['collaborator', 'env']),
      groundTruth: v.optional(v.literal('json')),
    }),
  ),
});

export interface SweetImportOptions {
  /** Prefix of episode ids: "<idPrefix>#<line>" (use the file name, so re-importing a file skips duplicates); the lab's own export carries each episode's id instead. */
  idPrefix: string;
  /** Task family of the imported episodes (default "colbench"). */
  family?: string;
  split?: 'train' | 'test';
  /** Time stamped on the episodes (ms); line k gets now + k so file order is creation order. */
  now: number;
}

const OUR_TASK_KEYS = 'family,ground_truth,problem_description,seed,split';

/** The hidden information of a task our export wrote (toSweetRecord): its ground_truth (parsed where it is JSON text), or the ColBench task itself. */
function ourHidden(task: JsonObject, groundTruth: 'json' | undefined): JsonValue {
  if (Object.keys(task).sort().join(',') !== OUR_TASK_KEYS) return task;
  const gt = task.ground_truth ?? null;
  return groundTruth === 'json' && typeof gt === 'string' ? (JSON.parse(gt) as JsonValue) : gt;
}

/** Why a record's JSON-text ground truth cannot be read back (null when it can, or is not JSON text). */
function groundTruthProblem(raw: v.InferOutput<typeof SweetRecordSchema>): string | null {
  if (raw.turnwise?.groundTruth !== 'json' || Object.keys(raw.task).sort().join(',') !== OUR_TASK_KEYS) return null;
  const gt = raw.task.ground_truth;
  if (typeof gt !== 'string') return 'must be JSON text (turnwise.groundTruth is "json")';
  const parsed = parseJsonLine(gt, LIMITS.maxDepth);
  if (!parsed.ok) return `is ${parsed.message}`;
  return v.safeParse(JsonValueSchema, parsed.value).success ? null : 'holds a number that is not finite';
}

/** A validated SWEET-RL record as one of our episodes. */
export function fromSweetRecord(raw: v.InferOutput<typeof SweetRecordSchema>, line: number, opts: SweetImportOptions): EpisodeRecord {
  const at = opts.now + line;
  const history = raw.dialogue_history;
  let lastAgent = -1;
  history.forEach((m, i) => {
    if (m.role === 'assistant') lastAgent = i;
  });
  const reward = raw.reward ?? null;
  const meta = raw.turnwise;
  const other = meta?.reply ?? 'collaborator';
  const turns: MessageRecord[] = history.map((m, i) => {
    const { role, content, ...rest } = m;
    const info = v.parse(JsonObjectSchema, rest);
    if (i === lastAgent && typeof raw.answer === 'string') info.answer = raw.answer;
    return {
      role: role === 'assistant' ? 'agent' : role === 'system' ? 'system' : other,
      text: content,
      tokens: null,
      logprobs: null,
      promptTokens: 0,
      completionTokens: 0,
      reward: i === lastAgent && reward !== null ? reward : 0,
      done: i === history.length - 1,
      latencyMs: 0,
      backend: 'import',
      info,
      at,
    };
  });
  return {
    type: 'episode',
    id: meta?.id ?? `${opts.idPrefix}#${line}`,
    runId: null,
    status: 'complete',
    task: meta
      ? {
          family: meta.family,
          split: meta.split,
          seed: meta.seed,
          options: meta.options,
          hidden: ourHidden(v.parse(JsonObjectSchema, raw.task), meta.groundTruth),
        }
      : { family: opts.family ?? 'colbench', split: opts.split ?? 'train', seed: line, options: {}, hidden: v.parse(JsonObjectSchema, raw.task) },
    model: meta ? meta.model : { policy: 'unknown', adapter: null, critic: null },
    turns,
    outcome:
      reward === null ? null : { success: meta?.success ?? reward >= 1, totalReward: reward, turns: history.filter((m) => m.role === 'assistant').length },
    credit: [],
    createdAt: at,
    updatedAt: at,
    finishedAt: at,
    abortReason: null,
  };
}

/** Validates SWEET-RL JSONL line by line into episodes; blank lines are skipped. */
export async function* decodeSweet(lines: AsyncIterable<LineEvent>, opts: SweetImportOptions): AsyncGenerator<DecodeEvent<PortableRecord>> {
  let seen = 0;
  for await (const ev of jsonLines(lines, LIMITS.maxDepth)) {
    seen++;
    if (ev.kind === 'bad') {
      yield { kind: 'issue', issue: { line: ev.line, path: '', message: ev.message } };
      continue;
    }
    const r = v.safeParse(SweetRecordSchema, ev.value);
    if (!r.success) {
      for (const issue of toLineIssues(ev.line, r.issues)) yield { kind: 'issue', issue };
      continue;
    }
    // Extra fields must be JSON too (they are, coming from JSON.parse; the check keeps the types honest).
    const extras = v.safeParse(v.object({ task: JsonObjectSchema, dialogue_history: v.array(JsonObjectSchema) }), ev.value);
    if (!extras.success) {
      for (const issue of toLineIssues(ev.line, extras.issues)) yield { kind: 'issue', issue };
      continue;
    }
    const gtProblem = groundTruthProblem(r.output);
    if (gtProblem) {
      yield { kind: 'issue', issue: { line: ev.line, path: 'task.ground_truth', message: `task.ground_truth ${gtProblem}` } };
      continue;
    }
    yield { kind: 'record', line: ev.line, record: fromSweetRecord(r.output, ev.line, opts) };
  }
  // An empty file would otherwise "import" as 0 episodes: almost always the wrong file or a failed run.
  if (seen === 0) yield { kind: 'issue', issue: { line: 1, path: '', message: 'the file holds no SWEET-RL records (it is empty)' } };
}
