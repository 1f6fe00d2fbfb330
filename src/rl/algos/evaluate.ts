// Held-out evaluation of a policy adapter: one episode per test-split task, sampled at temperature 1
// and greedy, side by side with the early-answer and useless/repeated-question rates (DESIGN.md:
// report sampled and greedy success together; sharpening alone raises one and lowers the other).
import type { FamilyName, JsonObject, Split } from '../envs/types.ts';
import { PolicyBatchAgent } from '../rollout/agents.ts';
import { rollout, taskSpecs } from '../rollout/rollout.ts';
import type { GenerateApi } from '../runtime/policyAgent.ts';
import { rolloutMetrics } from './metrics.ts';

/** What to evaluate. */
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
}

/**
 * The first task seed of an evaluation for run seed `seed`: test-split tasks from 100,000, train-split
 * ones (tuning) from 900,000, far from the training draws' hashed seeds. The CLI and the learning
 * benchmark both use it, so a case and its command evaluate the same tasks.
 */
export function heldOutSeed(split: Split, seed: number): number {
  return (split === 'train' ? 900_000 : 100_000) + seed;
}

/** Plays the held-out tasks with `adapter` (null = the base policy), sampled and greedy. */
export async function evaluateHeldOut(engine: GenerateApi, adapter: string | null, cfg: HeldOutConfig): Promise<HeldOutResult> {
  const tasks = taskSpecs(cfg.family, cfg.split ?? 'test', cfg.tasks, cfg.seed, cfg.options);
  const out: Partial<HeldOutResult> = { adapter };
  for (const mode of ['sampled', 'greedy'] as const) {
    const agent = await PolicyBatchAgent.create(engine, { adapter, sampling: { temperature: mode === 'greedy' ? 0 : 1, maxNewTokens: cfg.maxNewTokens } });
    const r = await rollout({ tasks, k: 1, seed: cfg.seed, ...(cfg.turnLimit ? { turnLimit: cfg.turnLimit } : {}) }, agent);
    out[mode] = rolloutMetrics(r.episodes);
  }
  return out as HeldOutResult;
}
