// `--lesson NAME` for the commands that pose tasks (train, eval, passkt, credit-report): a family's
// measured lesson (envs/family.ts Lesson, issue #45) sets the family and its options, read from the
// registry, so the usage and the checks follow when a family gains a lesson.
import { UsageError } from './command.ts';
import { startWords } from '../rl/envs/family.ts';
import { LESSONS, type FamilyLesson } from '../rl/envs/registry.ts';

/** The known lessons, for usage texts and error messages: `turns-decide (guess)`. */
const known = () => LESSONS.map((l) => `${l.name} (${l.family})`).join(', ') || 'none';

/** The usage's lines on --lesson, from the registry. */
export function lessonUsage(): string[] {
  return [
    "--lesson NAME: a family's measured lesson sets --family (which may be left out) and the options (not with --options),",
    "  and the policy plays from the lesson's start (the shipped policy, or the forge's student in --models):",
    ...LESSONS.map((l) => `  ${l.name.padEnd(14)}${l.label}; --options '${JSON.stringify(l.options)}'; starts from ${startWords(l.start)}`),
  ];
}

/**
 * The lesson `--lesson` names, checked against `--family` and `--options`; undefined without --lesson.
 * `--options` beside it is an error (the lesson is its options); so is a `--family` it does not belong to.
 */
export function lessonOption(values: { lesson?: unknown; family?: unknown; options?: unknown }): FamilyLesson | undefined {
  if (values.lesson === undefined) return undefined;
  const name = String(values.lesson);
  if (values.options !== undefined) throw new UsageError(`--lesson ${name} sets the family options: drop --options (or drop --lesson to set them yourself)`);
  const lesson = LESSONS.find((l) => l.name === name);
  if (!lesson) throw new UsageError(`unknown lesson "${name}" (known: ${known()})`);
  if (values.family !== undefined && values.family !== lesson.family)
    throw new UsageError(`--lesson ${name} is a ${lesson.family} lesson; it does not go with --family ${String(values.family)}`);
  return lesson;
}
