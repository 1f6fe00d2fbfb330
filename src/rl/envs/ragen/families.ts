// RAGEN's single-agent games as family specs (family.ts): bandit, frozenlake and sokoban (Wang et
// al. 2025, arXiv 2504.20073), with their format-penalty figure (invalid moves).
import { meanOf } from '../../util/stats.ts';
import type { FamilySpec } from '../family.ts';
import type { Episode } from '../types.ts';
import { BanditEnv, BANDIT_DEFAULTS, banditAgents } from './bandit.ts';
import { FrozenLakeEnv, FROZENLAKE_DEFAULTS, frozenLakeAgents, frozenLakeOptionsJson } from './frozenlake.ts';
import { SokobanEnv, SOKOBAN_DEFAULTS, sokobanAgents, sokobanOptionsJson } from './sokoban.ts';

/** Share of turns whose action did not parse (RAGEN's format penalty). */
function invalidRate(eps: readonly Episode[]): number {
  const turns = eps.flatMap((e) => e.turns);
  return turns.length ? turns.filter((t) => t.info.invalidFormat).length / turns.length : 0;
}

export const banditFamily: FamilySpec = {
  name: 'bandit',
  description: "RAGEN's two-armed bandit: symbolic arm names, safe 0.15 vs risky 1 w.p. 0.25; one pull",
  collaborative: false,
  defaults: { ...BANDIT_DEFAULTS },
  create: () => new BanditEnv(),
  agents: banditAgents,
  distinctEpisodes: 200,
  metrics: (eps) => ({
    expectedReward: meanOf(eps.map((e) => Number(e.turns[e.turns.length - 1]?.info.expectedReward ?? 0))),
    riskyRate: meanOf(eps.map((e) => (e.turns.some((t) => t.info.risky === true) ? 1 : 0))),
  }),
  informationGain: false,
  solvedMeans: 'chose the arm with the higher expected payout (the payout itself is random, so a solved pull may pay 0)',
};

export const frozenlakeFamily: FamilySpec = {
  name: 'frozenlake',
  description: "RAGEN's FrozenLake: 4×4, moves slip with probability 2/3, +1 at the goal; T = 50",
  collaborative: false,
  defaults: frozenLakeOptionsJson(FROZENLAKE_DEFAULTS),
  create: () => new FrozenLakeEnv(),
  agents: frozenLakeAgents,
  // maps with 3–5 holes, about 1.9% of them passing both filters (measured)
  distinctEpisodes: 16 * 15 * (364 + 1001 + 2002) * 0.019,
  metrics: (eps) => ({ invalidRate: invalidRate(eps) }),
  informationGain: false,
  solvedMeans: 'reached the goal',
  board: true,
  stepNote: (info) => (info.slipped === true ? `The ice was slippery: the player slid somewhere other than ${String(info.action)}.` : null),
};

export const sokobanFamily: FamilySpec = {
  name: 'sokoban',
  description: "RAGEN's Sokoban: 6×6, one box; +1 on target, −1 off, +10 solved, −0.1 per step; T = 20",
  collaborative: false,
  defaults: sokobanOptionsJson(SOKOBAN_DEFAULTS),
  create: () => new SokobanEnv(),
  agents: sokobanAgents,
  // rooms with 0–3 inner walls × (target, box, player), 14.7% solvable in 6…20 moves (measured)
  distinctEpisodes: 187_000,
  metrics: (eps) => ({ invalidRate: invalidRate(eps), pushesPerEpisode: meanOf(eps.map((e) => e.turns.filter((t) => t.info.pushed === true).length)) }),
  informationGain: false,
  solvedMeans: 'pushed the box onto the target',
  board: true,
  stepNote: (info) =>
    info.stuck === true
      ? 'That push left the box where it can no longer reach the target: the puzzle cannot be solved from here.'
      : info.moved === false && info.reason === 'move'
        ? `${String(info.action)} changed nothing: a wall, or the box against a wall, is in the way.`
        : null,
};
