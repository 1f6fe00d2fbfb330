// What a training iteration spent and how far it moved the policy, as the loop (loop.ts) reports it:
//  - compute: train steps, real and padded tokens and seconds over every learner, and the engine's
//    scoring, read from the learners' and the context's meters before and after the iteration;
//  - KL of an adapter from the policy that played the rollouts, on the rollouts' own sampled tokens,
//    by the k3 estimator (Schulman, "Approximating KL divergence", 2020: E[r − 1 − log r],
//    r = π_adapter/π_rollout, unbiased and never negative), as kl_ref against the base policy and as
//    the update guard's measure of a candidate adapter.
import { loraLeavesLogits } from '../model/llama/weights.ts';
import type { AlgoContext, ScoreMeter } from './context.ts';
import type { Learner } from './learner.ts';
import type { Row } from './rows.ts';

/** Where an iteration's compute went (metrics of the same names; tokens are real, padding excluded, but for train_padded_tokens). */
export type IterationCost = Record<'train_steps' | 'train_tokens' | 'train_padded_tokens' | 'train_seconds' | 'score_tokens' | 'score_seconds', number>;

/** Tokens and seconds spent so far in train steps (every learner) and in scoring. */
export function costSoFar(learners: readonly Learner[], scores: ScoreMeter): IterationCost {
  const sum = (f: (l: Learner) => number) => learners.reduce((a, l) => a + f(l), 0);
  return {
    train_steps: sum((l) => l.meter.steps),
    train_tokens: sum((l) => l.meter.tokens),
    train_padded_tokens: sum((l) => l.meter.paddedTokens),
    train_seconds: sum((l) => l.meter.seconds),
    score_tokens: scores.tokens,
    score_seconds: scores.seconds,
  };
}

/** What was spent between two readings of costSoFar. */
export function costSince(before: IterationCost, now: IterationCost): IterationCost {
  return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - before[k as keyof IterationCost]])) as IterationCost;
}

/**
 * Whether the policy learner's adapter leaves the logits as the base's (a run's first iteration, its
 * LoRA B still zero), so that kl_ref is 0 without a scoring pass.
 */
export function leavesBase(policy: Learner | undefined): boolean {
  return policy !== undefined && loraLeavesLogits(policy.adapter().weights);
}

/**
 * Mean k3 estimate over the rollouts' sampled tokens (rows with old_logp) of KL(π_rollout ‖ π_adapter): with adapter
 * null (the base policy) the iteration's kl_ref; with the updated adapter, how far the update moved
 * the policy on its own data.
 */
export async function rolloutKl(ctx: AlgoContext, withOld: readonly Row[], adapter: string | null): Promise<number> {
  if (withOld.length === 0) return 0;
  const ref = await ctx.positionLogprobs('policy', adapter, withOld);
  let sum = 0;
  let n = 0;
  withOld.forEach((row, i) => {
    const mask = row.f.loss_mask ?? [];
    const old = row.f.old_logp ?? [];
    for (let j = 0; j < mask.length; j++) {
      if (!mask[j]) continue;
      const lr = ref[i][j] - old[j];
      sum += Math.exp(lr) - 1 - lr;
      n++;
    }
  });
  return n ? sum / n : 0;
}
