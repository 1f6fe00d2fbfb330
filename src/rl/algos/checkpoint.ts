// Checkpoints of a training run (issue #8 point 4): after every iteration the adapters, their AdamW
// moments and step counts, and the loop's own state (iteration, learning rate, detector windows), so
// a reload resumes from the last completed iteration.
//  - StoreCheckpoints writes them through the TrajectoryStore's adapter table (IndexedDB):
//      `<run>/<target>`           the LoRA matrices only (a plain adapter row: PEFT export reads it),
//      `<run>/<target>/optimizer` the moments `<p>.m`, `<p>.v` (config.kind 'optimizer-state'),
//      `<run>/checkpoint`         no tensors; config holds the loop state as JSON;
//      `<run>/best/<target>[/optimizer]` the validation guard's best adapters (config.kind
//                                 'best-snapshot', so no menu offers them as a run's adapter).
//  - MemoryCheckpoints keeps copies in memory (tests, the CLI without a store).
import type { JsonObject } from '../envs/types.ts';
import type { AdapterSummary, AdapterTable } from '../store/index.ts';
import { AlgoError, type CheckpointStore, type LearnerState, type TrainCheckpoint } from './types.ts';

const copyLearner = (l: LearnerState): LearnerState => ({
  ...l,
  trainer: { step: l.trainer.step, tensors: Object.fromEntries(Object.entries(l.trainer.tensors).map(([k, v]) => [k, v.slice()])) },
});

function copyState(c: TrainCheckpoint): TrainCheckpoint {
  return {
    ...c,
    ...(c.best ? { best: { ...c.best, outcomes: [...c.best.outcomes], states: c.best.states.map(copyLearner) } } : {}),
    lossHistory: Object.fromEntries(Object.entries(c.lossHistory).map(([k, v]) => [k, [...v]])),
    gradNormHistory: [...c.gradNormHistory],
    spreadHistory: [...c.spreadHistory],
    successHistory: [...(c.successHistory ?? [])],
    learners: c.learners.map(copyLearner),
  };
}

export class MemoryCheckpoints implements CheckpointStore {
  private readonly runs = new Map<string, TrainCheckpoint>();
  /** Number of saves (tests). */
  saves = 0;

  async save(c: TrainCheckpoint): Promise<void> {
    this.runs.set(c.runId, copyState(c));
    this.saves++;
  }

  async load(runId: string): Promise<TrainCheckpoint | null> {
    const c = this.runs.get(runId);
    return c ? copyState(c) : null;
  }
}

/**
 * Whether a stored adapter row is one a model can run: the LoRA matrices of a run's learner
 * (`<run>/<target>`, or any row written outside a run), not a checkpoint's optimizer state or loop
 * state, which carry a `config.kind`.
 */
export function isRunnableAdapter(row: Pick<AdapterSummary, 'config'>): boolean {
  return row.config.kind === undefined;
}

const isMoment = (name: string) => name.endsWith('.m') || name.endsWith('.v');

export class StoreCheckpoints implements CheckpointStore {
  constructor(
    private readonly store: AdapterTable,
    /** Base model ids recorded with the adapters (manifest names). */
    private readonly baseModels: { policy: string; critic: string } = { policy: 'policy', critic: 'critic' },
  ) {}

  /**
   * Writes learner states as `<prefix>/<target>` (the LoRA matrices) and `<prefix>/<target>/optimizer`;
   * `iteration`: whose adapters they are (the menus' label); `kind` marks rows that are not a run's adapter.
   */
  private async putLearners(c: TrainCheckpoint, prefix: string, learners: readonly LearnerState[], iteration: number, kind?: string): Promise<void> {
    for (const l of learners) {
      const id = `${prefix}/${l.target}`;
      const pick = (moments: boolean) =>
        Object.fromEntries(
          Object.entries(l.trainer.tensors)
            .filter(([n]) => isMoment(n) === moments)
            .map(([n, data]) => [n, { dims: l.dims[n.replace(/\.[mv]$/, '')] ?? [data.length], data }]),
        );
      const spec: JsonObject = { rank: l.spec.rank, alpha: l.spec.alpha, targets: [...l.spec.targets] };
      await this.store.putAdapter({
        id,
        target: l.target,
        baseModel: this.baseModels[l.target],
        config: { ...spec, iteration, algorithm: c.algo, ...(kind ? { kind } : {}) },
        parentId: null,
        runId: c.runId,
        tensors: pick(false),
      });
      await this.store.putAdapter({
        id: `${id}/optimizer`,
        target: l.target,
        baseModel: this.baseModels[l.target],
        config: { kind: 'optimizer-state', step: l.trainer.step, iteration: c.iteration },
        parentId: id,
        runId: c.runId,
        tensors: pick(true),
      });
    }
  }

