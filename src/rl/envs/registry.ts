// The family registry: every task family's spec (family.ts), each from its own folder. Views and
// commands loop over it, and the family names (FamilyName, FAMILY_NAMES) are its keys; to add a
// family, write its folder with a spec and add one line here, keyed by the spec's name.
import { DEFAULT_NOISE, scriptedAgent } from './agent.ts';
import { backendFamily } from './backend/family.ts';
import type { FamilySpec, Lesson } from './family.ts';
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

/** A lesson with the family it belongs to. */
export interface FamilyLesson extends Lesson {
  family: FamilyName;
}

/** Every family's lessons (FamilySpec.lessons), in FAMILY_NAMES's order: the menus, `--lesson` and the learning benchmark read this list. */
export const LESSONS: readonly FamilyLesson[] = FAMILY_NAMES.flatMap((family) => (FAMILIES[family].lessons ?? []).map((l) => ({ ...l, family })));

/** The lesson of that name; EnvError naming the known ones otherwise. */
export function findLesson(name: string): FamilyLesson {
  const lesson = LESSONS.find((l) => l.name === name);
  if (!lesson) throw new EnvError(`unknown lesson "${name}" (known: ${LESSONS.map((l) => `${l.name} (${l.family})`).join(', ') || 'none'})`);
  return lesson;
}

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
