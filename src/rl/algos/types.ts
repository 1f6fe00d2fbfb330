// Shared types of the training algorithms (src/rl/algos): named errors, the
// per-iteration report, and the checkpoint interface a store implements (checkpoint.ts) so that
// training resumes after a reload from the last completed iteration.
import type { LoraSpec } from '../model/llama/weights.ts';
import type { TrainerState } from '../runtime/train/trainer.ts';
import { CodedError } from '../util/errors.ts';

// the algorithm names come from the registry's specs (registry.ts ALGO_NAMES); a type-only import,
// as the registry imports this module's AlgoError
export type { AlgoName } from './registry.ts';
import type { AlgoName } from './registry.ts';

/** Bad configuration, a row that does not fit, a missing model, or a checkpoint that does not match. */
export class AlgoError extends CodedError<'bad-config' | 'bad-row' | 'no-critic' | 'bad-checkpoint' | 'stopped' | 'run-busy'> {
  override name = 'AlgoError';
}

/** Which model a learner trains. */
export type LearnerTarget = 'policy' | 'critic';

/** A learner's resumable state: its LoRA spec and the Trainer state (adapter + AdamW moments + step). */
export interface LearnerState {
  target: LearnerTarget;
  spec: LoraSpec;
  trainer: TrainerState;
  /** Shapes of the adapter matrices by PEFT name ([r, in] for A, [out, r] for B). */
  dims: Record<string, number[]>;
}

/** The validation guard's best adapters: their per-task outcomes on the validation tasks and the learners' states. */
export interface ValidationBest {
  /** Iterations completed when they were validated (0: the adapters the run began with). */
  iteration: number;
  /**
   * Per validation task, in task order, the mean success of its sampled and greedy episodes; empty
   * until first scored (the run's first adapters are scored at the first validation).
   */
  outcomes: number[];
  states: LearnerState[];
  /** These adapters beat the run's first ones by 2 paired standard errors (ValidationGuard, `validateBar` 'start'). */
  cleared?: boolean;
}

/** Everything needed to continue a run after the iteration it was written at. */
export interface TrainCheckpoint {
  runId: string;
  algo: AlgoName;
  /** Iterations completed (the next one to run is this index). */
  iteration: number;
  /** Learning rate now in force (lowered by rollbacks). */
  lr: number;
  /** Rollbacks so far. */
  rollbacks: number;
  /** Recent update losses per learner (the loss-spike detector's window). */
  lossHistory: Record<string, number[]>;
  /** Recent grad norms and reward spreads (the Echo Trap detector's window). */
  gradNormHistory: number[];
  spreadHistory: number[];
  /** Distinct-reply share of the first iteration (the Echo Trap template rule's reference); absent in older checkpoints. */
  firstDistinct?: number | null;
  /** Recent rollout success (the collapse guard's window); absent in older checkpoints. */
  successHistory?: number[];
  /** The validation guard's best adapters (guards.ts validationDrop); absent in older checkpoints. */
  best?: ValidationBest | null;
  /**
   * Whose adapters the learners hold: the iteration whose update made them (0: the run's start). Not
   * `iteration` once a rollback or the validation guard returned to earlier ones; absent in older checkpoints.
   */
  weightsIteration?: number;
  learners: LearnerState[];
}

/** Where checkpoints go: StoreCheckpoints (IndexedDB through TrajectoryStore) or MemoryCheckpoints. */
export interface CheckpointStore {
  save(checkpoint: TrainCheckpoint): Promise<void>;
  /** The latest checkpoint of a run, or null. */
  load(runId: string): Promise<TrainCheckpoint | null>;
}

/** One iteration's figures (every value finite; NaN never leaves the loop). */
export type IterationMetrics = Record<string, number>;

/** Which Echo Trap sign (RAGEN §4): reward spread collapsing, a gradient-norm spike, replies falling onto templates. */
export type EchoSign = 'spread-collapse' | 'grad-spike' | 'templates';

/**
 * What the loop tells its listeners beside the figures, one kind each with its payload; `text` is the
 * sentence the CLI prints (and IterationReport.warnings holds). The Train view switches on `kind`.
 */
export type LoopEvent = { text: string } & (
  | { kind: 'echo-trap'; sign: EchoSign }
  /** A guard undid an update: the learners went back to iteration `to`'s adapters and the learning rate fell to `lr`. */
  | { kind: 'rolled-back'; to: number; why: string; lr: number; atEnd: boolean }
  /** At the run's end the best validated adapters were kept over the final ones; `why` says which, and by how much. */
  | { kind: 'kept-best'; why: string }
  /** Rollout success fell, but the adapters a rollback would return to did no better on the same tasks. */
  | { kind: 'not-rolled-back' }
  /** The algorithm made no update this iteration (e.g. a critic warm-up). */
  | { kind: 'no-update'; reason: string }
  | { kind: 'validation-skipped' }
  /** A validation gain that a second draw did not confirm. */
  | { kind: 'validation-unconfirmed' }
  /** A non-finite metric left out of the report. */
  | { kind: 'metric-dropped'; metric: string }
);

/** What one iteration reports. */
export interface IterationReport {
  iteration: number;
  metrics: IterationMetrics;
  /** What happened beside the figures: Echo Trap signs, rollbacks, skipped updates (typed; see `warnings` for the words). */
  events: LoopEvent[];
  /** The events' sentences, in order (the CLI prints them). */
  warnings: string[];
  /** Adapter ids published to the engine after this iteration. */
  adapters: Partial<Record<LearnerTarget, string>>;
}
