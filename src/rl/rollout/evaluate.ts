// Evaluation on held-out tasks, the one path every caller takes (`turnwise eval`, the forge's
// held-out check, the Train loop's before/after figures, `turnwise passkt`, the Evaluate view): the
// tasks are played by the batched rollout loop (rollout.ts) with any BatchAgent — the engine's
// policy (PolicyBatchAgent) or a scripted one (scriptedBatchAgent) — and summarised as success rate,
// mean reward, mean turns, Pass@(1,T) for T = 1…T_max (one episode per task, so Pass@(1,T) is the
// share solved within T turns) and the family's own figures; a policy is played sampled at
// temperature 1 and greedy side by side (docs/design.md: sharpening alone raises one and lowers the
// other). With n episodes per task the unbiased Pass@(K,T) grid of passkt.ts follows from the same
// rollout. Task i has seed `seed + i`; episode seeds follow rollout.ts episodeSeed, so the same
// seeds give the same figures.
import { rolloutMetrics } from './metrics.ts';
import type { JsonObject, Split, TaskSpec } from '../envs/types.ts';
import { FAMILIES, type FamilyName } from '../envs/registry.ts';
import type { GenerateApi } from '../runtime/engine/types.ts';
import { PolicyBatchAgent, type BatchAgent } from './agents.ts';
import { passKTAt, passKTGrid } from './passkt.ts';
import { perTaskSuccess } from './successStats.ts';
import { rollout, successTurns, taskSpecs, type RolloutEpisode, type RolloutOptions } from './rollout.ts';

/**
 * The first task seed of an evaluation for run seed `seed`: test-split tasks from 100,000, train-split
 * ones (tuning) from 900,000, far from the training draws' hashed seeds. The CLI and the learning
 * benchmark both use it, so a case and its command evaluate the same tasks.
 */
export function heldOutSeed(split: Split, seed: number): number {
  return (split === 'train' ? 900_000 : 100_000) + seed;
}

/** What to evaluate: one episode on each of `episodes` tasks. */
export interface EvalConfig {
  family: FamilyName;
  split: Split;
  /** Number of tasks (one episode each). */
  episodes: number;
  /** Task i uses seed `seed + i`. */
  seed: number;
  /** Family option overrides. */
  options?: JsonObject;
  /** Stop each episode after this many turns (≤ the task's own T). */
  turnLimit?: number;
  /** Mixed into every episode's agent seed (rollout.ts episodeSeed); default `seed`. */
  agentSeed?: number;
  /** The tasks themselves, when they are not `episodes` tasks of seeds `seed + i` (the validation guard's hashed seeds, algos/config.ts validationTasks). */
  tasks?: readonly TaskSpec[];
}

/** The figures of one agent on one task set. */
export interface EvalSummary {
  family: FamilyName;
  split: Split;
  agent: string;
  episodes: number;
  seed: number;
  successRate: number;
  meanReward: number;
  meanTurns: number;
  /** passAt1[t-1] = Pass@(1,t): share of tasks solved within t turns. */
  passAt1: number[];
  /** Family-specific means (see FamilyInfo.metrics). */
  metrics: Record<string, number>;
}

/** Summarises one episode per task (episodes as rollout returns them). */
export function summarize(
  config: Pick<EvalConfig, 'family' | 'split' | 'seed' | 'turnLimit'>,
  agent: string,
  episodes: readonly RolloutEpisode[],
): EvalSummary {
  const n = Math.max(episodes.length, 1);
  const taskT = Math.max(1, ...episodes.map((e) => e.task.maxTurns));
  const maxT = config.turnLimit ? Math.min(taskT, config.turnLimit) : taskT;
  const passAt1 = Array.from({ length: maxT }, (_, t) => episodes.filter((e) => e.success && e.turns.length <= t + 1).length / n);
  return {
    family: config.family,
    split: config.split,
    agent,
    episodes: episodes.length,
    seed: config.seed,
    successRate: episodes.filter((e) => e.success).length / n,
    meanReward: episodes.reduce((a, e) => a + e.totalReward, 0) / n,
    meanTurns: episodes.reduce((a, e) => a + e.turns.length, 0) / n,
    passAt1,
    metrics: FAMILIES[config.family].metrics(episodes),
  };
}

/** Plays one episode of each task with `agent`, all batched, and summarises them. */
export async function evaluate(
  config: EvalConfig,
  agent: BatchAgent,
  opts: RolloutOptions = {},
): Promise<{ summary: EvalSummary; episodes: RolloutEpisode[] }> {
  const tasks = config.tasks ? [...config.tasks] : taskSpecs(config.family, config.split, config.episodes, config.seed, config.options);
  const r = await rollout(
    { tasks, k: 1, seed: config.agentSeed ?? config.seed, ...(config.turnLimit !== undefined ? { turnLimit: config.turnLimit } : {}) },
    agent,
    opts,
  );
  return { summary: summarize(config, agent.name, r.episodes), episodes: r.episodes };
}

/** How the policy plays: 'sampled' at temperature 1, 'greedy' at 0. */
export type PolicyMode = 'sampled' | 'greedy';

/** One mode of a policy evaluation: the summary, the training figures (rolloutMetrics) and the episodes. */
export interface PolicyModeResult {
  summary: EvalSummary;
  /** success, reward_mean, turns_mean, entropy, …, and for guess the early-answer and useless/repeated-question rates. */
  figures: Record<string, number>;
  episodes: RolloutEpisode[];
}

