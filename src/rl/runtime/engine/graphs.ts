// The scoring graph the engine runs for log-probs and critic values: the model's forward pass
// (model/llama/emit.ts) with `targets` in and only `logprobs` [B, S] (and `values` [B, S] for a
// critic) out, so the [B, S, V] logits never leave ONNX Runtime. Prefill and decode graphs are the
// model core's (model/llama/graphs.ts, run by engine/stepper.ts).
import { GraphBuilder } from '../../model/onnx/builder.ts';
import type { ModelConfig } from '../../model/llama/config.ts';
import { emitForward } from '../../model/llama/emit.ts';
import type { ParamSource } from '../../model/llama/params.ts';
import type { HeadsSpec, LoraSpec } from '../../model/llama/weights.ts';

/** input_ids, position_ids int32 [B, S], attention_bias [B, S, S], targets int32 [B, S] → logprobs [B, S] (+ values [B, S]). */
export function buildScoreGraph(cfg: ModelConfig, params: ParamSource, lora: LoraSpec | undefined, heads: HeadsSpec): Uint8Array {
  const g = new GraphBuilder('turnwise_llama_logprobs');
  const inputIds = g.input('input_ids', 'int32', ['batch', 'seq']);
  const positionIds = g.input('position_ids', 'int32', ['batch', 'seq']);
  const attentionBias = g.input('attention_bias', 'float32', ['batch', 'seq', 'seq']);
  const targets = g.input('targets', 'int32', ['batch', 'seq']);
  const out = emitForward(g, cfg, { inputIds, positionIds, attentionBias, targets }, { params, lora, heads, logits: 'all' });
  g.node('Identity', [out.logprobs as string], ['logprobs']);
  g.output('logprobs', 'float32', ['batch', 'seq']);
  if (out.values) {
    g.node('Identity', [out.values], ['values']);
    g.output('values', 'float32', ['batch', 'seq']);
  }
  return g.toBytes();
}
