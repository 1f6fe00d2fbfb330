// One trainable LoRA adapter of one model under one loss: the train-step graph of
// src/rl/model/train (buildLlamaTrainStep, LoRA-only over a frozen fp32 or 4-bit base) in length
// buckets, trained through the one driver (driver.ts), and the adapter's identity (PEFT names, state). An algorithm holds one
// learner per model it trains (SWEET-RL: a critic learner with Bradley–Terry and a policy learner
// with DPO; PPO: a policy learner with the clipped objective and a critic learner with value MSE).
import type { LoadedModel } from '../model/folder/folder.ts';
import {
  adapterParamSpecs,
  initLora,
  numel,
  valueHeadDelta,
  type HeadsSpec,
  type LoraSpec,
  type ModelWeights,
  type ParamSpec,
} from '../model/llama/weights.ts';
import { buildLlamaTrainStep } from '../model/train/llama.ts';
import { momentName, type TrainStepGraph } from '../model/train/trainStep.ts';
import type { LossSpec } from '../model/train/losses.ts';
import type { AdamWConfig, TrainStepResult } from '../runtime/train/trainer.ts';
import type { OrtRuntime } from '../runtime/ort.ts';
import type { Adapter } from '../runtime/engine/types.ts';
import { TrainDriver, type LearnerMeter, type TrainSummary } from './driver.ts';
import type { Row } from './rows.ts';
import { AlgoError, type LearnerState, type LearnerTarget } from './types.ts';

/** How to build a learner. */
export interface LearnerSpec {
  target: LearnerTarget;
  /** The base model (config, tokenizer, weights, heads) as loaded from its folder. */
  model: LoadedModel;
  lora: LoraSpec;
  /** The frozen base as the engine holds it: fp32 on CPUs, 4-bit on WebGPU. */
  base: 'fp32' | 'quant4';
  loss: LossSpec;
  /** Rows per graph run (B); DPO and Bradley–Terry use B = 2P. */
  batch: number;
  /** Tokens per row (T): the longest graph; shorter batches run at a length bucket. */
  seqLen: number;
  adamw: Partial<AdamWConfig>;
  /** Seeds the adapter's A matrices (B starts at zero: a fresh adapter is the base model). */
  seed: number;
  /** Standard deviation of A at initialisation (config.ts loraInitStd). */
  initStd: number;
  /**
   * Start from these adapter weights (of spec.lora's shape) instead of a fresh A and B = 0: the
   * critic's shipped adapter. Parameters it lacks start fresh: a PEFT adapter (the forge's) carries
   * no value-head delta, which starts at zero.
   */
  init?: ModelWeights;
}

export class Learner {
  private constructor(
    readonly spec: LearnerSpec,
    private readonly driver: TrainDriver,
  ) {}

  static async create(runtime: OrtRuntime, spec: LearnerSpec): Promise<Learner> {
    const fresh = initLora(spec.model.config, spec.lora, spec.seed, spec.initStd, heads(spec));
    const driver = await TrainDriver.create(runtime, {
      graph: (seqLen) => buildGraph(spec, seqLen),
      cfg: spec.model.config,
      batch: spec.batch,
      seqLen: spec.seqLen,
      padId: spec.model.tokenizer.special.pad,
      init: { ...fresh, ...spec.init },
      adamw: spec.adamw,
    });
    return new Learner(spec, driver);
  }

  get lr(): number {
    return this.driver.lr;
  }

  set lr(value: number) {
    this.driver.lr = value;
  }

  get steps(): number {
    return this.driver.steps;
  }

  /** Tokens and time this learner's steps have cost so far. */
  get meter(): LearnerMeter {
    return this.driver.meter;
  }

  /** Pairs per graph run (DPO, Bradley–Terry), else 0. */
  get pairs(): number {
    const l = this.spec.loss;
    return l.kind === 'dpo' || l.kind === 'bradley-terry' ? l.pairs : 0;
  }

