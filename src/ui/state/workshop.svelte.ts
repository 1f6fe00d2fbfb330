// Workshop mode (UI.md): a guided lesson of five steps a teacher runs in front of a class, each one
// sentence and one action. An action opens the right view with the right settings (a preset the
// view applies once); the person then presses the view's own buttons, so nothing is faked. The
// steps lean on state that outlives a view: the episode of step 1 is still in Play at step 3 (the
// Lab owns it), and the adapter step 4 trains is the live one Evaluate compares at step 5.
import type { Lab, ViewId } from './lab.svelte.ts';

/** Settings a view applies when it opens, then forgets. */
export interface Presets {
  /** A family and agent to choose, whether to start an episode, a credit slider to bring into view and focus. */
  play?: { family?: 'guess'; agentKind?: 'policy' | 'noisy'; start?: boolean; focus?: { estimator: 'mc'; param: 'gamma' } };
  train?: { algo: 'grpo' | 'sweet'; family: 'guess'; iterations: number };
  evaluate?: { family: 'guess' };
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
    text: 'Start three iterations of GRPO on guess and watch success, reward spread and the gradient norm move as the adapter learns.',
    action: 'Set up training',
    view: 'train',
    presets: () => ({ train: { algo: 'grpo', family: 'guess', iterations: 3 } }),
  },
  {
    title: 'See Pass@(K,T) change',
    text: 'Compute Pass@(K,T) for the base policy and the new adapter: the difference map shows where training helped — more tasks solved, or the same ones faster.',
    action: 'Open Evaluate',
    view: 'evaluate',
    presets: () => ({ evaluate: { family: 'guess' } }),
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
