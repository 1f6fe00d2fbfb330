// `backend` as a family spec (family.ts): ColBench's backend task, scaled, in our expression language.
import { meanOf } from '../../util/stats.ts';
import type { FamilySpec } from '../family.ts';
import { backendAgents } from './agents.ts';
import { BackendEnv, BACKEND_DEFAULTS } from './env.ts';
import { TEMPLATES } from './templates.ts';

export const backendFamily: FamilySpec = {
  name: 'backend',
  description: `ColBench backend, scaled: ${TEMPLATES.length} function templates in our expression language; ask for the hidden numbers, then I WANT TO ANSWER: code; T = 10`,
  collaborative: true,
  defaults: { ...BACKEND_DEFAULTS },
  create: (p) => new BackendEnv(p.backend),
  agents: backendAgents,
  distinctEpisodes: TEMPLATES.reduce((a, t) => a + t.params.reduce((b, p) => b * p.values.length, 1), 0),
  metrics: (eps) => ({
    meanTestsPassed: meanOf(
      eps.map((e) => Number(e.turns[e.turns.length - 1]?.info.testsPassed ?? 0) / Number(e.turns[e.turns.length - 1]?.info.testsTotal ?? 1)),
    ),
    answeredRate: meanOf(eps.map((e) => (typeof e.turns[e.turns.length - 1]?.info.testsPassed === 'number' ? 1 : 0))),
    uselessQuestionRate: meanOf(eps.flatMap((e) => e.turns.filter((t) => t.info.reason === 'question').map((t) => (t.info.useless ? 1 : 0)))),
  }),
  informationGain: false,
  solvedMeans: 'the answer passed every hidden unit test',
};
