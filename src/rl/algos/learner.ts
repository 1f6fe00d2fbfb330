// One trainable LoRA adapter of one model under one loss: the train-step graph of
// src/rl/model/train (buildLlamaTrainStep, LoRA-only over a frozen fp32 or 4-bit base), its Trainer,
// and the glue from training rows (rows.ts) to the graph's fixed-shape feeds. An algorithm holds one
// learner per model it trains (SWEET-RL: a critic learner with Bradley–Terry and a policy learner
// with DPO; PPO: a policy learner with the clipped objective and a critic learner with value MSE).
import type { LoadedModel } from '../model/folder/folder.ts';
import { adapterParamSpecs, initLora, numel, valueHeadDelta, type HeadsSpec, type LoraSpec, type ModelWeights, type ParamSpec } from '../model/llama/weights.ts';
import { buildLlamaTrainStep } from '../model/train/llama.ts';
import { momentName, type TrainStepGraph } from '../model/train/trainStep.ts';
import type { LossSpec } from '../model/train/losses.ts';
import { Trainer, type AdamWConfig, type StepResult } from '../runtime/train/trainer.ts';
import type { OrtRuntime } from '../runtime/ort.ts';
import type { Adapter } from '../runtime/engine/types.ts';
import { chunks, packRows, pairFeeds, type Row, type RowFloatName } from './rows.ts';
import { AlgoError, type LearnerState, type LearnerTarget } from './types.ts';

const ROW_FLOATS: readonly RowFloatName[] = ['loss_mask', 'weights', 'advantages', 'old_logp', 'ref_logp', 'turn_weights', 'returns'];

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
  /** Every batch at seqLen, no buckets: the path before issue 17, kept so a benchmark can run both side by side. */
  fixedLength?: boolean;
  /**
   * Open each bucket's session with ORT's memory pattern (default false). True is the path before,
   * which kept 0.5–1 GB per bucket on onnxruntime-node (a GRPO frozenlake run reached 10 GB); kept so
   * `bench train-memory` can run both side by side.
   */
  memPattern?: boolean;
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

/** Mean statistics of several steps, plus the largest grad norm and the step losses. */
export interface TrainSummary {
  steps: number;
  loss: number;
  stats: Record<string, number>;
  maxGradNorm: number;
  losses: number[];
}

/**
 * Sequence lengths a learner's graphs come in: multiples of this up to the spec's seqLen. A batch
 * runs through the shortest graph its longest row fits, so short rows (a one-turn bandit episode,
 * an early guess) are not padded to the whole context; graphs are built on first use.
 */
export const SEQ_BUCKET = 32;

/** The graph length a batch whose longest row has `len` tokens runs at. */
export function bucketLength(len: number, seqLen: number): number {
  return Math.min(seqLen, Math.max(SEQ_BUCKET, Math.ceil(len / SEQ_BUCKET) * SEQ_BUCKET));
}

/** Tokens and time a learner's steps have cost so far (real tokens: padding excluded). */
export interface LearnerMeter {
  steps: number;
  tokens: number;
  /** Tokens the graphs ran, padding included. */
  paddedTokens: number;
  seconds: number;
}

export class Learner {
  private readonly graphs = new Map<number, Promise<TrainStepGraph>>();
  readonly meter: LearnerMeter = { steps: 0, tokens: 0, paddedTokens: 0, seconds: 0 };

  private constructor(
    readonly spec: LearnerSpec,
    private readonly trainer: Trainer,
    private readonly floats: RowFloatName[],
    full: TrainStepGraph,
  ) {
    this.graphs.set(spec.seqLen, Promise.resolve(full));
  }

