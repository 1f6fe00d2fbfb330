// A small driver for a train-step graph (trainStep.ts): holds the parameters and AdamW moments as
// Float32Arrays, feeds them with a batch and the optimiser scalars to an OrtRuntime session, and
// swaps each `<p>.new` output in as the current value. The step counter gives AdamW's bias correction.
import type { ManagedSession, OrtRuntime, TensorData } from '../ort.ts';
import { HYPER_INPUTS, momentName, newName, type HyperInput, type TrainStepGraph } from '../../model/train/trainStep.ts';
import { CodedError } from '../../util/errors.ts';

/** AdamW settings; fed as graph inputs each step, so a schedule needs no rebuild. */
export interface AdamWConfig {
  /** Learning rate. */
  lr: number;
  /** First-moment decay β1. */
  beta1: number;
  /** Second-moment decay β2. */
  beta2: number;
  /** ε added to √v̂. */
  eps: number;
  /** Decoupled weight decay λ (applied to parameters marked decay). */
  weightDecay: number;
  /** Global gradient-norm clip; Infinity disables clipping. */
  maxGradNorm: number;
}

/** How a trainer opens its sessions. */
export interface TrainerOptions {
  /**
   * Whether each session uses ORT's memory pattern (default true). A trainer with one session per
   * length bucket turns it off: on onnxruntime-node every bucket's session kept a block for all of its
   * graph's intermediates, 0.5–1 GB each for the shipped policy at B 8 (`npx turnwise bench
   * train-memory`). Turning the arena off instead freed that too, but made frozenlake's train steps
   * 3.5× slower (docs/experiments/2026-12-04-learner-memory-pattern.md).
   */
  memPattern?: boolean;
}

export const DEFAULT_ADAMW: AdamWConfig = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, maxGradNorm: 1 };

/** The result of one step. */
export interface TrainStepResult {
  /** 1-based index of the update just applied. */
  step: number;
  loss: number;
  /** grad_norm and the loss's statistics. */
  stats: Record<string, number>;
}

/** A trainer's resumable state: the update count and every parameter and AdamW moment by name (`<p>`, `<p>.m`, `<p>.v`). */
export interface TrainerState {
  step: number;
  tensors: Record<string, Float32Array>;
}

/** Named trainer failures: a missing or mis-shaped feed, a non-finite loss, use after dispose. */
export class TrainerError extends CodedError<'bad-feed' | 'bad-param' | 'non-finite' | 'disposed'> {
  override name = 'TrainerError';
}

const HYPER_FIELD: Record<Exclude<HyperInput, 'step'>, keyof AdamWConfig> = {
  lr: 'lr',
  beta1: 'beta1',
  beta2: 'beta2',
  eps: 'eps',
  weight_decay: 'weightDecay',
  max_grad_norm: 'maxGradNorm',
};

export class Trainer {
  private readonly current = new Map<string, Float32Array>();
  /** One session per batch shape: graphs of the same parameters over other B × T (shape buckets). */
  private readonly sessions = new Map<TrainStepGraph, ManagedSession>();
  private stepCount = 0;
  private disposed = false;

  private constructor(
    private readonly runtime: OrtRuntime,
    private readonly graph: TrainStepGraph,
    public config: AdamWConfig,
    private readonly options: TrainerOptions,
  ) {}

  /**
   * Opens a session for `graph` and takes ownership of copies of `init` (one Float32Array per
   * parameter, in the parameter's shape). Moments start at zero.
   */
  static async create(
    runtime: OrtRuntime,
    graph: TrainStepGraph,
    init: Record<string, Float32Array>,
    config: Partial<AdamWConfig> = {},
    options: TrainerOptions = {},
  ): Promise<Trainer> {
    if (graph.dtype !== 'float32') throw new TrainerError('bad-param', `Trainer runs float32 graphs, got ${graph.dtype}`);
    for (const p of graph.params) {
      const size = p.dims.reduce((a, b) => a * b, 1);
      const v = init[p.name];
      if (!v) throw new TrainerError('bad-param', `no initial value for parameter "${p.name}"`);
      if (v.length !== size) throw new TrainerError('bad-param', `parameter "${p.name}": ${v.length} values for shape [${p.dims}]`);
    }
    const trainer = new Trainer(runtime, graph, { ...DEFAULT_ADAMW, ...config }, { ...options });
    await trainer.addGraph(graph);
    for (const p of graph.params) {
      const size = init[p.name].length;
      trainer.current.set(p.name, init[p.name].slice());
      trainer.current.set(momentName(p.name, 'm'), new Float32Array(size));
      trainer.current.set(momentName(p.name, 'v'), new Float32Array(size));
    }
    return trainer;
  }

