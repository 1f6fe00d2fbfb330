// Evaluation over held-out tasks: success rate, mean reward, mean turns and Pass@(1,T) for
// T = 1…maxTurns (one episode per task, so Pass@(1,T) = share solved within T turns; the unbiased
// K > 1 estimator 1 − C(n−c,K)/C(n,K) lives with the rollout code).
import { runEpisode } from './episode.ts';
import { FAMILIES, createEnv } from './registry.ts';
import type { Agent, Episode, FamilyName, JsonObject, Split } from './types.ts';

/** What to evaluate. */
export interface EvalConfig {
  family: FamilyName;
  split: Split;
  /** Number of tasks (one episode each). */
  episodes: number;
  /** Task i uses seed `seed + i`. */
  seed: number;
  /** Family option overrides. */
  options?: JsonObject;
}

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

/** Plays `episodes` tasks with a fresh agent per task (makeAgent receives the task seed). */
export async function evaluate(config: EvalConfig, makeAgent: (seed: number) => Agent): Promise<{ summary: EvalSummary; episodes: Episode[] }> {
  const env = createEnv(config.family);
  const episodes: Episode[] = [];
  let name = '';
  for (let i = 0; i < config.episodes; i++) {
    const seed = config.seed + i;
    const agent = makeAgent(seed);
    name = agent.name;
    episodes.push(await runEpisode(env, agent, { family: config.family, split: config.split, seed, options: config.options }));
  }
  const n = Math.max(episodes.length, 1);
  const maxT = Math.max(1, ...episodes.map((e) => e.task.maxTurns));
  const passAt1 = Array.from({ length: maxT }, (_, t) => episodes.filter((e) => e.success && e.turns.length <= t + 1).length / n);
  const summary: EvalSummary = {
    family: config.family,
    split: config.split,
    agent: name,
    episodes: episodes.length,
    seed: config.seed,
    successRate: episodes.filter((e) => e.success).length / n,
    meanReward: episodes.reduce((a, e) => a + e.totalReward, 0) / n,
    meanTurns: episodes.reduce((a, e) => a + e.turns.length, 0) / n,
    passAt1,
    metrics: FAMILIES[config.family].metrics(episodes),
  };
  return { summary, episodes };
}