  static async create(runtime: OrtRuntime, spec: LearnerSpec): Promise<Learner> {
    const graph = buildGraph(spec, spec.seqLen);
    const names = new Set(graph.batchInputs.map((v) => v.name));
    const floats = ROW_FLOATS.filter((n) => names.has(n));
    const fresh = initLora(spec.model.config, spec.lora, spec.seed, spec.initStd, heads(spec));
    const trainer = await Trainer.create(runtime, graph, { ...fresh, ...spec.init }, spec.adamw, { memPattern: spec.memPattern ?? false });
    return new Learner(spec, trainer, floats, graph);
  }

  /** The graph of sequence length `t` (a bucket), built and opened on first use. */
  private graph(t: number): Promise<TrainStepGraph> {
    let g = this.graphs.get(t);
    if (!g) {
      g = (async () => {
        const graph = buildGraph(this.spec, t);
        await this.trainer.addGraph(graph);
        return graph;
      })();
      this.graphs.set(t, g);
    }
    return g;
  }

  get lr(): number {
    return this.trainer.config.lr;
  }

  set lr(value: number) {
    this.trainer.config.lr = value;
  }

  get steps(): number {
    return this.trainer.steps;
  }

  /** Pairs per graph run (DPO, Bradley–Terry), else 0. */
  get pairs(): number {
    const l = this.spec.loss;
    return l.kind === 'dpo' || l.kind === 'bradley-terry' ? l.pairs : 0;
  }

  /** One update on up to B rows, through the shortest graph they fit; pairs index into `rows`. */
  async step(rows: readonly Row[], pairs: readonly [number, number][] = []): Promise<StepResult> {
    const { model, batch, seqLen } = this.spec;
    const started = performance.now();
    const longest = Math.max(1, ...rows.map((r) => r.ids.length));
    const t = this.spec.fixedLength ? seqLen : bucketLength(longest, seqLen);
    const graph = await this.graph(t);
    const feeds = packRows(model.config, rows, batch, t, this.floats, model.tokenizer.special.pad);
    if (this.pairs > 0) {
      if (pairs.length > this.pairs) throw new AlgoError('bad-row', `${pairs.length} pairs do not fit the graph's ${this.pairs}`);
      if (pairs.length < this.pairs && rows.length >= batch) throw new AlgoError('bad-row', 'padding pairs need a free row');
      Object.assign(feeds, pairFeeds(pairs, this.pairs, rows.length));
    }
    const result = await this.trainer.step(feeds, graph);
    this.meter.steps++;
    this.meter.tokens += rows.reduce((a, r) => a + r.ids.length, 0);
    this.meter.paddedTokens += batch * t;
    this.meter.seconds += (performance.now() - started) / 1000;
    return result;
  }

  /**
   * `epochs` passes over rows in B-row minibatches of similar lengths (their order shuffled by `order`
   * when given). `stopAt` > 0: the passes end once a step reports an approximate KL (its loss's
   * `approx_kl`, from the rows' old log-probs, measured before the step's update) above it — PPO's
   * early stop on target KL; the summary then says `stopped_early` 1.
   */
  async train(rows: readonly Row[], epochs: number, order?: (n: number) => number[], stopAt = 0): Promise<TrainSummary> {
    const results: StepResult[] = [];
    let stopped = false;
    for (let e = 0; e < epochs && !stopped; e++) {
      const idx = order ? order(rows.length) : rows.map((_, i) => i);
      for (const c of this.minibatches(idx, (i) => rows[i].ids.length, this.spec.batch)) {
        const r = await this.step(c.map((i) => rows[i]));
        results.push(r);
        if (stopAt > 0 && (r.stats.approx_kl ?? 0) > stopAt) {
          stopped = true;
          break;
        }
      }
    }
    const summary = summarise(results);
    if (stopAt > 0) summary.stats.stopped_early = stopped ? 1 : 0;
    return summary;
  }

