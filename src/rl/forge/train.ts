// The forge's training phases over the train-step graph (src/rl/model/train) on onnxruntime-node:
//  - SFT: masked, per-token-weighted cross-entropy on packed dialogue segments (policy; critic with
//    the hidden information in its prompt), linear warm-up then cosine decay to 10% of the peak;
//  - value: regression of Monte-Carlo returns (γ = 1) by the critic's scalar head over the frozen
//    backbone (a linear probe: the critic's LM head, which SWEET-RL's log-ratio advantage reads,
//    stays exactly as its SFT left it).
// Each phase runs through the one training driver (algos/driver.ts runSteps), prints a progress line
// every `logEvery` steps and returns its loss curve.
import type { ModelConfig } from '../model/llama/config.ts';
import { emitForward } from '../model/llama/emit.ts';
import { paramSource } from '../model/llama/params.ts';
import type { ModelWeights } from '../model/llama/weights.ts';
import { buildLlamaTrainStep } from '../model/train/llama.ts';
import { buildTrainStep, type TrainStepGraph } from '../model/train/trainStep.ts';
import { runSteps, TrainDriver, type StepsReport } from '../algos/driver.ts';
import type { OrtRuntime } from '../runtime/ort.ts';
import { segmentStream, type PackSegment, type Packing } from './data.ts';

/** What a phase did. */
export interface PhaseReport extends StepsReport {
  phase: string;
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

/** A phase's steps through the driver, its lines opened by `[forge <phase>]`. */
async function drive(driver: TrainDriver, packing: Packing, take: () => Promise<PackSegment>, o: PhaseOptions): Promise<PhaseReport> {
  const { phase, ...steps } = o;
  return { phase, ...(await runSteps(driver, segmentStream(packing, take), { ...steps, label: `[forge ${phase}]` })) };
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
  packing: Packing,
  take: () => Promise<PackSegment>,
  o: PhaseOptions,
): Promise<{ weights: ModelWeights; report: PhaseReport }> {
  const driver = await TrainDriver.create(runtime, {
    graph,
    cfg: packing.cfg,
    batch: packing.batch,
    seqLen: packing.seqLen,
    padId: packing.padId,
    align: 'start',
    init,
    adamw: { lr: o.lr, weightDecay: 0.01, beta2: 0.99, maxGradNorm: 1 },
  });
  try {
    const report = await drive(driver, packing, take, o);
    const weights: ModelWeights = {};
    for (const p of graph.params) weights[p.name] = driver.param(p.name).slice();
    return { weights, report };
  } finally {
    await driver.dispose();
  }
}

const VALUE_PARAMS = ['v_head.summary.weight', 'v_head.summary.bias'];

/** Trains the value head (only) over a frozen backbone on MC returns; returns the head's weights. */
export async function valuePhase(
  runtime: OrtRuntime,
  cfg: ModelConfig,
  backbone: ModelWeights,
  head: ModelWeights,
  packing: Packing,
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
    batch: packing.batch,
    seqLen: packing.seqLen,
    loss: { kind: 'value-mse' },
    forward: (g) => {
      const inputIds = g.input('input_ids', 'int32', [packing.batch, packing.seqLen]);
      const positionIds = g.input('position_ids', 'int32', [packing.batch, packing.seqLen]);
      const attentionBias = g.input('attention_bias', 'float32', [packing.batch, packing.seqLen, packing.seqLen]);
      const out = emitForward(g, cfg, { inputIds, positionIds, attentionBias }, { params: source, heads: { value: true }, logits: 'none' });
      return { values: out.values };
    },
  });
  const driver = await TrainDriver.create(runtime, {
    graph,
    cfg,
    batch: packing.batch,
    seqLen: packing.seqLen,
    padId: packing.padId,
    align: 'start',
    init: head,
    adamw: { lr: o.lr, weightDecay: 0, maxGradNorm: 1 },
  });
  try {
    const report = await drive(driver, packing, take, o);
    return { weights: Object.fromEntries(VALUE_PARAMS.map((n) => [n, driver.param(n).slice()])), report };
  } finally {
    await driver.dispose();
  }
}
