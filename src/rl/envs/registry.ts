// The family registry: every task family with its defaults, its environment constructor, its
// scripted agents and the per-family figures evaluation reports.
import { DEFAULT_NOISE, scriptedAgent, type FamilyAgents } from './agent.ts';
import { GuessEnv, GUESS_DEFAULTS } from './guess/env.ts';
import { guessAgents } from './guess/agents.ts';
import { guessMetrics } from './guess/metrics.ts';
import { ATTRIBUTES, ITEMS } from './guess/table.ts';
import { BackendEnv, BACKEND_DEFAULTS } from './backend/env.ts';
import { backendAgents } from './backend/agents.ts';
import { TEMPLATES } from './backend/templates.ts';
import { FrontendEnv, FRONTEND_DEFAULTS } from './frontend/env.ts';
import { frontendAgents } from './frontend/agents.ts';
import { BanditEnv, BANDIT_DEFAULTS, banditAgents } from './ragen/bandit.ts';
import { FrozenLakeEnv, FROZENLAKE_DEFAULTS, frozenLakeAgents } from './ragen/frozenlake.ts';
import { SokobanEnv, SOKOBAN_DEFAULTS, sokobanAgents } from './ragen/sokoban.ts';
import { CANONICAL_PHRASINGS, type Phrasings, type PhrasingSetting } from './phrasings.ts';
import { resolvePhrasings } from './phrasingsTraining.ts';
import { meanOf } from '../util/stats.ts';
import { EnvError, FAMILY_NAMES, type Agent, type AgentKind, type Env, type Episode, type FamilyName, type JsonObject } from './types.ts';

/** One family's entry. */
export interface FamilyInfo {
  name: FamilyName;
  /** One line for `turnwise tasks`. */
  description: string;
  /** True when a collaborator (simulated or a person) replies to the agent. */
  collaborative: boolean;
  /** Default options (TaskSpec.options overrides them); always include maxTurns. */
  defaults: JsonObject;
  /** A fresh environment whose simulated collaborator (if any) words its answers with `phrasings`. */
  create(phrasings: Phrasings): Env;
  /** Scripted moves for expert, noisy and random agents. */
  agents: FamilyAgents;
  /** Rough count of distinct episodes over both splits (each split holds about half). */
  distinctEpisodes: number;
  /** Family-specific means over evaluated episodes (e.g. information gain, similarity). */
  metrics(episodes: readonly Episode[]): Record<string, number>;
}

function invalidRate(eps: readonly Episode[]): number {
  const turns = eps.flatMap((e) => e.turns);
  return turns.length ? turns.filter((t) => t.info.invalidFormat).length / turns.length : 0;
}

