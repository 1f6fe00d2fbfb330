// The one training driver: a Trainer (runtime/train/trainer.ts) over the train-step graphs of one
// model and one loss, fed from training rows (rows.ts packRows) — supervised cross-entropy, value
// MSE, the clipped policy gradient, DPO and Bradley–Terry alike. The training loop's learners
// (learner.ts, LoRA adapters) and the forge's phases (forge/train.ts, full-parameter SFT and the
// value head) both train through it:
//  - step: one update on a batch of rows (pairs for DPO and Bradley–Terry), through the shortest
//    graph the batch fits when the graphs come in length buckets;
//  - train / trainPairs: epochs over a fixed set of rows in minibatches of similar lengths (the loop);
//  - runSteps: a number of steps over a stream of rows packed several to a graph row, under a
//    warm-up + cosine learning-rate schedule, with progress lines and a loss curve (the forge).
import type { ModelConfig } from '../model/llama/config.ts';
import type { ModelWeights } from '../model/llama/weights.ts';
import type { TrainStepGraph } from '../model/train/trainStep.ts';
import { Trainer, type AdamWConfig, type TrainStepResult, type TrainerState } from '../runtime/train/trainer.ts';
import type { OrtRuntime } from '../runtime/ort.ts';
import { chunks, packRows, pairFeeds, type Row, type RowAlign, type RowFloatName } from './rows.ts';
import { AlgoError } from './types.ts';

const ROW_FLOATS: readonly RowFloatName[] = ['loss_mask', 'weights', 'advantages', 'old_logp', 'ref_logp', 'turn_weights', 'returns'];

/**
 * Sequence lengths bucketed graphs come in: multiples of this up to the driver's seqLen. A batch
 * runs through the shortest graph its longest row fits, so short rows (a one-turn bandit episode,
 * an early guess) are not padded to the whole context; graphs are built on first use.
 */
export const SEQ_BUCKET = 32;

/** The graph length a batch whose longest row has `len` tokens runs at. */
export function bucketLength(len: number, seqLen: number): number {
  return Math.min(seqLen, Math.max(SEQ_BUCKET, Math.ceil(len / SEQ_BUCKET) * SEQ_BUCKET));
}

/** How to build a driver. */
export interface DriverSpec {
  /**
   * The train-step graph: one graph runs every batch at its length (the forge's packed rows fill it);
   * a builder by sequence length gives length buckets up to seqLen (the loop's rows), each opened on
   * first use, without ORT's memory pattern (trainer.ts TrainerOptions).
   */
  graph: TrainStepGraph | ((seqLen: number) => TrainStepGraph);
  cfg: ModelConfig;
  /** Graph rows per run (B); DPO and Bradley–Terry use B = 2P. */
  batch: number;
  /** Tokens per graph row (T), the longest graph. */
  seqLen: number;
  padId: number;
  /** Where sequences sit in a graph row (rows.ts RowAlign; default 'end'). */
  align?: RowAlign;
  /** The trained parameters' starting values. */
  init: ModelWeights;
  adamw: Partial<AdamWConfig>;
}

/** Mean statistics of several steps, plus the largest grad norm and the step losses. */
export interface TrainSummary {
  steps: number;
  loss: number;
  stats: Record<string, number>;
  maxGradNorm: number;
  losses: number[];
}

/** Tokens and time a driver's steps have cost so far (real tokens: padding excluded). */
export interface LearnerMeter {
  steps: number;
  tokens: number;
  /** Tokens the graphs ran, padding included. */
  paddedTokens: number;
  seconds: number;
}

/** One graph row's worth of rows: one Row, or several packed one after another (rows.ts packRows). */
export type GraphRow = Row | readonly Row[];

export class TrainDriver {
  private readonly graphs = new Map<number, Promise<TrainStepGraph>>();
  readonly meter: LearnerMeter = { steps: 0, tokens: 0, paddedTokens: 0, seconds: 0 };

  private constructor(
    readonly spec: DriverSpec,
    private readonly trainer: Trainer,
    private readonly floats: RowFloatName[],
    full: TrainStepGraph,
  ) {
    this.graphs.set(spec.seqLen, Promise.resolve(full));
  }

