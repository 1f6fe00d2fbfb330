// Figures of a set of played episodes, the same for a training iteration (algos/loop.ts) and a
// held-out evaluation (rollout/evaluate.ts): success, reward mean and within-group spread (RAGEN's
// Echo Trap reads its collapse), reply length, sampled-token entropy, distinct replies, and each
// family's own figures from its spec (envs/family.ts rolloutMetrics; for `guess` the early-answer,
// ran-out-of-turns and wasted/useless/repeated-question rates docs/design.md asks to report beside success).
import { FAMILIES } from '../envs/registry.ts';
import { RolloutError, type RolloutEpisode } from './rollout.ts';

/** Mean and population standard deviation of each group. */
export function groupSpreads(returns: ArrayLike<number>, k: number): { mean: number[]; std: number[] } {
  if (returns.length % k !== 0) throw new RolloutError('bad-config', `${returns.length} returns do not split into groups of ${k}`);
  const mean: number[] = [];
  const std: number[] = [];
  for (let g = 0; g < returns.length / k; g++) {
    let m = 0;
    for (let i = 0; i < k; i++) m += returns[g * k + i];
    m /= k;
    let v = 0;
    for (let i = 0; i < k; i++) v += (returns[g * k + i] - m) ** 2;
    mean.push(m);
    std.push(Math.sqrt(v / k));
  }
  return { mean, std };
}

/** Figures of a set of episodes (task-major groups of k when k is given). */
export function rolloutMetrics(episodes: readonly RolloutEpisode[], k?: number): Record<string, number> {
  const n = Math.max(1, episodes.length);
  const returns = episodes.map((e) => e.totalReward);
  let tokens = 0;
  let nll = 0;
  let agentTurns = 0;
  const replies = new Set<string>();
  for (const e of episodes) {
    for (const t of e.turns) {
      agentTurns++;
      replies.add(t.action);
      if (t.logprobs) for (const lp of t.logprobs) nll -= lp;
      tokens += t.completionTokens;
    }
  }
  const out: Record<string, number> = {
    episodes: episodes.length,
    reward_mean: returns.reduce((a, b) => a + b, 0) / n,
    success: episodes.filter((e) => e.success).length / n,
    turns_mean: agentTurns / n,
    response_length: tokens / Math.max(1, agentTurns),
    // E[−log π(a)] over sampled tokens at temperature 1: an unbiased estimate of the per-token entropy
    entropy: tokens > 0 ? nll / tokens : 0,
    distinct_replies: replies.size / Math.max(1, agentTurns),
  };
  if (k && episodes.length % k === 0 && episodes.length > 0) {
    const { std } = groupSpreads(returns, k);
    out.reward_spread = std.reduce((a, b) => a + b, 0) / std.length;
    out.zero_spread_groups = std.filter((s) => s <= 1e-6).length / std.length;
  }
  // each family's own figures (its spec's rolloutMetrics: guess's early answers and wasted questions)
  for (const family of new Set(episodes.map((e) => e.task.spec.family))) Object.assign(out, FAMILIES[family].rolloutMetrics?.(episodes));
  return out;
}
