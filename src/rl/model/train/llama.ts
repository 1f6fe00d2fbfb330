// The train step for the one model definition (src/rl/model/llama/emit.ts): wires `emitForward` into
// `buildTrainStep` for the two trainable sets the lab uses — every parameter (the forge) or only the
// LoRA A/B matrices over a frozen fp32 or 4-bit base (the browser). The forward's batch inputs are
// the score graph's: input_ids, position_ids int32 [B, S] and attention_bias float32 [B, S, S]
// (feeds.ts builds them); the loss adds its own (losses.ts LOSS_INPUTS).
import type { ModelConfig } from '../llama/config.ts';
import { emitForward } from '../llama/emit.ts';
import { blocksQuant4, paramSource } from '../llama/params.ts';
import { adapterParamSpecs, paramSpecs, type HeadsSpec, type LoraSpec, type ModelWeights } from '../llama/weights.ts';
import type { NBitsBackwardMode } from '../autodiff/nbits.ts';
import type { LossSpec } from './losses.ts';
import { buildTrainStep, type TrainParam, type TrainStepGraph } from './trainStep.ts';

/** Which parameters a Llama train step updates. */
export type LlamaTrainable =
  | { kind: 'full' }
  /** Adapters only; the base enters as fp32 constants or as 4-bit packs of the block linears. */
  | { kind: 'lora'; lora: LoraSpec; base: 'fp32' | 'quant4' };

/** Everything a Llama train step needs. */
export interface LlamaTrainSpec {
  cfg: ModelConfig;
  /** Base weights in Hugging Face layout (for 'full', only their shapes matter; values are fed). */
  weights: ModelWeights;
  trainable: LlamaTrainable;
  /** Extra heads; `{ value: true }` for value-mse or Bradley–Terry on values. */
  heads?: HeadsSpec;
  loss: LossSpec;
  /** B, S: fixed batch shape. */
  batch: number;
  seqLen: number;
  nbitsBackward?: NBitsBackwardMode;
  /** Also output raw gradients <p>.grad (checks). */
  outputGradients?: boolean;
}

/** The trainable parameters (names and shapes) of a spec, in a stable order. */
export function llamaTrainParams(spec: Pick<LlamaTrainSpec, 'cfg' | 'trainable' | 'heads'>): TrainParam[] {
  if (spec.trainable.kind === 'full') return paramSpecs(spec.cfg, spec.heads).map((p) => ({ name: p.name, dims: [...p.shape] }));
  // LoRA matrices are rank-2 but are not decayed by default (PEFT trains them without weight decay
  // unless asked); pass decay explicitly by editing the returned list if wanted.
  // (with a value head, its adapter delta too: weights.ts valueHeadDelta)
  return adapterParamSpecs(spec.cfg, spec.trainable.lora, spec.heads).map((p) => ({ name: p.name, dims: [...p.shape], decay: false }));
}

/** Builds the train-step graph of the Llama decoder. */
export function buildLlamaTrainStep(spec: LlamaTrainSpec): TrainStepGraph {
  const { cfg, batch, seqLen, trainable } = spec;
  const params = llamaTrainParams(spec);
  const source =
    trainable.kind === 'full' ? paramSource(spec.weights, 'input') : paramSource(spec.weights, trainable.base === 'quant4' ? blocksQuant4 : 'const');
  return buildTrainStep({
    name: `llama_train_${trainable.kind}`,
    params,
    batch,
    seqLen,
    loss: spec.loss,
    nbitsBackward: spec.nbitsBackward,
    outputGradients: spec.outputGradients,
    forward: (g) => {
      const inputIds = g.input('input_ids', 'int32', [batch, seqLen]);
      const positionIds = g.input('position_ids', 'int32', [batch, seqLen]);
      const attentionBias = g.input('attention_bias', 'float32', [batch, seqLen, seqLen]);
      const out = emitForward(
        g,
        cfg,
        { inputIds, positionIds, attentionBias },
        {
          params: source,
          lora: trainable.kind === 'lora' ? trainable.lora : undefined,
          heads: spec.heads,
          logits: 'all',
        },
      );
      return { logits: out.logits, values: out.values };
    },
  });
}
