// `frontend` as a family spec (family.ts): ColBench's frontend task, scaled, with our deterministic rasteriser.
import { meanOf } from '../../util/stats.ts';
import type { FamilySpec } from '../family.ts';
import { frontendAgents } from './agents.ts';
import { FrontendEnv, FRONTEND_DEFAULTS, frontendOptionsJson } from './env.ts';

export const frontendFamily: FamilySpec = {
  name: 'frontend',
  description:
    'ColBench frontend, scaled: match a hidden page in an HTML/CSS subset from listed differences; deterministic render similarity, success ≥ 0.9; T = 8',
  collaborative: true,
  defaults: frontendOptionsJson(FRONTEND_DEFAULTS),
  create: () => new FrontendEnv(),
  agents: frontendAgents,
  distinctEpisodes: 1e12,
  metrics: (eps) => ({
    meanSimilarity: meanOf(eps.map((e) => Number(e.turns[e.turns.length - 1]?.info.similarity ?? 0))),
    unsafeRate: meanOf(eps.map((e) => (e.turns.some((t) => t.info.reason === 'unsafe') ? 1 : 0))),
  }),
  informationGain: false,
  solvedMeans: "the page's similarity to the hidden design reached the success threshold",
};