  /**
   * Opens a session for another graph over the same parameters (the same names and shapes), e.g.
   * the same loss at a shorter sequence length; step() then takes it. The parameters and moments
   * stay one set, so steps through either graph continue one optimisation.
   */
  async addGraph(graph: TrainStepGraph): Promise<void> {
    if (this.sessions.has(graph)) return;
    const same =
      graph.params.length === this.graph.params.length &&
      graph.params.every((p, i) => p.name === this.graph.params[i].name && p.dims.join() === this.graph.params[i].dims.join());
    if (!same || graph.dtype !== this.graph.dtype)
      throw new TrainerError('bad-param', 'a graph added to a trainer must have the same parameters as its first graph');
    // On WebGPU, onnxruntime-web 1.30's graph optimiser (level 'basic' and up) makes the step's token
    // log-probs 0 (nll 0, no gradient) while the forward is right; unoptimised it equals wasm within
    // 1e-5 (test/browser/trainStep.test.ts). wasm and onnxruntime-node keep every optimisation.
    const optimization = this.runtime.info.kind === 'webgpu' ? 'disabled' : 'all';
    this.sessions.set(graph, await this.runtime.createSession(graph.bytes, { label: 'train_step', optimization, memPattern: this.options.memPattern ?? true }));
  }

  /** Updates applied so far. */
  get steps(): number {
    return this.stepCount;
  }

  /** The current value of a parameter (owned by the trainer; copy it to keep it). */
  param(name: string): Float32Array {
    const v = this.current.get(name);
    if (!v || !this.graph.params.some((p) => p.name === name)) throw new TrainerError('bad-param', `no parameter "${name}"`);
    return v;
  }

  /** Runs one train step on `batch` (every input in graph.batchInputs) through `graph` (default: the first; others via addGraph) and applies the update. */
  async step(batch: Record<string, TensorData>, graph: TrainStepGraph = this.graph): Promise<TrainStepResult> {
    if (this.disposed) throw new TrainerError('disposed', 'the trainer was disposed');
    const session = this.sessions.get(graph);
    if (!session) throw new TrainerError('bad-param', 'step through a graph that was not added to this trainer');
    const feeds: Record<string, TensorData> = {};
    for (const v of graph.batchInputs) {
      const t = batch[v.name];
      if (!t) throw new TrainerError('bad-feed', `batch input "${v.name}" is missing`);
      if (t.dims.length !== v.dims.length || t.dims.some((d, i) => d !== v.dims[i])) {
        throw new TrainerError('bad-feed', `batch input "${v.name}" has shape [${t.dims}], the graph wants [${v.dims}]`);
      }
      feeds[v.name] = t;
    }
    for (const p of this.graph.params) {
      for (const name of [p.name, momentName(p.name, 'm'), momentName(p.name, 'v')]) {
        feeds[name] = { type: 'float32', data: this.current.get(name) ?? new Float32Array(0), dims: p.dims };
      }
    }
    const step = this.stepCount + 1;
    for (const h of HYPER_INPUTS) {
      const value = h === 'step' ? step : this.config[HYPER_FIELD[h]];
      feeds[h] = { type: 'float32', data: Float32Array.of(value), dims: [] };
    }
    const out = await session.run(feeds);
    const loss = Number(out.loss.data[0]);
    if (!Number.isFinite(loss)) throw new TrainerError('non-finite', `loss is ${loss} at step ${step}; parameters were not updated`);
    for (const p of this.graph.params) {
      this.current.set(p.name, out[newName(p.name)].data as Float32Array);
      this.current.set(momentName(p.name, 'm'), out[momentName(p.name, 'm', true)].data as Float32Array);
      this.current.set(momentName(p.name, 'v'), out[momentName(p.name, 'v', true)].data as Float32Array);
    }
    this.stepCount = step;
    const stats: Record<string, number> = {};
    for (const s of graph.stats) stats[s] = Number(out[s].data[0]);
    return { step, loss, stats };
  }

  /** Copies of the parameters, the AdamW moments and the step count (a checkpoint). */
  exportState(): TrainerState {
    const tensors: Record<string, Float32Array> = {};
    for (const [name, v] of this.current) tensors[name] = v.slice();
    return { step: this.stepCount, tensors };
  }

  /** Restores a state from exportState (resume, or roll back); every parameter and moment must be present with its size. */
  importState(state: TrainerState): void {
    if (this.disposed) throw new TrainerError('disposed', 'the trainer was disposed');
    if (!Number.isInteger(state.step) || state.step < 0) throw new TrainerError('bad-param', `state step must be an integer ≥ 0, got ${state.step}`);
    const next = new Map<string, Float32Array>();
    for (const [name, cur] of this.current) {
      const v = state.tensors[name];
      if (!v) throw new TrainerError('bad-param', `state has no tensor "${name}"`);
      if (v.length !== cur.length) throw new TrainerError('bad-param', `state tensor "${name}" has ${v.length} values, expected ${cur.length}`);
      next.set(name, Float32Array.from(v));
    }
    for (const [name, v] of next) this.current.set(name, v);
    this.stepCount = state.step;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const session of this.sessions.values()) await session.dispose();
  }
}
