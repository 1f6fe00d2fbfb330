// The validation guard (issue #19): every `validateEvery` iterations and at the end of a run, the
// policy adapter plays the validation tasks (train-split tasks the rollouts never draw, config.ts
// validationTasks), sampled and greedy. The guard keeps the best adapters so far — those the run began
// with until an update beats them by 2 paired standard errors (guards.ts validationGain) — returns to
// them on a clear fall (validationDrop), and at the end of the run ends on them (early stopping).
// TrainingLoop owns the learners, the learning rate and the rollback count; the guard reads and
// replaces the learners' states through its host and says when the loop must roll back.
import { PolicyBatchAgent } from '../rollout/agents.ts';
import { rollout } from '../rollout/rollout.ts';
import { hashString } from '../util/rng.ts';
import { meanOf } from '../util/stats.ts';
import { validationTasks, type LoopConfig } from './config.ts';
import type { TrainEngine } from './context.ts';
import { validationDrop, validationGain } from './guards.ts';
import type { LearnerState, ValidationBest } from './types.ts';

/** Per validation task, success (0/1) of the sampled and the greedy episode, and their mean, the guard's outcome. */
export interface ValidationPlay {
  outcomes: number[];
  sampled: number[];
  greedy: number[];
}

/** What the guard needs of the loop. */
export interface ValidationHost {
  /** The learners' states now (adapters and AdamW state). */
  states(): LearnerState[];
  /** Returns the learners to saved states. */
  load(states: readonly LearnerState[]): void;
  /** The policy's current adapters on the validation tasks; null when the run was stopped during it. */
  play(): Promise<ValidationPlay | null>;
}

/** One validation: the mean outcome, its sampled and greedy parts, the start's score when first scored, and a fall to roll back from. */
export interface ValidationResult {
  score: number;
  sampled: number;
  greedy: number;
  /** The score of the adapters the run began with, when this validation scored them (the first). */
  start?: number;
  /** A clear fall below the best: the loop loads `to.states` and lowers the learning rate. */
  fell: { why: string; to: ValidationBest } | null;
}

/** What the end of a run decided: roll back after a clear fall, or keep earlier best adapters. */
export type ValidationEnd = { kind: 'fell'; why: string; to: ValidationBest } | { kind: 'kept'; warning: string };

export class ValidationGuard {
  /** The best adapters so far (checkpointed); null until the run's first step. */
  best: ValidationBest | null;
  /** The latest validation: its iteration, the score of the adapters it left, and whether those are the best. */
  private validated: { iteration: number; score: number; isBest: boolean } | null = null;

  constructor(
    private readonly host: ValidationHost,
    private readonly config: Pick<LoopConfig['rollback'], 'validateEvery' | 'validateDrop'>,
    best: ValidationBest | null = null,
  ) {
    this.best = best;
  }

  get enabled(): boolean {
    return this.config.validateEvery > 0;
  }

  /** Remembers the adapters the run begins with as the first reference (scored when first needed). */
  begin(iteration: number): void {
    if (this.enabled && !this.best) this.best = { iteration, outcomes: [], states: this.host.states() };
  }

  /** Whether the iteration just completed (1-based count) is due a validation. */
  due(completed: number): boolean {
    return this.enabled && completed % this.config.validateEvery === 0;
  }

  /**
   * Scores the current adapters and keeps them as the best if they clearly beat the best so far
   * (validationGain); if they fell below it (validationDrop), says so and to which adapters the loop
   * must return. Null when the run was stopped during it: nothing changes.
   */
  async check(iteration: number): Promise<ValidationResult | null> {
    const played = await this.host.play();
    if (!played) return null;
    const { outcomes } = played;
    const score = meanOf(outcomes);
    const result: ValidationResult = { score, sampled: meanOf(played.sampled), greedy: meanOf(played.greedy), fell: null };
    if (this.best && this.best.outcomes.length === 0) {
      const now = this.host.states();
      this.host.load(this.best.states);
      const first = await this.host.play();
      this.host.load(now);
      if (!first) return null;
      this.best = { ...this.best, outcomes: first.outcomes };
      result.start = meanOf(first.outcomes);
    }
    const best = this.best;
    const why = best ? validationDrop(outcomes, best.outcomes, this.config.validateDrop) : null;
    if (!why || !best) {
      const isBest = !best || validationGain(outcomes, best.outcomes);
      if (isBest) this.best = { iteration, outcomes, states: this.host.states() };
      this.validated = { iteration, score, isBest };
      return result;
    }
    this.validated = { iteration, score: meanOf(best.outcomes), isBest: true };
    return { ...result, fell: { why, to: best } };
  }

  /**
   * The end of a run of `completed` iterations: validates the adapters as they are (unless this
   * iteration already did) and ends the run on the best validated ones. A fall past validationDrop
   * rolls back as mid-run; anything else short of a new best only selects (loads the best and says
   * so): early stopping, which keeps a run that drifted down within the mid-run guard's margin from
   * ending below where it began (issue #19: GRPO on backend ended 3.5 points under its base, its
   * validation 0.92 at the start and 0.86 at the end). Null: nothing changed, or the run was stopped
   * during it. A run shorter than one validation period is not validated (a one-iteration try in
   * the Train view would cost it 128 more episodes).
   */
  async finish(completed: number): Promise<ValidationEnd | null> {
    if (!this.enabled || !this.best || completed < this.config.validateEvery) return null;
    if (this.validated?.iteration !== completed) {
      const v = await this.check(completed);
      if (!v) return null;
      if (v.fell) return { kind: 'fell', ...v.fell };
    }
    const [best, now] = [this.best, this.validated];
    if (!now || now.isBest) return null;
    this.host.load(best.states);
    return { kind: 'kept', warning: `kept the adapters of iteration ${best.iteration}, the best validated (${(100 * meanOf(best.outcomes)).toFixed(0)}% on the validation tasks): the final adapters scored ${(100 * now.score).toFixed(0)}%, not 2 standard errors above them` };
  }
}

/**
 * The adapter `adapterId` (already set on the engine) on each validation task: success (0/1) of one
 * sampled episode (fixed seeds) and of the greedy one, and their mean. Greedy play changes only where
 * the adapter's argmax does, so its paired differences are far less noisy than sampled ones (whose
 * episodes decorrelate once the adapter moves); sampled play keeps a fall that greedy hides in view.
 * Null when `signal` aborted during it.
 */
export async function playValidation(engine: TrainEngine, adapterId: string, cfg: LoopConfig, maxNewTokens: number, signal: AbortSignal): Promise<ValidationPlay | null> {
  const [sampled, greedy] = [[] as number[], [] as number[]];
  for (const [temperature, out] of [[1, sampled], [0, greedy]] as const) {
    const agent = await PolicyBatchAgent.create(engine, { adapter: adapterId, sampling: { temperature, maxNewTokens } });
    const r = await rollout({ tasks: validationTasks(cfg), k: 1, seed: hashString(`validate/${cfg.seed}`), ...(cfg.turnLimit ? { turnLimit: cfg.turnLimit } : {}) }, agent, { signal }).catch((e: unknown) => {
      if (signal.aborted) return null;
      throw e;
    });
    if (!r) return null;
    out.push(...r.episodes.map((e) => (e.success ? 1 : 0)));
  }
  return { outcomes: sampled.map((x, i) => (x + greedy[i]) / 2), sampled, greedy };
}