  static async create(runtime: OrtRuntime, spec: DriverSpec): Promise<TrainDriver> {
    const bucketed = typeof spec.graph === 'function';
    const graph = typeof spec.graph === 'function' ? spec.graph(spec.seqLen) : spec.graph;
    const names = new Set(graph.batchInputs.map((v) => v.name));
    const floats = ROW_FLOATS.filter((n) => names.has(n));
    const trainer = await Trainer.create(runtime, graph, spec.init, spec.adamw, bucketed ? { memPattern: false } : {});
    return new TrainDriver(spec, trainer, floats, graph);
  }

  /** The graph of sequence length `t` (a bucket), built and opened on first use. */
  private graph(t: number): Promise<TrainStepGraph> {
    let g = this.graphs.get(t);
    if (!g) {
      const build = this.spec.graph;
      if (typeof build !== 'function') throw new AlgoError('bad-row', `the driver's one graph takes ${this.spec.seqLen} tokens, not ${t}`);
      g = (async () => {
        const graph = build(t);
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

  /** The current value of a trained parameter (the trainer's array: copy it to keep it). */
  param(name: string): Float32Array {
    return this.trainer.param(name);
  }

  exportState(): TrainerState {
    return this.trainer.exportState();
  }

  importState(state: TrainerState): void {
    this.trainer.importState(state);
  }

  /**
   * One update on up to B graph rows through the shortest graph they fit (bucketed graphs) or the one
   * graph; `pairs` (DPO, Bradley–Terry: P pairs per run) index into `rows`.
   */
  async step(rows: readonly GraphRow[], pairs: readonly [number, number][] = [], P = 0): Promise<TrainStepResult> {
    const { cfg, batch, seqLen, padId } = this.spec;
    const started = performance.now();
    const lengths = rows.map((r) => (Array.isArray(r) ? (r as readonly Row[]).reduce((a, x) => a + x.ids.length, 0) : (r as Row).ids.length));
    const t = typeof this.spec.graph === 'function' ? bucketLength(Math.max(1, ...lengths), seqLen) : seqLen;
    const graph = await this.graph(t);
    const feeds = packRows(cfg, rows, batch, t, this.floats, padId, this.spec.align ?? 'end');
    if (P > 0) {
      if (pairs.length > P) throw new AlgoError('bad-row', `${pairs.length} pairs do not fit the graph's ${P}`);
      if (pairs.length < P && rows.length >= batch) throw new AlgoError('bad-row', 'padding pairs need a free row');
      Object.assign(feeds, pairFeeds(pairs, P, rows.length));
    }
    const result = await this.trainer.step(feeds, graph);
    this.meter.steps++;
    this.meter.tokens += lengths.reduce((a, n) => a + n, 0);
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
    const results: TrainStepResult[] = [];
    let stopped = false;
    for (let e = 0; e < epochs && !stopped; e++) {
      const idx = order ? order(rows.length) : rows.map((_, i) => i);
      for (const c of minibatches(idx, (i) => rows[i].ids.length, this.spec.batch)) {
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
  async trainPairs(pairRows: readonly [Row, Row][], epochs: number, P: number, order?: (n: number) => number[]): Promise<TrainSummary> {
    const results: TrainStepResult[] = [];
    for (let e = 0; e < epochs; e++) {
      const idx = order ? order(pairRows.length) : pairRows.map((_, i) => i);
      for (const c of minibatches(idx, (i) => Math.max(pairRows[i][0].ids.length, pairRows[i][1].ids.length), P)) {
        const rows: Row[] = [];
        const pairs: [number, number][] = [];
        for (const i of c) {
          pairs.push([rows.length, rows.length + 1]);
          rows.push(pairRows[i][0], pairRows[i][1]);
        }
        results.push(await this.step(rows, pairs, P));
      }
    }
    return summarise(results);
  }

  dispose(): Promise<void> {
    return this.trainer.dispose();
  }
}

/**
 * Minibatches of n items with little padding, in the spirit of a length-grouped sampler: items
 * sorted by length (ties in `order`) are chunked by n, so a chunk's rows are of similar length
 * and only the last chunk is short of n; chunks then run in the order of their earliest item in
 * `order`, so a shuffled order still shuffles the steps. Each chunk runs at its own bucket.
 */
function minibatches(order: readonly number[], length: (i: number) => number, n: number): number[][] {
  const at = new Map(order.map((i, k) => [i, k] as const));
  const sorted = [...order].sort((a, b) => length(a) - length(b)); // stable: ties keep `order`
  const first = (c: number[]) => Math.min(...c.map((i) => at.get(i) ?? 0));
  return chunks(sorted, n).sort((a, b) => first(a) - first(b));
}

function summarise(results: readonly TrainStepResult[]): TrainSummary {
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

/**
 * Groups a stream of rows into B graph rows of at most T tokens each, in order: a row that does not
 * fit the rest of a graph row starts the next one, and the one that did not fit the last graph row
 * waits for the next batch. Rows longer than T are dropped.
 */
export class RowStream {
  private pending: Row | null = null;

  constructor(
    readonly batch: number,
    readonly seqLen: number,
    private readonly take: () => Promise<Row>,
  ) {}

  async next(): Promise<Row[][]> {
    const out: Row[][] = [];
    for (let b = 0; b < this.batch; b++) {
      const group: Row[] = [];
      let used = 0;
      for (;;) {
        const row = this.pending ?? (await this.take());
        this.pending = null;
        if (row.ids.length > this.seqLen) continue;
        if (used + row.ids.length > this.seqLen) {
          this.pending = row;
          break;
        }
        group.push(row);
        used += row.ids.length;
      }
      out.push(group);
    }
    return out;
  }
}

/** Learning-rate schedule: linear warm-up to `peak`, then cosine to 10% of it at `total`. */
export function learningRate(step: number, peak: number, warmup: number, total: number): number {
  if (step <= warmup) return (peak * step) / Math.max(1, warmup);
  const p = Math.min(1, (step - warmup) / Math.max(1, total - warmup));
  return peak * (0.1 + 0.45 * (1 + Math.cos(Math.PI * p)));
}

/** Settings of a run of steps over a stream. */
export interface StepsOptions {
  /** Opens each progress line (e.g. `[forge policy]`). */
  label: string;
  steps: number;
  /** Peak learning rate. */
  lr: number;
  warmup: number;
  logEvery: number;
  log: (line: string) => void;
  /** Stop after this many seconds even if steps remain (the result then depends on the machine's speed). */
  maxSeconds?: number;
}

/** What a run of steps did. */
export interface StepsReport {
  steps: number;
  /** Real tokens processed. */
  tokens: number;
  seconds: number;
  /** Mean loss over the first and the last `logEvery` steps. */
  firstLoss: number;
  lastLoss: number;
  /** Mean loss per `logEvery` steps. */
  curve: number[];
}

/** `o.steps` updates on batches from `stream` under the warm-up + cosine schedule, a progress line every `logEvery` steps. */
export async function runSteps(driver: TrainDriver, stream: RowStream, o: StepsOptions): Promise<StepsReport> {
  const t0 = performance.now();
  let tokens = 0;
  let window: number[] = [];
  const curve: number[] = [];
  let lastStats: Record<string, number> = {};
  let steps = 0;
  for (let s = 1; s <= o.steps; s++) {
    driver.lr = learningRate(s, o.lr, o.warmup, o.steps);
    const before = driver.meter.tokens;
    const r = await driver.step(await stream.next());
    tokens += driver.meter.tokens - before;
    window.push(r.loss);
    lastStats = r.stats;
    const over = o.maxSeconds !== undefined && (performance.now() - t0) / 1000 > o.maxSeconds;
    if (s % o.logEvery === 0 || s === o.steps || over) {
      const mean = window.reduce((a, x) => a + x, 0) / window.length;
      curve.push(mean);
      window = [];
      const sec = (performance.now() - t0) / 1000;
      const extra = Object.entries(lastStats)
        .map(([k, v]) => `${k} ${v.toFixed(3)}`)
        .join(' ');
      steps = s;
      o.log(
        `${o.label} step ${s}/${o.steps}${over ? ' (time budget reached)' : ''} loss ${mean.toFixed(4)} ${extra} lr ${driver.lr.toExponential(2)} ${Math.round(tokens / sec)} tok/s ${sec.toFixed(0)} s`,
      );
    }
    if (over) break;
  }
  return { steps, tokens, seconds: (performance.now() - t0) / 1000, firstLoss: curve[0] ?? NaN, lastLoss: curve[curve.length - 1] ?? NaN, curve };
}
