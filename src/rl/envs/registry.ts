// The family registry: every task family's spec (family.ts), each from its own folder. Views and
// commands loop over it, and the family names (FamilyName, FAMILY_NAMES) are its keys; to add a
// family, write its folder with a spec and add one line here, keyed by the spec's name.
import { DEFAULT_NOISE, scriptedAgent } from './agent.ts';
import { backendFamily } from './backend/family.ts';
import type { FamilySpec } from './family.ts';
import { frontendFamily } from './frontend/family.ts';
import { guessFamily } from './guess/family.ts';
import { banditFamily, frozenlakeFamily, sokobanFamily } from './ragen/families.ts';
import { CANONICAL_PHRASINGS, type PhrasingSetting } from './phrasings.ts';
import { resolvePhrasings } from './phrasingsTraining.ts';
import { EnvError, type Agent, type AgentKind, type Env } from './types.ts';

/**
 * Every family by its spec's name, in display order. Not annotated: the family names are its keys
 * (an annotation naming FamilyName would make the type its own source).
 */
export const FAMILIES = {
  guess: guessFamily,
  backend: backendFamily,
  frontend: frontendFamily,
  bandit: banditFamily,
  frozenlake: frozenlakeFamily,
  sokoban: sokobanFamily,
} as const satisfies Record<string, FamilySpec>;

/** A task family's name. */
export type FamilyName = keyof typeof FAMILIES;

/** Every task family, in display order. */
export const FAMILY_NAMES = Object.keys(FAMILIES) as readonly FamilyName[];

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
