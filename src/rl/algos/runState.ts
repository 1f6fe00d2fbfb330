// What a training run carries from one iteration to the next besides its learners (loop.ts): the
// iterations done, the rollbacks and whose adapters the learners hold, and the windows of the
// guards' detectors (loss spikes, the Echo Trap's spread, gradient norm and template signs, the
// success-collapse guard). A checkpoint (checkpoint.ts) saves it with the learners' states and
// restores it on resume; a rollback counts here and names the adapters it returned to.
import type { LearnerState, LoopEvent, TrainCheckpoint, ValidationBest } from './types.ts';

export class RunState {
  /** Iterations completed. */
  iteration = 0;
  rollbacks = 0;
  /** Recent update losses per learner (the loss-spike detector's window). */
  lossHistory: Record<string, number[]> = {};
  gradNormHistory: number[] = [];
  spreadHistory: number[] = [];
  successHistory: number[] = [];
  /** Distinct-reply share of the run's first iteration (the Echo Trap template rule's reference). */
  firstDistinct: number | null = null;
  /**
   * The iteration whose update made the live adapters (0: the run's start): what they are called
   * wherever they appear, which is not the iteration count once a guard returned to earlier ones
   * (a run that kept its start publishes "iteration 0", not "iteration 10": issue 49).
   */
  weightsIteration = 0;

  /** Counts a rollback to the adapters of iteration `to` (already loaded, learning rate already lowered to `lr`) and says so. */
  rolledBack(to: number, why: string, lr: number, atEnd: boolean): LoopEvent & { kind: 'rolled-back' } {
    this.weightsIteration = to;
    this.rollbacks++;
    return {
      kind: 'rolled-back',
      to,
      why,
      lr,
      atEnd,
      text: `rolled back to the adapters of iteration ${to} (${why}); learning rate lowered to ${lr.toPrecision(3)}`,
    };
  }

  /** The checkpoint of the run now: this state with the learners' states, the learning rate and the validation guard's best. */
  checkpoint(run: { runId: string; algo: TrainCheckpoint['algo']; lr: number; best: ValidationBest | null; learners: LearnerState[] }): TrainCheckpoint {
    return {
      runId: run.runId,
      algo: run.algo,
      iteration: this.iteration,
      lr: run.lr,
      rollbacks: this.rollbacks,
      lossHistory: this.lossHistory,
      gradNormHistory: this.gradNormHistory,
      spreadHistory: this.spreadHistory,
      successHistory: this.successHistory,
      best: run.best,
      firstDistinct: this.firstDistinct,
      weightsIteration: this.weightsIteration,
      learners: run.learners,
    };
  }

  /** Takes this state from a checkpoint (the fields older checkpoints lack start empty). */
  restore(c: TrainCheckpoint): void {
    this.iteration = c.iteration;
    this.rollbacks = c.rollbacks;
    this.lossHistory = c.lossHistory;
    this.gradNormHistory = c.gradNormHistory;
    this.spreadHistory = c.spreadHistory;
    this.successHistory = c.successHistory ?? [];
    this.firstDistinct = c.firstDistinct ?? null;
    this.weightsIteration = c.weightsIteration ?? c.iteration;
  }
}
