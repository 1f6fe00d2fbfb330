// What a task family is, in one object (issue #44): its environment, options, scripted agents, the
// figures evaluation and training report for it, and the hints the views read. Each family's spec
// lives in its own folder (guess/family.ts, backend/family.ts, frontend/family.ts, ragen/families.ts);
// registry.ts lists them (its keys are the family names), and the views and commands loop over that
// list. To add a family: its folder with a spec, and one line in registry.ts. A family may name
// lessons (issue #45): settings chosen by measurement where learning can show, offered by name in the
// views, the CLI's --lesson and the learning benchmark beside the forged settings.
import type { FamilyAgents } from './agent.ts';
import type { Phrasings } from './phrasings.ts';
import type { Env, Episode, JsonObject } from './types.ts';
import type { FamilyName } from './registry.ts';

/**
 * The policy a lesson starts from, named as in the models' manifest.json: 'policy', the shipped
 * policy, or 'student', an earlier checkpoint of the same forge (less training, nothing else; issue
 * #45), which `forge --student K` writes beside it. Every command and view that plays or trains a
 * lesson loads this model as its policy, and an adapter trained on it records it as its base.
 */
export type LessonStart = 'policy' | 'student';

/** A lesson's start in words, for menus, usage texts and reports. */
export function startWords(start: LessonStart): string {
  return start === 'student' ? "the forge's student (an earlier checkpoint of the shipped policy's forge)" : 'the shipped policy';
}

/**
 * A lesson: one setting of a family's options where one bad turn costs a lot, the starting policy has
 * headroom below its teachers, and the best-signal learner gains within a case's budget (issue #45's
 * (a)–(d)), each figure measured and cited in `why`.
 */
export interface Lesson {
  /** Kebab-case, unique over every family's lessons (`--lesson NAME`, the benchmark's `algo:family@NAME:seed`). */
  name: string;
  /** Plain words for the menus: the family, the setting, what makes it a lesson. */
  label: string;
  /** The family options the lesson's tasks use (train and held-out alike). */
  options: JsonObject;
  /** One sentence: the measurements that chose it, and where they are written. */
  why: string;
  /** Which policy the lesson starts from. */
  start: LessonStart;
}

/** One task family. */
export interface FamilySpec {
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
  /** Family-specific means over evaluated episodes (e.g. information gain, similarity): evaluation's `metrics`. */
  metrics(episodes: readonly Episode[]): Record<string, number>;
  /**
   * Family-specific figures of a training iteration or evaluation (rollout/metrics.ts rolloutMetrics),
   * snake_case beside success, e.g. guess's early-answer rate; over all the episodes given.
   */
  rolloutMetrics?(episodes: readonly Episode[]): Record<string, number>;
  /** Whether its steps report info.informationGain (a question's expected gain in bits): the information-gain reward and ground truth apply. */
  informationGain: boolean;
  /** What "solved" means here, in words a person reads beside the outcome (a bandit is solved by its choice, not its reward). */
  solvedMeans: string;
  /** Its observations are text boards (grids): the views draw them in a fixed-width font so columns line up. */
  board?: boolean;
  /** A plain-words note on what a step did that its observation leaves implicit (a move into a wall, a stuck box), or null. */
  stepNote?(info: JsonObject): string | null;
  /** Its lessons, each measured (docs/experiments); none where no setting has been measured to meet issue #45's checks. */
  lessons?: readonly Lesson[];
}
