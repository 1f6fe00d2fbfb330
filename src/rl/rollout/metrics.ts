// Figures of a set of played episodes, the same for a training iteration (algos/loop.ts) and a
// held-out evaluation (rollout/evaluate.ts): success, reward mean and within-group spread (RAGEN's
// Echo Trap reads its collapse), reply length, sampled-token entropy, distinct replies, and for
// `guess` the early-answer, ran-out-of-turns and wasted/useless/repeated-question rates docs/design.md
// asks to report beside success.
import type { EpisodeTurn } from '../envs/types.ts';
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

/**
 * A guess turn that answered while more than one candidate remained and a turn was still left to
 * ask (turn index `index` of an episode of at most `maxTurns`): the guess forced by the last turn
 * is no early answer, it is the best move left (issue 19 point 3: 205 of 206 "early" guesses of
 * the base policy were on the last turn).
 */
export function isEarlyAnswer(turn: EpisodeTurn, index: number, maxTurns: number): boolean {
  const r = turn.info.reason;
  const before = turn.info.remainingBefore;
  return (r === 'solved' || r === 'failed') && typeof before === 'number' && before > 1 && typeof turn.info.guess === 'string' && index < maxTurns - 1;
}

/** A guess question that could not narrow the candidates (information gain 0) or asked again. */
function isWastedQuestion(turn: EpisodeTurn): boolean {
  return typeof turn.info.informationGain === 'number' && (turn.info.useless === true || turn.info.repeated === true);
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
  let ranOut = 0;
  let wasted = 0;
  let withWaste = 0;
  let isGuess = false;
  for (const e of episodes) {
    if (e.task.spec.family === 'guess') isGuess = true;
    if (e.turns.at(-1)?.info.reason === 'turn-limit') ranOut++;
    const w = e.turns.filter(isWastedQuestion).length;
    wasted += w;
    if (w > 0) withWaste++;
    e.turns.forEach((t, i) => {
      agentTurns++;
      replies.add(t.action);
      if (t.logprobs) for (const lp of t.logprobs) nll -= lp;
      tokens += t.completionTokens;
      if (typeof t.info.informationGain === 'number') {
        questions++;
        if (t.info.useless === true) useless++;
        if (t.info.repeated === true) repeated++;
      }
      if (isEarlyAnswer(t, i, e.task.maxTurns)) early++;
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
    // per episode: a guess before the last turn with several candidates left; the turn limit hit;
    // wasted (useless or repeated) questions, their mean and the share of episodes with any
    out.early_answer_rate = early / n;
    out.ran_out_of_turns_rate = ranOut / n;
    out.wasted_questions_mean = wasted / n;
    out.wasted_question_episode_rate = withWaste / n;
    out.useless_question_rate = useless / Math.max(1, questions);
    out.repeated_question_rate = repeated / Math.max(1, questions);
  }
  return out;
}