function binomial(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

export const FAMILIES: Record<FamilyName, FamilyInfo> = {
  guess: {
    name: 'guess',
    description: `twenty questions over a ${ITEMS.length}-animal × ${ATTRIBUTES.length}-attribute table; 8 candidates named, T = 5`,
    collaborative: true,
    defaults: { ...GUESS_DEFAULTS },
    create: (p) => new GuessEnv(p.guess),
    agents: guessAgents,
    distinctEpisodes: binomial(ITEMS.length, 8) * 8,
    metrics: guessMetrics,
  },
  backend: {
    name: 'backend',
    description: `ColBench backend, scaled: ${TEMPLATES.length} function templates in our expression language; ask for the hidden numbers, then I WANT TO ANSWER: code; T = 10`,
    collaborative: true,
    defaults: { ...BACKEND_DEFAULTS },
    create: (p) => new BackendEnv(p.backend),
    agents: backendAgents,
    distinctEpisodes: TEMPLATES.reduce((a, t) => a + t.params.reduce((b, p) => b * p.values.length, 1), 0),
    metrics: (eps) => ({
      meanTestsPassed: meanOf(eps.map((e) => Number(e.turns[e.turns.length - 1]?.info.testsPassed ?? 0) / Number(e.turns[e.turns.length - 1]?.info.testsTotal ?? 1))),
      answeredRate: meanOf(eps.map((e) => (typeof e.turns[e.turns.length - 1]?.info.testsPassed === 'number' ? 1 : 0))),
      uselessQuestionRate: meanOf(eps.flatMap((e) => e.turns.filter((t) => t.info.reason === 'question').map((t) => (t.info.useless ? 1 : 0)))),
    }),
  },
  frontend: {
    name: 'frontend',
    description: 'ColBench frontend, scaled: match a hidden page in an HTML/CSS subset from listed differences; deterministic render similarity, success ≥ 0.9; T = 8',
    collaborative: true,
    defaults: { ...FRONTEND_DEFAULTS },
    create: () => new FrontendEnv(),
    agents: frontendAgents,
    distinctEpisodes: 1e12,
    metrics: (eps) => ({
      meanSimilarity: meanOf(eps.map((e) => Number(e.turns[e.turns.length - 1]?.info.similarity ?? 0))),
      unsafeRate: meanOf(eps.map((e) => (e.turns.some((t) => t.info.reason === 'unsafe') ? 1 : 0))),
    }),
  },
  bandit: {
    name: 'bandit',
    description: "RAGEN's two-armed bandit: symbolic arm names, safe 0.15 vs risky 1 w.p. 0.25; one pull",
    collaborative: false,
    defaults: { ...BANDIT_DEFAULTS },
    create: () => new BanditEnv(),
    agents: banditAgents,
    distinctEpisodes: 200,
    metrics: (eps) => ({ expectedReward: meanOf(eps.map((e) => Number(e.turns[e.turns.length - 1]?.info.expectedReward ?? 0))), riskyRate: meanOf(eps.map((e) => (e.turns.some((t) => t.info.risky === true) ? 1 : 0))) }),
  },
  frozenlake: {
    name: 'frozenlake',
    description: "RAGEN's FrozenLake: 4×4, moves slip with probability 2/3, +1 at the goal; T = 50",
    collaborative: false,
    defaults: { ...FROZENLAKE_DEFAULTS },
    create: () => new FrozenLakeEnv(),
    agents: frozenLakeAgents,
    // maps with 3–5 holes, about 1.9% of them passing both filters (measured)
    distinctEpisodes: 16 * 15 * (364 + 1001 + 2002) * 0.019,
    metrics: (eps) => ({ invalidRate: invalidRate(eps) }),
  },
  sokoban: {
    name: 'sokoban',
    description: "RAGEN's Sokoban: 6×6, one box; +1 on target, −1 off, +10 solved, −0.1 per step; T = 20",
    collaborative: false,
    defaults: { ...SOKOBAN_DEFAULTS },
    create: () => new SokobanEnv(),
    agents: sokobanAgents,
    // rooms with 0–3 inner walls × (target, box, player), 14.7% solvable in 6…20 moves (measured)
    distinctEpisodes: 187_000,
    metrics: (eps) => ({ invalidRate: invalidRate(eps), pushesPerEpisode: meanOf(eps.map((e) => e.turns.filter((t) => t.info.pushed === true).length)) }),
  },
};

/** How an environment is set up beyond its task. */
export interface EnvSettings {
  /**
   * How the simulated collaborator words its answers: 'canonical' (default; every published figure),
   * 'varied' (phrasingsTraining.ts TRAINING_PHRASINGS, for the forge's data) or explicit phrasings
   * (a `--phrasings` file, validated by phrasings.ts parsePhrasings). Families without a collaborator ignore it.
   */
  phrasings?: PhrasingSetting;
}

/** A fresh environment of the named family. */
export function createEnv(family: FamilyName, settings: EnvSettings = {}): Env {
  const info = FAMILIES[family];
  if (!info) throw new EnvError(`unknown family "${String(family)}" (known: ${FAMILY_NAMES.join(', ')})`);
  return info.create(settings.phrasings === undefined ? CANONICAL_PHRASINGS : resolvePhrasings(settings.phrasings));
}

/** A scripted agent of the named family. */
export function createAgent(kind: AgentKind, family: FamilyName, opts: { seed: number; noise?: number }): Agent {
  const info = FAMILIES[family];
  if (!info) throw new EnvError(`unknown family "${String(family)}" (known: ${FAMILY_NAMES.join(', ')})`);
  return scriptedAgent(info.agents, kind, { seed: opts.seed, noise: opts.noise ?? DEFAULT_NOISE });
}
