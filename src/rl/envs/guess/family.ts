// `guess` as a family spec (family.ts): twenty questions over the shipped attribute table, with
// exact information gain per question (the ground truth of credit) and its figures (metrics.ts).
import type { FamilySpec } from '../family.ts';
import { guessAgents } from './agents.ts';
import { GuessEnv, GUESS_DEFAULTS, guessOptionsJson } from './env.ts';
import { guessMetrics, guessRolloutMetrics } from './metrics.ts';
import { ATTRIBUTES, ITEMS } from './table.ts';

function binomial(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

export const guessFamily: FamilySpec = {
  name: 'guess',
  description: `twenty questions over a ${ITEMS.length}-animal × ${ATTRIBUTES.length}-attribute table; 8 candidates named, T = 5`,
  collaborative: true,
  // as a task names them (no pool unless one is set), so a task of the defaults reads its family's defaults
  defaults: guessOptionsJson(GUESS_DEFAULTS),
  create: (p) => new GuessEnv(p.guess),
  agents: guessAgents,
  distinctEpisodes: binomial(ITEMS.length, 8) * 8,
  metrics: guessMetrics,
  rolloutMetrics: guessRolloutMetrics,
  informationGain: true,
  solvedMeans: 'guessed the hidden animal',
  lessons: [
    {
      name: 'turns-decide',
      label: 'Guess, 8 animals from 13, 4 turns: where one question decides',
      options: { candidates: 8, maxTurns: 4, pool: 13 },
      why:
        'Measured 2026-12-06 and 2026-12-07 (docs/experiments/2026-12-06-lesson-settings.md, 2026-12-07-forge-third-one-run.md): ' +
        "a wasted question costs 30.5 points of win probability; the lesson starts from the forge's student (stage 19 of the third generation), " +
        "which wins 57.5% sampled and 63.5% greedy against the noisy teacher's 75.5% and the expert's 100%, " +
        "and the expert's label on every state it visits (DAgger, 50 iterations) gains +21 points sampled.",
      // the final policy starts higher (64.5%) and GRPO gains +6 and 0 there; from stage 19 +16.7 on average (3 seeds)
      start: 'student',
    },
  ],
};