  /** Minibatches of whole pairs: each run holds P pairs (2P rows). */
  async trainPairs(pairRows: readonly [Row, Row][], epochs: number, order?: (n: number) => number[]): Promise<TrainSummary> {
    const results: StepResult[] = [];
    for (let e = 0; e < epochs; e++) {
      const idx = order ? order(pairRows.length) : pairRows.map((_, i) => i);
      for (const c of this.minibatches(idx, (i) => Math.max(pairRows[i][0].ids.length, pairRows[i][1].ids.length), this.pairs)) {
        const rows: Row[] = [];
        const pairs: [number, number][] = [];
        for (const i of c) {
          pairs.push([rows.length, rows.length + 1]);
          rows.push(pairRows[i][0], pairRows[i][1]);
        }
        results.push(await this.step(rows, pairs));
      }
    }
    return summarise(results);
  }

  /**
   * Minibatches of n items with little padding, in the spirit of a length-grouped sampler: items
   * sorted by length (ties in `order`) are chunked by n, so a chunk's rows are of similar length
   * and only the last chunk is short of n; chunks then run in the order of their earliest item in
   * `order`, so a shuffled order still shuffles the steps. Each chunk runs at its own bucket.
   */
  private minibatches(order: readonly number[], length: (i: number) => number, n: number): number[][] {
    const at = new Map(order.map((i, k) => [i, k] as const));
    const sorted = [...order].sort((a, b) => length(a) - length(b)); // stable: ties keep `order`
    const first = (c: number[]) => Math.min(...c.map((i) => at.get(i) ?? 0));
    return chunks(sorted, n).sort((a, b) => first(a) - first(b));
  }

  /** A copy of the adapter in PEFT names, for the engine (setAdapter) and the store. */
  adapter(): Adapter {
    const weights: Adapter['weights'] = {};
    for (const name of this.paramNames()) weights[name] = this.trainer.param(name).slice();
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
    return { target: this.spec.target, spec: this.spec.lora, trainer: this.trainer.exportState(), dims };
  }

  load(state: LearnerState): void {
    this.checkTarget(state);
    const a = state.spec;
    const b = this.spec.lora;
    if (a.rank !== b.rank || a.alpha !== b.alpha || a.targets.join() !== b.targets.join()) {
      throw new AlgoError('bad-checkpoint', `checkpoint adapter (rank ${a.rank}, alpha ${a.alpha}, ${a.targets.join('/')}) differs from the configured one (rank ${b.rank}, alpha ${b.alpha}, ${b.targets.join('/')})`);
    }
    // a critic checkpoint from before the value head trained (no delta): its head starts at the base
    const tensors = { ...state.trainer.tensors };
    for (const d of valueHeadDelta(this.spec.model.config)) {
      if (!heads(this.spec).value || tensors[d.name]) continue;
      for (const name of [d.name, momentName(d.name, 'm'), momentName(d.name, 'v')]) tensors[name] = new Float32Array(numel(d.shape));
    }
    this.trainer.importState({ ...state.trainer, tensors });
  }

  private checkTarget(state: LearnerState): void {
    if (state.target !== this.spec.target) throw new AlgoError('bad-checkpoint', `checkpoint holds a ${state.target} adapter, this learner trains the ${this.spec.target}`);
  }

  private paramSpecs(): ParamSpec[] {
    return adapterParamSpecs(this.spec.model.config, this.spec.lora, heads(this.spec));
  }

  private paramNames(): string[] {
    return this.paramSpecs().map((p) => p.name);
  }

  dispose(): Promise<void> {
    return this.trainer.dispose();
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

function summarise(results: readonly StepResult[]): TrainSummary {
  const stats: Record<string, number> = {};
  for (const r of results) for (const [k, v] of Object.entries(r.stats)) stats[k] = (stats[k] ?? 0) + v / results.length;
  return {
    steps: results.length,
    loss: results.reduce((a, r) => a + r.loss, 0) / Math.max(1, results.length),
    stats,
    maxGradNorm: Math.max(0, ...results.map((r) => r.stats.grad_norm ?? 0)),
    losses: results.map((r) => r.loss),
  };
}