/** What the engine's policy plays with. */
export interface PolicyEvalOptions {
  /** Adapter id, null = base, omitted = the engine's active adapter. */
  adapter?: string | null;
  /** Longest reply; default the model's turnwise.maxReplyTokens. */
  maxNewTokens?: number;
  /** Most prompts per engine call (PolicyBatchAgent). */
  maxBatch?: number;
  /** Modes to play, in order; default both. */
  modes?: readonly PolicyMode[];
  /** Ends the play early (rollout.ts RolloutOptions.signal). */
  signal?: AbortSignal;
}

/** Plays the tasks with the engine's policy in each mode (sampled, greedy). */
export async function evaluatePolicy(
  engine: GenerateApi,
  config: EvalConfig,
  o: PolicyEvalOptions = {},
): Promise<Partial<Record<PolicyMode, PolicyModeResult>>> {
  const out: Partial<Record<PolicyMode, PolicyModeResult>> = {};
  for (const mode of o.modes ?? (['sampled', 'greedy'] as const)) {
    const sampling = { temperature: mode === 'greedy' ? 0 : 1, ...(o.maxNewTokens !== undefined ? { maxNewTokens: o.maxNewTokens } : {}) };
    const agent = await PolicyBatchAgent.create(engine, {
      sampling,
      ...(o.adapter !== undefined ? { adapter: o.adapter } : {}),
      ...(o.maxBatch ? { maxBatch: o.maxBatch } : {}),
    });
    const { summary, episodes } = await evaluate(config, agent, o.signal ? { signal: o.signal } : {});
    out[mode] = { summary, figures: rolloutMetrics(episodes), episodes };
  }
  return out;
}

/** The Train loop's held-out evaluation of one adapter. */
export interface HeldOutConfig {
  family: FamilyName;
  options?: JsonObject;
  /** Tasks (one episode each). */
  tasks: number;
  /** 'test' (default): held-out tasks; 'train': for tuning, so that the test split stays unseen (use seeds far from training draws). */
  split?: Split;
  /** Task i has seed `seed + i`; also the sampling seed. */
  seed: number;
  turnLimit?: number;
  maxNewTokens: number;
}

/** Sampled and greedy figures (rolloutMetrics) of one adapter. */
export interface HeldOutResult {
  adapter: string | null;
  sampled: Record<string, number>;
  greedy: Record<string, number>;
  /** Each task's success (1 or 0), in task order: two results over the same tasks pair up (successStats.ts pairedDifference). */
  perTask: Record<PolicyMode, number[]>;
}

/** Plays the held-out tasks with `adapter` (null = the base policy), sampled and greedy. */
export async function evaluateHeldOut(engine: GenerateApi, adapter: string | null, cfg: HeldOutConfig): Promise<HeldOutResult> {
  const config: EvalConfig = {
    family: cfg.family,
    split: cfg.split ?? 'test',
    episodes: cfg.tasks,
    seed: cfg.seed,
    ...(cfg.options ? { options: cfg.options } : {}),
    ...(cfg.turnLimit ? { turnLimit: cfg.turnLimit } : {}),
  };
  const r = await evaluatePolicy(engine, config, { adapter, maxNewTokens: cfg.maxNewTokens });
  const sampled = r.sampled as PolicyModeResult;
  const greedy = r.greedy as PolicyModeResult;
  return {
    adapter,
    sampled: sampled.figures,
    greedy: greedy.figures,
    perTask: { sampled: perTaskSuccess(sampled.episodes, 1), greedy: perTaskSuccess(greedy.episodes, 1) },
  };
}

/** A Pass@(K,T) evaluation: n episodes of each task, each run to tMax turns. */
export interface PassKTConfig {
  family: FamilyName;
  split: Split;
  tasks: number;
  /** Episodes per task (every K ≤ n is estimated). */
  n: number;
  /** Task i uses seed `seed + i`; also mixed into the episode seeds. */
  seed: number;
  tMax: number;
  options?: JsonObject;
}

/** The grid and the plain figures of its episodes. */
export interface PassKTResult {
  /** grid[K−1][T−1] = Pass@(K,T), the unbiased estimator over tasks. */
  grid: number[][];
  /** perTask[task][K−1][T−1]: the same for each task alone (grid is their mean; the unit of a paired interval). */
  perTask: number[][][];
  episodes: RolloutEpisode[];
  successRate: number;
  meanTurns: number;
}

/** Plays n episodes of each task in one batched rollout and estimates Pass@(K,T) for K ≤ n, T ≤ tMax. */
export async function evaluatePassKT(config: PassKTConfig, agent: BatchAgent, opts: RolloutOptions = {}): Promise<PassKTResult> {
  const r = await rollout(
    { tasks: taskSpecs(config.family, config.split, config.tasks, config.seed, config.options), k: config.n, seed: config.seed, turnLimit: config.tMax },
    agent,
    opts,
  );
  const g = passKTGrid(successTurns(r), config.tMax);
  const grid = Array.from({ length: g.n }, (_, k) => Array.from({ length: g.tMax }, (_, t) => passKTAt(g, k + 1, t + 1)));
  const perTask = g.perTask.map((own) => Array.from({ length: g.n }, (_, k) => Array.from(own.subarray(k * g.tMax, (k + 1) * g.tMax))));
  const n = Math.max(1, r.episodes.length);
  return {
    grid,
    perTask,
    episodes: r.episodes,
    successRate: r.episodes.filter((e) => e.success).length / n,
    meanTurns: r.episodes.reduce((s, e) => s + e.turns.length, 0) / n,
  };
}
