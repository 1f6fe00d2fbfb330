// Stored or imported episodes as credit inputs: a Turnwise JSONL episode record (store/schema.ts:
// system prompt, then agent turns each followed by the collaborator's or environment's reply) or an
// episode as `turnwise eval --out` writes it (envs/types.ts Episode). An agent turn's reward is its
// own record's reward plus those of the replies up to the next agent turn, so files that put the
// reward on the reply read the same. Credit of such episodes by any estimators (storedCredit) is
// the one path from stored records to credit: the Credit view (ui/state/creditModel.ts) and
// `turnwise credit` / `credit-report` both call it, so they show the same numbers. Credit comes
// back as the record's annotations: one value per turn record, null for every record that is not
// an agent turn. An episode stored with its critic scores (store/schema.ts CriticScoresRecord,
// written by Play as the critic scored it) gives GAE, bi-level GAE and SWEET-RL without the critic:
// storedInput rebuilds the exact inputs the live estimators were fed, so any γ/λ/β recomputes there.
import { computeCredit, ESTIMATOR_NAMES, estimatorSpec, type EstimatorName } from '../credit/registry.ts';
import { CreditError } from '../credit/errors.ts';
import type { CreditInputName, CreditParams, CreditResult, EpisodeCreditInput } from '../credit/types.ts';
import type { Episode, JsonObject, TaskSpec } from '../envs/types.ts';
import type { Turn } from '../envs/turn.ts';
import type { CreditRecord, CriticScoresRecord, EpisodeRecord } from '../store/schema.ts';
import { readTurns, turnsOf } from '../store/turn.ts';
import { FAMILY_NAMES, type FamilyName } from '../envs/registry.ts';
import type { CriticEpisode, CriticTurn } from './criticInputs.ts';

/** One episode ready for credit, whatever file it came from. */
export interface StoredEpisode {
  /** Record id, or "episode-<line>" for eval output. */
  id: string;
  family: string;
  split: string;
  seed: number;
  /** The K episodes of one task share a group (family/split/seed/options). */
  group: string;
  critic: CriticEpisode & { turns: (CriticTurn & { info: JsonObject })[] };
  /** Index in the record's turns of each agent turn (null for eval output). */
  agentRecords: number[] | null;
  /** The critic's scores of its agent turns, when they were stored with it. */
  scores: CriticScoresRecord | null;
  /**
   * Its task's spec and its turns whole, to replay a prefix (centred SWEET-RL samples candidates at each
   * turn's state), or why it cannot be replayed (a family the lab does not know, records it did not write).
   */
  played: { spec: TaskSpec; turns: Turn[] } | string;
}

function groupKey(family: string, split: string, seed: number, options: unknown): string {
  return `${family}/${split}/${seed}/${JSON.stringify(options ?? {})}`;
}

function playedOf(rec: EpisodeRecord): StoredEpisode['played'] {
  const { family, split, seed, options } = rec.task;
  if (!(FAMILY_NAMES as readonly string[]).includes(family)) return `its family "${family}" is not one of the lab's`;
  try {
    return { spec: { family: family as FamilyName, split, seed, options }, turns: turnsOf(rec.turns).turns };
  } catch (e) {
    return (e as Error).message;
  }
}

/** Reads a Turnwise episode record. */
export function fromRecord(rec: EpisodeRecord): StoredEpisode {
  const read = readTurns(rec.turns);
  const turns = read.turns.map((t) => ({ action: t.action, observation: t.observation, reward: t.reward, done: t.done, info: t.info }));
  const tokens = read.turns.map((t) => t.tokens);
  const agentRecords = read.agentRecords;
  const hidden = rec.task.hidden;
  return {
    id: rec.id,
    family: rec.task.family,
    split: rec.task.split,
    seed: rec.task.seed,
    group: groupKey(rec.task.family, rec.task.split, rec.task.seed, rec.task.options),
    critic: {
      task: { prompt: read.prompt, hidden: hidden !== null && typeof hidden === 'object' && !Array.isArray(hidden) ? hidden : { hidden } },
      turns,
      tokens,
    },
    agentRecords,
    scores: rec.criticScores ?? null,
    played: playedOf(rec),
  };
}

/** The episode records that have agent turns, read for credit (what both the CLI and the Credit view credit). */
export function readStored(records: readonly EpisodeRecord[]): StoredEpisode[] {
  return records.map(fromRecord).filter((e) => e.critic.turns.length > 0);
}

/** Reads an episode as `turnwise eval --out` writes it. */
export function fromEpisode(e: Episode, line: number): StoredEpisode {
  const s = e.task.spec;
  return {
    id: `episode-${line}`,
    family: s.family,
    split: s.split,
    seed: s.seed,
    group: groupKey(s.family, s.split, s.seed, s.options),
    critic: { task: e.task, turns: e.turns.map((t) => ({ action: t.action, observation: t.observation, reward: t.reward, done: t.done, info: t.info })) },
    agentRecords: null,
    scores: null,
    played: { spec: s, turns: e.turns },
  };
}

