// The figures of `guess` episodes that docs/design.md asks to report beside success, counted once
// (guessCounts) and read two ways: evaluation's family metrics (guessMetrics: information gain per
// question, useless/repeated question rates, wrong guesses, questions per game) and the training
// iteration's figures (guessRolloutMetrics, snake_case: early answers, turn limit, wasted questions).
import type { Episode, EpisodeTurn } from '../types.ts';

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

/** A question: a turn whose step reports its information gain. */
function isQuestion(turn: EpisodeTurn): boolean {
  return typeof turn.info.informationGain === 'number';
}

/** A question that could not narrow the candidates (information gain 0) or asked again. */
function isWastedQuestion(turn: EpisodeTurn): boolean {
  return isQuestion(turn) && (turn.info.useless === true || turn.info.repeated === true);
}

/** What both readings count over a set of episodes. */
interface GuessCounts {
  episodes: number;
  questions: number;
  /** Summed information gain of the questions (bits). */
  gain: number;
  useless: number;
  repeated: number;
  wrongGuesses: number;
  early: number;
  ranOut: number;
  wasted: number;
  /** Episodes with at least one wasted question. */
  withWaste: number;
}

function guessCounts(episodes: readonly Episode[]): GuessCounts {
  const c: GuessCounts = {
    episodes: episodes.length,
    questions: 0,
    gain: 0,
    useless: 0,
    repeated: 0,
    wrongGuesses: 0,
    early: 0,
    ranOut: 0,
    wasted: 0,
    withWaste: 0,
  };
  for (const e of episodes) {
    if (e.turns.at(-1)?.info.reason === 'turn-limit') c.ranOut++;
    const w = e.turns.filter(isWastedQuestion).length;
    c.wasted += w;
    if (w > 0) c.withWaste++;
    e.turns.forEach((t, i) => {
      if (isQuestion(t)) {
        c.questions++;
        c.gain += t.info.informationGain as number;
        if (t.info.useless === true) c.useless++;
        if (t.info.repeated === true) c.repeated++;
      }
      if (t.info.reason === 'failed') c.wrongGuesses++;
      if (isEarlyAnswer(t, i, e.task.maxTurns)) c.early++;
    });
  }
  return c;
}

/** Evaluation's family metrics (rollout/evaluate.ts `metrics`). */
export function guessMetrics(episodes: readonly Episode[]): Record<string, number> {
  const c = guessCounts(episodes);
  const q = Math.max(c.questions, 1);
  const n = Math.max(c.episodes, 1);
  return {
    questionsPerEpisode: c.questions / n,
    meanInformationGain: c.gain / q,
    uselessQuestionRate: c.useless / q,
    repeatedQuestionRate: c.repeated / q,
    wrongGuessRate: c.wrongGuesses / n,
  };
}

/**
 * The iteration's figures (rollout/metrics.ts rolloutMetrics): per episode, a guess before the last
 * turn with several candidates left; the turn limit hit; wasted (useless or repeated) questions, their
 * mean and the share of episodes with any; and the useless and repeated shares of the questions.
 */
export function guessRolloutMetrics(episodes: readonly Episode[]): Record<string, number> {
  const c = guessCounts(episodes);
  const n = Math.max(1, c.episodes);
  return {
    early_answer_rate: c.early / n,
    ran_out_of_turns_rate: c.ranOut / n,
    wasted_questions_mean: c.wasted / n,
    wasted_question_episode_rate: c.withWaste / n,
    useless_question_rate: c.useless / Math.max(1, c.questions),
    repeated_question_rate: c.repeated / Math.max(1, c.questions),
  };
}
