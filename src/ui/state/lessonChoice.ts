// What the family menus of Play, Train and Evaluate choose (issue #45): a family at the task options
// the loaded policy was forged on, or one of the family's lessons (envs/family.ts Lesson). One
// encoding for the menu's value and one reading of the options, so the three views agree.
import type { LessonStart } from '../../rl/envs/family.ts';
import { FAMILY_NAMES, LESSONS, type FamilyLesson, type FamilyName } from '../../rl/envs/registry.ts';
import type { JsonObject } from '../../rl/envs/types.ts';
import { taskOptions, type ModelMeta } from '../../rl/runtime/api.ts';

/** The chosen lesson when it belongs to the chosen family; null otherwise (a family chosen elsewhere, e.g. by a resumed episode, leaves the lesson). */
export function chosenLesson(family: FamilyName, lesson: string | null): FamilyLesson | null {
  return LESSONS.find((l) => l.name === lesson && l.family === family) ?? null;
}

/** A choice's task options: the lesson's, else those the policy was forged on (undefined: the family's defaults). */
export function choiceOptions(policy: ModelMeta | undefined, family: FamilyName, lesson: string | null): JsonObject | undefined {
  return chosenLesson(family, lesson)?.options ?? taskOptions(policy, family);
}

/** The policy a choice plays from: the lesson's start (the shipped policy or the forge's student), else the shipped policy. */
export function choiceStart(family: FamilyName, lesson: string | null): LessonStart {
  return chosenLesson(family, lesson)?.start ?? 'policy';
}

/** The menu's value of a choice: the family's name, or family@lesson. */
export function choiceValue(family: FamilyName, lesson: string | null): string {
  const l = chosenLesson(family, lesson);
  return l ? `${family}@${l.name}` : family;
}

/** The choice a menu value stands for (choiceValue's inverse); an unknown family keeps `fallback`. */
export function parseChoice(value: string, fallback: FamilyName): { family: FamilyName; lesson: string | null } {
  const [name, lesson] = value.split('@');
  const family = (FAMILY_NAMES as readonly string[]).includes(name) ? (name as FamilyName) : fallback;
  return { family, lesson: chosenLesson(family, lesson ?? null)?.name ?? null };
}
