// Workshop mode (UI.md): a guided lesson of five steps a teacher runs in front of a class, each one
// sentence and one action. An action opens the right view with the right settings (a preset the
// view applies once); the person then presses the view's own buttons, so nothing is faked. The
// steps lean on state that outlives a view: the episode of step 1 is still in Play at step 3 (the
// Lab owns it), and the adapter step 4 trains is the live one Evaluate compares at step 5. Steps 4
// and 5 train and evaluate on guess's lesson (issue #45), where one wasted question decides a game and
// the shipped policy has room to learn; its forged setting (4 candidates) leaves it little.
import type { Lab, ViewId } from './lab.svelte.ts';
import { findLesson } from '../../rl/envs/registry.ts';

/** The lesson steps 4 and 5 train and evaluate on (guess/family.ts). */
export const WORKSHOP_LESSON = findLesson('turns-decide');

/**
 * The workshop's training budget, step 4's preset: GRPO with the information-gain turn reward (0.1 per
 * bit of each question) at lr 5e-4, with the validation guard off, set here alone. Measured in Node on
 * the lesson (issue #45, docs/experiments/2026-12-06-lesson-learning.md): 50 iterations of this took
 * held-out success 58 → 72% sampled, 66 → 78.5% greedy (train-split tuning tasks, seed 1), plain GRPO
 * 58 → 68 / 66 → 76. The guard (a run ends on adapters that beat the best so far by 2 paired standard
 * errors of 128 tasks) is for long unattended runs: in a class's few minutes it cost a third of the
 * time and kept the start on one of two seeds of the workshop bench whose other gained +13 points;
 * step 5's paired interval on held-out tasks is the check the class sees. The workshop bench
 * (`npm run bench -- workshop`) measures the time and that interval.
 */
export const WORKSHOP_TRAINING = {
  algo: 'grpo',
  iterations: 40,
  tasksPerIteration: 8,
  k: 8,
  lr: 5e-4,
  infoGain: 0.1,
  overrides: '{"rollback": {"validateEvery": 0}}',
} as const;

/** Step 5's held-out tasks: enough that a gain of ~10 points can show beyond noise (8 tasks gave a ±25-point interval). */
export const WORKSHOP_EVALUATION = { tasks: 48 } as const;

/** Settings a view applies when it opens, then forgets. */
export interface Presets {
  /** A family and agent to choose, whether to start an episode, a credit slider to bring into view and focus. */
  play?: { family?: 'guess'; agentKind?: 'policy' | 'noisy'; start?: boolean; focus?: { estimator: 'mc'; param: 'gamma' } };
  /** An algorithm, family (and lesson: its name) and budget to set; tasks and K stay as they are when left out. */
  train?: {
    algo: 'grpo' | 'sweet';
    family: 'guess';
    lesson?: string;
    iterations: number;
    tasksPerIteration?: number;
    k?: number;
    /** The policy's learning rate (after the algorithm, whose choice resets it). */
    lr?: number;
    /** The information-gain turn reward's weight (the "Turn-level credit" group's field). */
    infoGain?: number;
    /** The form's JSON overrides ("Advanced"), shown to the person as they are. */
    overrides?: string;
  };
  evaluate?: { family: 'guess'; lesson?: string; tasks?: number };
  /** A stored episode to open. */
  credit?: { episode: string };
}

export interface WorkshopStep {
  title: string;
  /** One sentence of instruction. */
  text: string;
  /** The action button's label. */
  action: string;
  view: ViewId;
  /** What the action sets, read when it is pressed (a step may point at what an earlier one made). */
  presets?: (lab: Lab) => Presets;
}

export const WORKSHOP_STEPS: WorkshopStep[] = [
  {
    title: 'Play an episode',
    text: 'You are the collaborator: the agent must find the hidden animal by asking you yes/no questions — answer from the hidden information on the left.',
    action: 'Start a guess episode',
    view: 'play',
    presets: () => ({ play: { family: 'guess', agentKind: 'policy', start: true } }),
  },
  {
    title: 'Compare credit with information gain',
    text: 'Each cell says how much credit an estimator gave a turn; the outlined row is the truth — how many bits each question really gained.',
    action: 'Open the episode in Credit',
    view: 'credit',
    presets: (lab) => (lab.play.episodeId ? { credit: { episode: lab.play.episodeId } } : {}),
  },
  {
    title: 'Move the discount',
    text: 'Back in Play, slide γ down and watch the credit of early turns shrink: credit spreads backwards from the reward only as far as γ lets it.',
    action: 'Go to the γ slider',
    view: 'play',
    presets: () => ({ play: { focus: { estimator: 'mc', param: 'gamma' } } }),
  },
  {
    title: 'Train a few iterations',
    text: `Start ${WORKSHOP_TRAINING.iterations} iterations of GRPO on guess's lesson — 8 animals from 13, 4 turns, where one wasted question decides the game — with each question also rewarded for what it tells (its information gain) and no validation pauses, and watch success, reward spread and the gradient norm move as the adapter learns.`,
    action: 'Set up training',
    view: 'train',
    presets: () => ({ train: { ...WORKSHOP_TRAINING, family: 'guess', lesson: WORKSHOP_LESSON.name } }),
  },
  {
    title: 'See Pass@(K,T) change',
    text: `Compute Pass@(K,T) for ${WORKSHOP_LESSON.start === 'student' ? "the policy the lesson starts from (the forge's student)" : 'the base policy'} and the new adapter on the lesson's held-out tasks: the difference map shows where training helped — more tasks solved, or the same ones faster — and the line above it gives the change in success with its paired 95% interval; “within noise” means the interval includes zero.`,
    action: 'Open Evaluate',
    view: 'evaluate',
    presets: () => ({ evaluate: { family: 'guess', lesson: WORKSHOP_LESSON.name, ...WORKSHOP_EVALUATION } }),
  },
];

export class Workshop {
  open = $state(false);
  step = $state(0);

  constructor(private readonly lab: Lab) {}

  readonly current = $derived(WORKSHOP_STEPS[this.step]);

  start(): void {
    this.step = 0;
    this.open = true;
  }

  /** Runs the step's action: applies its presets and opens its view. */
  act(): void {
    const s = this.current;
    if (s.presets) this.lab.presets = { ...this.lab.presets, ...s.presets(this.lab) };
    this.lab.go(s.view);
  }

  next(): void {
    if (this.step < WORKSHOP_STEPS.length - 1) this.step++;
    else this.open = false;
  }

  back(): void {
    if (this.step > 0) this.step--;
  }

  close(): void {
    this.open = false;
  }
}
