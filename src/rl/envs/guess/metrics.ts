// Per-episode figures for `guess` that docs/design.md asks to report beside success: mean information
// gain per question, useless/repeated question rates, early (wrong) guesses and questions per game.
import type { Episode } from '../types.ts';

export function guessMetrics(episodes: readonly Episode[]): Record<string, number> {
  let questions = 0;
  let gain = 0;
  let useless = 0;
  let repeated = 0;
  let wrongGuesses = 0;
  for (const ep of episodes) {
    for (const t of ep.turns) {
      if (typeof t.info.informationGain === 'number') {
        questions++;
        gain += t.info.informationGain;
        if (t.info.useless === true) useless++;
        if (t.info.repeated === true) repeated++;
      }
      if (t.info.reason === 'failed') wrongGuesses++;
    }
  }
  const q = Math.max(questions, 1);
  const n = Math.max(episodes.length, 1);
  return {
    questionsPerEpisode: questions / n,
    meanInformationGain: gain / q,
    uselessQuestionRate: useless / q,
    repeatedQuestionRate: repeated / q,
    wrongGuessRate: wrongGuesses / n,
  };
}
