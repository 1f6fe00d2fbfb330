// The forge's training phases over the train-step graph (src/rl/model/train) on onnxruntime-node:
//  - SFT: masked, per-token-weighted cross-entropy on packed dialogue segments (policy; critic with
//    the hidden information in its prompt), linear warm-up then cosine decay to 10% of the peak;
//  - value: regression of Monte-Carlo returns (γ = 1) by the critic's scalar head over the frozen
//    backbone (a linear probe: the critic's LM head, which SWEET-RL's log-ratio advantage reads,
//    stays exactly as its SFT left it).
// Each phase prints a progress line every `logEvery` steps and returns its loss curve.
import type { ModelConfig } from '../model/llama/config.ts';
import { emitForward } from '../model/llama/emit.ts';
import { paramSource } from '../model/llama/params.ts';
import type { ModelWeights } from '../model/llama/weights.ts';
import { buildLlamaTrainStep } from '../model/train/llama.ts';
import { buildTrainStep, type TrainStepGraph } from '../model/train/trainStep.ts';
import { Trainer } from '../runtime/train/trainer.ts';
import type { OrtRuntime } from '../runtime/ort.ts';
import type { PackSegment, Packer } from './data.ts';

/** Learning-rate schedule: linear warm-up to `peak`, then cosine to 10% of it at `total`. */
export function learningRate(step: number, peak: number, warmup: number, total: number): number {
  if (step <= warmup) return (peak * step) / Math.max(1, warmup);
  const p = Math.min(1, (step - warmup) / Math.max(1, total - warmup));
  return peak * (0.1 + 0.45 * (1 + Math.cos(Math.PI * p)));
}

/** What a phase did. */
export interface PhaseReport {
  phase: string;
  steps: number;
  /** Real tokens processed. */
  tokens: number;
  seconds: number;
  /** Mean loss over the first and the last `logEvery` steps. */
  firstLoss: number;
  lastLoss: number;
  /** Mean loss per `logEvery` steps. */
  curve: number[];
  /** A DAgger round's play before it trained (forge/dagger.ts): per family, the policy's success and agreement with the expert. */
  dagger?: { family: string; episodes: number; successRate: number; agreement: number; turns: number }[];
}

/** Settings of one phase. */
export interface PhaseOptions {
  phase: string;
  steps: number;
  lr: number;
  warmup: number;
  logEvery: number;
  log: (line: string) => void;
  /** Stop after this many seconds even if steps remain (the result then depends on the machine's speed). */
  maxSeconds?: number;
}

async function drive(trainer: Trainer, packer: Packer, take: () => Promise<PackSegment>, o: PhaseOptions): Promise<PhaseReport> {
  const t0 = performance.now();
  let tokens = 0;
  let window: number[] = [];
  const curve: number[] = [];
  let lastStats: Record<string, number> = {};
  let steps = 0;
  for (let s = 1; s <= o.steps; s++) {
    trainer.config.lr = learningRate(s, o.lr, o.warmup, o.steps);
    const b = await packer.pack(take);
    tokens += b.tokens;
    const r = await trainer.step(b.feeds);
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
      o.log(`[forge ${o.phase}] step ${s}/${o.steps}${over ? ' (time budget reached)' : ''} loss ${mean.toFixed(4)} ${extra} lr ${trainer.config.lr.toExponential(2)} ${Math.round(tokens / sec)} tok/s ${sec.toFixed(0)} s`);
    }
    if (over) break;
  }
  return { phase: o.phase, steps, tokens, seconds: (performance.now() - t0) / 1000, firstLoss: curve[0] ?? NaN, lastLoss: curve[curve.length - 1] ?? NaN, curve };
}

/** The full-parameter SFT train step of a config (weighted cross-entropy). */
export function sftGraph(cfg: ModelConfig, weights: ModelWeights, batch: number, seqLen: number): TrainStepGraph {
  return buildLlamaTrainStep({ cfg, weights, trainable: { kind: 'full' }, loss: { kind: 'sft', weighted: true }, batch, seqLen });
}

/** Runs an SFT phase from `init` and returns the trained weights (copies) and the report. */
export async function sftPhase(
  runtime: OrtRuntime,
  graph: TrainStepGraph,
  init: ModelWeights,
  packer: Packer,
  take: () => Promise<PackSegment>,
  o: PhaseOptions,
): Promise<{ weights: ModelWeights; report: PhaseReport }> {
  const trainer = await Trainer.create(runtime, graph, init, { lr: o.lr, weightDecay: 0.01, beta2: 0.99, maxGradNorm: 1 });
  try {
    const report = await drive(trainer, packer, take, o);
    const weights: ModelWeights = {};
    for (const p of graph.params) weights[p.name] = trainer.param(p.name).slice();
    return { weights, report };
  } finally {
    await trainer.dispose();
  }
}

const VALUE_PARAMS = ['v_head.summary.weight', 'v_head.summary.bias'];

/** Trains the value head (only) over a frozen backbone on MC returns; returns the head's weights. */
export async function valuePhase(
  runtime: OrtRuntime,
  cfg: ModelConfig,
  backbone: ModelWeights,
  head: ModelWeights,
  packer: Packer,
  take: () => Promise<PackSegment>,
  o: PhaseOptions,
): Promise<{ weights: ModelWeights; report: PhaseReport }> {
  const all = { ...backbone, ...head };
  const source = paramSource(all, (spec) => (VALUE_PARAMS.includes(spec.name) ? 'input' : 'const'));
  const graph = buildTrainStep({
    name: 'critic_value_head',
    params: [
      { name: VALUE_PARAMS[0], dims: [1, cfg.dModel] },
      { name: VALUE_PARAMS[1], dims: [1], decay: false },
    ],
    batch: packer.batch,
    seqLen: packer.seqLen,
    loss: { kind: 'value-mse' },
    forward: (g) => {
      const inputIds = g.input('input_ids', 'int32', [packer.batch, packer.seqLen]);
      const positionIds = g.input('position_ids', 'int32', [packer.batch, packer.seqLen]);
      const attentionBias = g.input('attention_bias', 'float32', [packer.batch, packer.seqLen, packer.seqLen]);
      const out = emitForward(g, cfg, { inputIds, positionIds, attentionBias }, { params: source, heads: { value: true }, logits: 'none' });
      return { values: out.values };
    },
  });
  const trainer = await Trainer.create(runtime, graph, head, { lr: o.lr, weightDecay: 0, maxGradNorm: 1 });
  try {
    const report = await drive(trainer, packer, take, o);
    return { weights: Object.fromEntries(VALUE_PARAMS.map((n) => [n, trainer.param(n).slice()])), report };
  } finally {
    await trainer.dispose();
  }
}
