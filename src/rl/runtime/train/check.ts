// The train-step check (issue #4: "the same train step run on wasm in Node and on WebGPU in the
// browser gives the same loss and updated weights, within 1e-3 relative"): one SFT step of a tiny
// decoder on a fixed batch, twice — LoRA adapters over a 4-bit base (what the browser trains) and
// every parameter (what the forge trains) — on whichever runtime it is given. The trainer worker
// runs it on its backend (TrainerService.checkTrainStep); a browser test compares that against Node.
import type { OrtRuntime, TensorData } from '../ort.ts';
import { Rng } from '../../util/rng.ts';
import { validateConfig } from '../../model/llama/config.ts';
import { leftPad, prefillFeeds } from '../../model/llama/feeds.ts';
import { initLora, initWeights, type LoraSpec, type ModelWeights } from '../../model/llama/weights.ts';
import { buildLlamaTrainStep, type LlamaTrainable } from '../../model/train/llama.ts';
import { Trainer } from './trainer.ts';

const CFG = validateConfig({ vocabSize: 48, dModel: 32, nLayers: 2, nHeads: 2, dFf: 64, maxSeq: 16 });
const [B, S] = [2, 8];
const LORA_SPEC: LoraSpec = { rank: 4, alpha: 8, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] };
const LORA: LlamaTrainable = { kind: 'lora', lora: LORA_SPEC, base: 'quant4' };

/** One step's result: the loss before the update and every trainable parameter after it. */
export interface CheckedStep {
  trainable: 'lora' | 'full';
  loss: number;
  gradNorm: number;
  /** The loss's statistics (nll, entropy, token_accuracy) and grad_norm. */
  stats: Record<string, number>;
  before: Record<string, Float32Array>;
  after: Record<string, Float32Array>;
}

/** What checkTrainStep reports. */
export interface TrainStepCheck {
  backend: string;
  steps: CheckedStep[];
}

function batch(): Record<string, TensorData> {
  const rng = new Rng('train-step-check');
  const rows = Array.from({ length: B }, () => Array.from({ length: S + 1 }, () => rng.int(CFG.vocabSize)));
  return {
    ...prefillFeeds(
      CFG,
      leftPad(
        rows.map((r) => r.slice(0, S)),
        0,
      ),
    ),
    targets: { type: 'int32', data: Int32Array.from(rows.flatMap((r) => r.slice(1))), dims: [B, S] },
    loss_mask: { type: 'float32', data: new Float32Array(B * S).fill(1), dims: [B, S] },
  };
}

/** Base weights with a spread (0.2) that keeps gradients well above float32 rounding. */
const base = (): ModelWeights => initWeights(CFG, 1, { std: 0.2 });

function adapters(): ModelWeights {
  const rng = new Rng('train-step-check/B');
  const w = initLora(CFG, LORA_SPEC, 5, 0.2);
  // B = 0 (PEFT's start) gives A no gradient; a random B makes the step move both.
  for (const k of Object.keys(w)) if (k.includes('lora_B')) w[k] = Float32Array.from(w[k], () => rng.normal() * 0.2);
  return w;
}

/** Runs the two steps on `runtime` (sessions opened and closed here). */
export async function checkTrainStep(runtime: OrtRuntime): Promise<TrainStepCheck> {
  const steps: CheckedStep[] = [];
  const weights = base();
  for (const [trainable, init] of [
    [LORA, adapters()],
    [{ kind: 'full' } as LlamaTrainable, weights],
  ] as const) {
    const graph = buildLlamaTrainStep({ cfg: CFG, weights, trainable, loss: { kind: 'sft' }, batch: B, seqLen: S });
    // AdamW's first step moves every weight by ±lr whatever its gradient's size, so a gradient at
    // rounding level (here ~1e-7) would flip between backends; eps 1e-4 keeps those steps small.
    const trainer = await Trainer.create(runtime, graph, init, { lr: 1e-2, eps: 1e-4, maxGradNorm: 1 });
    try {
      const r = await trainer.step(batch());
      const after: Record<string, Float32Array> = {};
      const before: Record<string, Float32Array> = {};
      for (const p of graph.params) {
        after[p.name] = trainer.param(p.name).slice();
        before[p.name] = init[p.name];
      }
      steps.push({ trainable: trainable.kind, loss: r.loss, gradNorm: r.stats.grad_norm ?? Number.NaN, stats: r.stats, before, after });
    } finally {
      await trainer.dispose();
    }
  }
  return { backend: runtime.info.kind, steps };
}

/** max |a − b| / max |b| over one tensor (the relative error the check bounds). */
export function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < b.length; i++) {
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return diff / Math.max(scale, 1e-12);
}