  /** One update on up to B rows, through the shortest graph they fit; pairs index into `rows`. */
  step(rows: readonly Row[], pairs: readonly [number, number][] = []): Promise<TrainStepResult> {
    return this.driver.step(rows, pairs, this.pairs);
  }

  /** driver.ts TrainDriver.train: epochs over rows in length-grouped minibatches, with PPO's early stop. */
  train(rows: readonly Row[], epochs: number, order?: (n: number) => number[], stopAt = 0): Promise<TrainSummary> {
    return this.driver.train(rows, epochs, order, stopAt);
  }

  /** Minibatches of whole pairs: each run holds P pairs (2P rows). */
  trainPairs(pairRows: readonly [Row, Row][], epochs: number, order?: (n: number) => number[]): Promise<TrainSummary> {
    return this.driver.trainPairs(pairRows, epochs, this.pairs, order);
  }

  /** A copy of the adapter in PEFT names, for the engine (setAdapter) and the store. */
  adapter(): Adapter {
    const weights: Adapter['weights'] = {};
    for (const name of this.paramNames()) weights[name] = this.driver.param(name).slice();
    return { spec: this.spec.lora, weights };
  }

  /** The adapter a saved state holds (its parameters, not its AdamW moments), read without loading the state. */
  adapterOf(state: LearnerState): Adapter {
    this.checkTarget(state);
    const weights: Adapter['weights'] = {};
    for (const name of this.paramNames()) {
      const w = state.trainer.tensors[name];
      if (!w) throw new AlgoError('bad-checkpoint', `state has no adapter parameter "${name}"`);
      weights[name] = w.slice();
    }
    return { spec: state.spec, weights };
  }

  state(): LearnerState {
    const dims: Record<string, number[]> = {};
    for (const p of this.paramSpecs()) dims[p.name] = [...p.shape];
    return { target: this.spec.target, spec: this.spec.lora, trainer: this.driver.exportState(), dims };
  }

  load(state: LearnerState): void {
    this.checkTarget(state);
    const a = state.spec;
    const b = this.spec.lora;
    if (a.rank !== b.rank || a.alpha !== b.alpha || a.targets.join() !== b.targets.join()) {
      throw new AlgoError(
        'bad-checkpoint',
        `checkpoint adapter (rank ${a.rank}, alpha ${a.alpha}, ${a.targets.join('/')}) differs from the configured one (rank ${b.rank}, alpha ${b.alpha}, ${b.targets.join('/')})`,
      );
    }
    // a critic checkpoint from before the value head trained (no delta): its head starts at the base
    const tensors = { ...state.trainer.tensors };
    for (const d of valueHeadDelta(this.spec.model.config)) {
      if (!heads(this.spec).value || tensors[d.name]) continue;
      for (const name of [d.name, momentName(d.name, 'm'), momentName(d.name, 'v')]) tensors[name] = new Float32Array(numel(d.shape));
    }
    this.driver.importState({ ...state.trainer, tensors });
  }

  private checkTarget(state: LearnerState): void {
    if (state.target !== this.spec.target)
      throw new AlgoError('bad-checkpoint', `checkpoint holds a ${state.target} adapter, this learner trains the ${this.spec.target}`);
  }

  private paramSpecs(): ParamSpec[] {
    return adapterParamSpecs(this.spec.model.config, this.spec.lora, heads(this.spec));
  }

  private paramNames(): string[] {
    return this.paramSpecs().map((p) => p.name);
  }

  dispose(): Promise<void> {
    return this.driver.dispose();
  }
}

/** The heads a learner's graphs carry: the model's value head, whose adapter delta it then trains. */
function heads(spec: LearnerSpec): HeadsSpec {
  return spec.model.heads.value ? { value: true } : {};
}

function buildGraph(spec: LearnerSpec, seqLen: number): TrainStepGraph {
  return buildLlamaTrainStep({
    cfg: spec.model.config,
    weights: spec.model.weights,
    trainable: { kind: 'lora', lora: spec.lora, base: spec.base },
    heads: heads(spec),
    loss: spec.loss,
    batch: spec.batch,
    seqLen,
  });
}
