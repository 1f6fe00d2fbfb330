// An extra graph for Hugging Face tooling: `onnx/model.onnx` in Optimum's decoder-with-past layout,
// which transformers.js (AutoModelForCausalLM) loads from a model folder. Our own graphs take an
// additive `attention_bias` and int32 ids (model/llama/graphs.ts); this one takes Optimum's inputs
//   input_ids int64 [B, S], attention_mask int64 [B, P+S], position_ids int64 [B, S],
//   past_key_values.{l}.key/value [B, KV, P, hd] (P may be 0: one graph serves prefill and decode)
// and builds the bias inside the graph: query i of S sees key j iff j ≤ P + i and attention_mask[b, j] = 1.
// Outputs: logits [B, S, V], present.{l}.key/value [B, KV, P+S, hd]. The forward pass itself is the
// same emitter (model/llama/emit.ts), so its numbers are the engine's.
import { GraphBuilder } from '../../model/onnx/builder.ts';
import { headDim, type ModelConfig } from '../../model/llama/config.ts';
import { emitForward, NEG_BIAS } from '../../model/llama/emit.ts';
import { pastKeyName, pastValueName, presentKeyName, presentValueName } from '../../model/llama/graphs.ts';
import type { ParamSource } from '../../model/llama/params.ts';

/** Path of the exported graph inside a model folder, where transformers.js looks for fp32 weights. */
export const OPTIMUM_MODEL_FILE = 'onnx/model.onnx';

export function buildOptimumDecoder(cfg: ModelConfig, params: ParamSource): Uint8Array {
  const g = new GraphBuilder('turnwise_llama_optimum');
  const kv = cfg.nKvHeads;
  const hd = headDim(cfg);
  const ids64 = g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  const mask64 = g.input('attention_mask', 'int64', ['batch_size', 'total_sequence_length']);
  const pos64 = g.input('position_ids', 'int64', ['batch_size', 'sequence_length']);
  const past = Array.from({ length: cfg.nLayers }, (_, l) => ({
    key: g.input(pastKeyName(l), 'float32', ['batch_size', kv, 'past_sequence_length', hd]),
    value: g.input(pastValueName(l), 'float32', ['batch_size', kv, 'past_sequence_length', hd]),
  }));
  const i64 = (v: number) => g.constant('int64', BigInt64Array.of(BigInt(v)), []);
  const dim = (t: string, axis: number) => g.op('Gather', [g.op('Shape', [t]), i64(axis)], { axis: 0 }); // scalar int64
  const s = dim(ids64, 1);
  const t = dim(mask64, 1);
  const p = g.op('Sub', [t, s]);
  const one = i64(1);
  // causal [S, T]: j ≤ P + i
  const rows = g.op('Unsqueeze', [g.op('Add', [g.op('Range', [i64(0), s, one]), p]), g.constant('int64', [1])]); // [S, 1]
  const cols = g.op('Unsqueeze', [g.op('Range', [i64(0), t, one]), g.constant('int64', [0])]); // [1, T]
  const causal = g.op('Unsqueeze', [g.op('LessOrEqual', [cols, rows]), g.constant('int64', [0])]); // [1, S, T]
  const keys = g.op('Unsqueeze', [g.op('Cast', [mask64], { to: 9 }), g.constant('int64', [1])]); // bool [B, 1, T]
  const visible = g.op('And', [causal, keys]); // [B, S, T]
  const bias = g.op('Where', [visible, g.constant('float32', [0], []), g.constant('float32', [NEG_BIAS], [])]);
  // Positions are clipped into the RoPE table: transformers.js writes 1 at padded slots, which are hidden anyway.
  const pos = g.op('Cast', [g.op('Clip', [pos64, i64(0), i64(cfg.maxSeq - 1)])], { to: 6 });
  const ids = g.op('Cast', [ids64], { to: 6 });
  const out = emitForward(g, cfg, { inputIds: ids, positionIds: pos, attentionBias: bias, past }, { params, logits: 'all' });
  g.node('Identity', [out.logits as string], ['logits']);
  g.output('logits', 'float32', ['batch_size', 'sequence_length', cfg.vocabSize]);
  out.present.forEach((pr, l) => {
    g.node('Identity', [pr.key], [presentKeyName(l)]);
    g.output(presentKeyName(l), 'float32', ['batch_size', kv, 'total_sequence_length', hd]);
    g.node('Identity', [pr.value], [presentValueName(l)]);
    g.output(presentValueName(l), 'float32', ['batch_size', kv, 'total_sequence_length', hd]);
  });
  return g.toBytes();
}
