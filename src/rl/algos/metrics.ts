// Per-iteration figures of a training run (issue #8 point 4, RAGEN's Echo Trap diagnostics) from the
// iteration's rollouts, and the Echo Trap detector: within-group reward spread collapsing, gradient-
// norm spikes, and replies collapsing onto a few templates. For `guess` also the early-answer and
// useless/repeated-question rates DESIGN.md asks to report beside success.
import type { EpisodeTurn } from '../envs/types.ts';
import type { RolloutEpisode } from '../rollout/rollout.ts';
import type { EchoConfig } from './config.ts';
import { groupSpreads } from './groups.ts';

/** A guess turn that answered while more than one candidate remained. */
export function isEarlyAnswer(turn: EpisodeTurn): boolean {
  const r = turn.info.reason;
  const before = turn.info.remainingBefore;
  return (r === 'solved' || r === 'failed') && typeof before === 'number' && before > 1 && typeof turn.info.guess === 'string';
}

/** Figures of a set of episodes (task-major groups of k when k is given). */
export function rolloutMetrics(episodes: readonly RolloutEpisode[], k?: number): Record<string, number> {
  const n = Math.max(1, episodes.length);
  const returns = episodes.map((e) => e.totalReward);
  let tokens = 0;
  let nll = 0;
  let agentTurns = 0;
  const replies = new Set<string>();
  let questions = 0;
  let useless = 0;
  let repeated = 0;
  let early = 0;
  let isGuess = false;
  for (const e of episodes) {
    if (e.task.spec.family === 'guess') isGuess = true;
    e.turns.forEach((t) => {
      agentTurns++;
      replies.add(t.action);
      if (t.logprobs) for (const lp of t.logprobs) nll -= lp;
      tokens += t.completionTokens;
      if (typeof t.info.informationGain === 'number') {
        questions++;
        if (t.info.useless === true) useless++;
        if (t.info.repeated === true) repeated++;
      }
      if (isEarlyAnswer(t)) early++;
    });
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
  if (isGuess) {
    out.early_answer_rate = early / n;
    out.useless_question_rate = useless / Math.max(1, questions);
    out.repeated_question_rate = repeated / Math.max(1, questions);
  }
  return out;
}

function median(xs: readonly number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : 0;
}

/** Echo Trap warnings for this iteration given the run's history (RAGEN §4: spread collapses first, then grad norms spike, replies fall onto templates). */
export function echoTrapWarnings(
  cfg: EchoConfig,
  now: { spread: number; gradNorm: number; distinct: number },
  history: { spreads: readonly number[]; gradNorms: readonly number[]; firstDistinct: number | null },
): string[] {
  const out: string[] = [];
  const best = Math.max(0, ...history.spreads);
  if (best > 0 && now.spread < cfg.spreadDrop * best) {
    out.push(`Echo Trap: within-group reward spread ${now.spread.toFixed(3)} fell below ${Math.round(cfg.spreadDrop * 100)}% of its best ${best.toFixed(3)}`);
  }
  const med = median(history.gradNorms);
  if (history.gradNorms.length >= 2 && med > 0 && now.gradNorm > cfg.gradSpike * med) {
    out.push(`Echo Trap: gradient norm ${now.gradNorm.toFixed(3)} is ${(now.gradNorm / med).toFixed(1)}× its recent median`);
  }
  const first = history.firstDistinct;
  if (first !== null && first > 0 && now.distinct < cfg.distinctDrop * first) {
    out.push(`Echo Trap: only ${(now.distinct * 100).toFixed(0)}% of replies are distinct, below ${Math.round(cfg.distinctDrop * 100)}% of the first iteration's ${(first * 100).toFixed(0)}% (repeated templates)`);
  }
  return out;
}

/** True when a loss is non-finite or spikes above spikeFactor × the recent median |loss| (and above minLoss). */
export function isLossSpike(loss: number, history: readonly number[], spikeFactor: number, minLoss: number): boolean {
  if (!Number.isFinite(loss)) return true;
  if (history.length < 3) return false;
  const med = median(history.map(Math.abs));
  return Math.abs(loss) > minLoss && Math.abs(loss) > spikeFactor * Math.max(med, 1e-8);
}