/** Rewards-only credit input (what MC and GRPO need), grouped by task. */
export function rewardInput(e: StoredEpisode): EpisodeCreditInput {
  const T = e.critic.turns.length;
  return { rewards: Float32Array.from(e.critic.turns, (t) => t.reward), terminal: T > 0 && e.critic.turns[T - 1].done, group: e.group };
}

/**
 * The full credit input of an episode stored with its critic scores (null without them): the
 * stored rewards with the stored values, per-token values and log-probs, as float32 arrays — the
 * very numbers live credit pushed, so every estimator recomputed from it equals the live one.
 */
export function storedInput(e: StoredEpisode): EpisodeCreditInput | null {
  const s = e.scores;
  if (!s || s.values.length !== e.critic.turns.length + 1) return null;
  return {
    ...rewardInput(e),
    values: Float32Array.from(s.values),
    tokenOffsets: Int32Array.from(s.tokenOffsets),
    ...(s.tokenValues ? { tokenValues: Float32Array.from(s.tokenValues) } : {}),
    criticLogprobs: Float32Array.from(s.criticLogprobs),
    refLogprobs: Float32Array.from(s.refLogprobs),
  };
}

/** Inputs only the critic and its reference give (rollout/criticInputs.ts). */
const CRITIC_INPUTS: ReadonlySet<CreditInputName> = new Set(['values', 'tokenOffsets', 'tokenValues', 'criticLogprobs', 'refLogprobs']);

/** True when an estimator reads critic outputs, not rewards alone. */
export function estimatorNeedsCritic(name: EstimatorName): boolean {
  return estimatorSpec(name).needs.some((n) => CRITIC_INPUTS.has(n));
}

/** True when rewards, task groups and the shipped critic with its reference give all it reads (not ArCHer: the critic has no Q head). */
const fedHere = (name: EstimatorName) => estimatorSpec(name).needs.every((n) => n === 'rewards' || n === 'group' || CRITIC_INPUTS.has(n));

/** Estimators computed from rewards (and groups of one task) alone, in the registry's order: mc, grpo. */
export const REWARD_ESTIMATORS: readonly EstimatorName[] = ESTIMATOR_NAMES.filter((n) => fedHere(n) && !estimatorNeedsCritic(n));

/** Estimators that read the shipped critic's outputs (stored with an episode, or scored now), in the registry's order: gae, bilevel-gae, sweet. */
export const CRITIC_ESTIMATORS: readonly EstimatorName[] = ESTIMATOR_NAMES.filter((n) => fedHere(n) && estimatorNeedsCritic(n));

/** True when every episode carries stored critic scores (storedInput gives its full input). */
export function hasStoredScores(episodes: readonly StoredEpisode[]): boolean {
  return episodes.every((e) => storedInput(e) !== null);
}

/**
 * Credit of every estimator for every episode: result i of each estimator belongs to episodes[i];
 * GRPO groups the episodes given by task (StoredEpisode.group). An estimator that needs the critic
 * reads `critic`, [episodes] from criticInputs, when given, else the episodes' stored critic scores
 * (storedInput); with neither it throws CreditError 'missing-input'.
 */
export function storedCredit(
  episodes: readonly StoredEpisode[],
  estimators: readonly EstimatorName[],
  params: Readonly<Record<string, CreditParams>> = {},
  critic?: readonly EpisodeCreditInput[],
): Map<EstimatorName, CreditResult[]> {
  const base = episodes.map(rewardInput);
  const stored = critic ? undefined : episodes.map(storedInput);
  const full =
    critic?.map((c, i) => ({ ...c, group: base[i].group })) ??
    (stored?.every((x) => x !== null) ? stored.map((x, i) => ({ ...x!, group: base[i].group })) : undefined);
  const out = new Map<EstimatorName, CreditResult[]>();
  for (const name of estimators) {
    if (estimatorNeedsCritic(name) && !full)
      throw new CreditError(
        'missing-input',
        `${name} needs the critic's inputs (values, log-probs): stored episodes without critic scores must be scored by the critic`,
      );
    out.set(name, computeCredit(name, estimatorNeedsCritic(name) && full ? full : base, params[name] ?? {}));
  }
  return out;
}

/** Credit results as the record's annotations (values aligned with its turn records). */
export function annotations(rec: EpisodeRecord, stored: StoredEpisode, results: readonly CreditResult[], version: string, at: number): CreditRecord[] {
  return results.map((r) => {
    const values: (number | null)[] = rec.turns.map(() => null);
    (stored.agentRecords ?? []).forEach((i, t) => (values[i] = r.perTurn[t]));
    return { estimator: r.estimator, version, params: { ...r.params }, values, at };
  });
}