  private async getLearners(runId: string, prefix: string, targets: readonly LearnerState['target'][]): Promise<LearnerState[]> {
    const learners: LearnerState[] = [];
    for (const target of targets) {
      const a = await this.store.getAdapter(`${prefix}/${target}`);
      const o = await this.store.getAdapter(`${prefix}/${target}/optimizer`);
      if (!a || !o) throw new AlgoError('bad-checkpoint', `checkpoint of run ${runId} lacks the ${target} adapter or its optimizer state (${prefix})`);
      const tensors: Record<string, Float32Array> = {};
      const dims: Record<string, number[]> = {};
      for (const [n, t] of [...Object.entries(a.tensors), ...Object.entries(o.tensors)]) tensors[n] = t.data;
      for (const [n, t] of Object.entries(a.tensors)) dims[n] = t.dims;
      const cfg = a.config as unknown as { rank: number; alpha: number; targets: LearnerState['spec']['targets'] };
      learners.push({
        target,
        spec: { rank: cfg.rank, alpha: cfg.alpha, targets: cfg.targets },
        trainer: { step: Number((o.config as { step: number }).step), tensors },
        dims,
      });
    }
    return learners;
  }

  async save(c: TrainCheckpoint): Promise<void> {
    await this.putLearners(c, c.runId, c.learners, c.weightsIteration ?? c.iteration);
    if (c.best) await this.putLearners(c, `${c.runId}/best`, c.best.states, c.best.iteration, 'best-snapshot');
    const meta: JsonObject = {
      kind: 'train-checkpoint',
      algo: c.algo,
      iteration: c.iteration,
      lr: c.lr,
      rollbacks: c.rollbacks,
      lossHistory: c.lossHistory,
      gradNormHistory: c.gradNormHistory,
      spreadHistory: c.spreadHistory,
      firstDistinct: c.firstDistinct ?? null,
      successHistory: c.successHistory ?? [],
      ...(c.weightsIteration === undefined ? {} : { weightsIteration: c.weightsIteration }),
      ...(c.best
        ? {
            best: {
              iteration: c.best.iteration,
              outcomes: c.best.outcomes,
              ...(c.best.cleared ? { cleared: true } : {}),
              targets: c.best.states.map((l) => l.target),
            },
          }
        : {}),
      learners: c.learners.map((l) => l.target),
    };
    // written last: a checkpoint row names only learners whose rows are complete
    await this.store.putAdapter({
      id: `${c.runId}/checkpoint`,
      target: 'policy',
      baseModel: this.baseModels.policy,
      config: meta,
      parentId: null,
      runId: c.runId,
      tensors: {},
    });
  }

  async load(runId: string): Promise<TrainCheckpoint | null> {
    const meta = await this.store.getAdapter(`${runId}/checkpoint`);
    if (!meta) return null;
    const m = meta.config as unknown as Omit<TrainCheckpoint, 'learners' | 'runId' | 'best'> & {
      learners: LearnerState['target'][];
      best?: { iteration: number; outcomes: number[]; cleared?: boolean; targets: LearnerState['target'][] };
    };
    const learners = await this.getLearners(runId, runId, m.learners);
    const best = m.best
      ? {
          best: {
            iteration: m.best.iteration,
            outcomes: m.best.outcomes,
            ...(m.best.cleared ? { cleared: true } : {}),
            states: await this.getLearners(runId, `${runId}/best`, m.best.targets),
          },
        }
      : {};
    return {
      runId,
      algo: m.algo,
      iteration: m.iteration,
      lr: m.lr,
      rollbacks: m.rollbacks,
      lossHistory: m.lossHistory,
      gradNormHistory: m.gradNormHistory,
      spreadHistory: m.spreadHistory,
      firstDistinct: m.firstDistinct ?? null,
      successHistory: m.successHistory ?? [],
      ...(m.weightsIteration === undefined ? {} : { weightsIteration: m.weightsIteration }),
      ...best,
      learners,
    };
  }
}
