// The forward pass of the Llama-style decoder, emitted into a GraphBuilder (docs/design.md, "One model
// definition, two kinds of graph"). Touvron et al. 2023 (arXiv 2302.13971): pre-norm blocks,
//   x ← x + o_proj(attn(rope(q_proj(n)), rope(k_proj(n)), v_proj(n))),  n = RMSNorm(x)   (Zhang & Sennrich 2019)
//   x ← x + down_proj(silu(gate_proj(n)) ⊙ up_proj(n)),                 n = RMSNorm(x)   (SwiGLU, Shazeer 2020)
// RoPE in Hugging Face's rotate_half convention (Su et al. 2021): x·cos + rotate_half(x)·sin with
// cos = [cos(pθ), cos(pθ)] over the head dimension, so weights export to transformers unchanged.
// Only the op set the autodiff engine differentiates is used (MatMul, MatMulNBits, Add, Mul, Div, Neg,
// Sqrt, Pow, Sigmoid, Softmax, LogSoftmax, ReduceSum, ReduceMean, Reshape, Transpose, Unsqueeze, Squeeze,
// Concat, Slice, Gather, Expand, Cast, Equal). Masking and causality come in as an additive bias
// [B, S, T] (0 = visible, NEG_BIAS = hidden), built in TypeScript (feeds.ts), so ragged batches and
// packed sequences need no shape ops in the graph.
import { GraphBuildError, type GraphBuilder } from '../onnx/builder.ts';
import { QUANT_BLOCK, dequantize4 } from '../quant.ts';
import { headDim, type ModelConfig } from './config.ts';
import { transpose, type ParamPlacement, type ParamSource } from './params.ts';
import { loraParams, projName, projShape, valueHeadDelta, type HeadsSpec, type LoraParam, type LoraSpec, type LoraTarget, type ParamSpec } from './weights.ts';

/** Value names (already defined in the builder) that feed the forward pass. */
export interface ForwardInputs {
  /** int32 [B, S] token ids (range-checked in TypeScript before every run). */
  inputIds: string;
  /** int32 [B, S] absolute positions (< maxSeq), for RoPE. */
  positionIds: string;
  /** float32 [B, S, T], T = past + S: 0 where a query may attend a key, NEG_BIAS elsewhere. */
  attentionBias: string;
  /** Per layer, float32 [B, nKvHeads, P, headDim] keys/values after RoPE; absent for a prefill. */
  past?: readonly { key: string; value: string }[];
  /** int32 [B, S] next-token targets; −1 gives log-prob 0 (padding). Requires logits 'all'. */
  targets?: string;
}

/** What to emit. */
export interface ForwardOptions {
  params: ParamSource;
  /** Adapters: their A/B matrices become graph inputs. */
  lora?: LoraSpec;
  /** Extra heads (value). */
  heads?: HeadsSpec;
  /** LM-head logits at every position, only at the last position, or none. Default 'all'. */
  logits?: 'all' | 'last' | 'none';
}

/** Value names the forward pass produced (declare the ones you need as graph outputs). */
export interface ForwardOutputs {
  /** float32 [B, S, V] ('all') or [B, 1, V] ('last'). */
  logits?: string;
  /** float32 [B, S]: log π(targets | prefix). */
  logprobs?: string;
  /** float32 [B, S]: the value head at every position. */
  values?: string;
  /** float32 [B, S, d]: the final normed hidden state. */
  hidden: string;
  /** Per layer, [B, nKvHeads, T, headDim] keys/values (past ++ new), for the KV cache. */
  present: { key: string; value: string }[];
  /** Per layer, [B, nKvHeads, S, headDim] keys/values of the new tokens alone (after RoPE), for a cache kept outside the graph. */
  fresh: { key: string; value: string }[];
  /** Parameters declared as graph inputs (placement 'input'), named and shaped as in Hugging Face. */
  paramInputs: ParamSpec[];
  /** LoRA matrices declared as graph inputs, PEFT names. */
  loraInputs: ParamSpec[];
}

/** Additive attention bias for hidden keys: large and finite, so a fully hidden (padding) row stays finite. */
export const NEG_BIAS = -1e9;

// Slice clamps ends to the dimension; 2³¹−1 survives the int64 conversion exactly (2⁶³−1 would not as a JS number).
const SLICE_END = 2_147_483_647;

class Emitter {
  private readonly consts = new Map<string, string>();
  private readonly paramValues = new Map<string, string>();
  readonly paramInputs: ParamSpec[] = [];
  readonly loraInputs: ParamSpec[] = [];
  private readonly lora = new Map<string, LoraParam>();
  private readonly loraScale: number;

  constructor(
    readonly g: GraphBuilder,
    readonly cfg: ModelConfig,
    readonly opts: ForwardOptions,
  ) {
    for (const p of loraParams(cfg, opts.lora)) this.lora.set(projName(p.layer, p.target), p);
    this.loraScale = opts.lora && opts.lora.rank > 0 ? opts.lora.alpha / opts.lora.rank : 0;
  }

  /** An int64 constant (shapes, axes), shared by value. */
  i64(values: number[]): string {
    const key = `i64:${values.join(',')}`;
    let name = this.consts.get(key);
    if (!name) {
      name = this.g.initializer(this.g.fresh('c_i64'), 'int64', [values.length], BigInt64Array.from(values.map((v) => BigInt(v))));
      this.consts.set(key, name);
    }
    return name;
  }

  /** A float32 scalar constant, shared by value. */
  f32(value: number): string {
    const key = `f32:${value}`;
    let name = this.consts.get(key);
    if (!name) {
      name = this.g.initializer(this.g.fresh('c_f32'), 'float32', [], Float32Array.of(value));
      this.consts.set(key, name);
    }
    return name;
  }

  placement(spec: ParamSpec): ParamPlacement {
    const p = this.opts.params.placement(spec);
    // 4-bit packs only where a MatMulNBits can use them; the value head is too small to bother.
    if (p === 'quant4' && (spec.kind === 'norm' || spec.kind === 'bias' || spec.name.startsWith('v_head'))) return 'const';
    if (p === 'quant4' && spec.shape[spec.shape.length - 1] % QUANT_BLOCK !== 0) return 'const';
    // an untied embedding is only looked up, so rounding it would cost accuracy for nothing
    if (p === 'quant4' && spec.kind === 'embedding' && !this.cfg.tieEmbeddings) return 'const';
    return p;
  }

  /**
   * A graph value by name, created once: a second forward pass emitted into the same builder (e.g. a
   * reference model beside the policy, sharing frozen weights) reuses inputs and initializers.
   */
  private once(name: string, make: () => string): string {
    return this.g.has(name) ? name : make();
  }

  /** The fp32 tensor of a parameter in HF layout (graph input or initializer). */
  param(spec: ParamSpec): string {
    let name = this.paramValues.get(spec.name);
    if (name) return name;
    const p = this.placement(spec);
    if (p === 'input') {
      name = this.once(spec.name, () => this.g.input(spec.name, 'float32', spec.shape));
      this.paramInputs.push(spec);
    } else if (p === 'const') {
      name = this.once(spec.name, () => this.g.initializer(spec.name, 'float32', spec.shape, this.opts.params.values(spec)));
    } else {
      // quant4 embedding: the lookup table is the dequantised matrix, matching the 4-bit tied head.
      name = this.once(`${spec.name}.dq`, () => {
        const pk = this.opts.params.packed(spec); // W = Eᵀ [d, V]
        return this.g.initializer(`${spec.name}.dq`, 'float32', spec.shape, transpose(dequantize4(pk), pk.k, pk.n));
      });
    }
    this.paramValues.set(spec.name, name);
    return name;
  }

  loraInput(spec: ParamSpec): string {
    this.loraInputs.push(spec);
    return this.once(spec.name, () => this.g.input(spec.name, 'float32', spec.shape));
  }

  /**
   * x · Wᵀ through a 4-bit pack: initializers `<name>.q4` (uint8 [N, K/32, 16]) and `<name>.q4scales`
   * (fp32 [N·K/32]), K = in, N = out. The autodiff engine reads the same pack from `params.packed`.
   */
  matMulNBits(x: string, spec: ParamSpec): string {
    const g = this.g;
    const pk = this.opts.params.packed(spec);
    const b = this.once(`${spec.name}.q4`, () => g.initializer(`${spec.name}.q4`, 'uint8', [pk.n, pk.k / QUANT_BLOCK, QUANT_BLOCK / 2], pk.packed));
    const s = this.once(`${spec.name}.q4scales`, () => g.initializer(`${spec.name}.q4scales`, 'float32', [pk.scales.length], pk.scales));
    return g.op('MatMulNBits', [x, b, s], { K: pk.k, N: pk.n, bits: 4, block_size: QUANT_BLOCK }, 'com.microsoft');
  }

  /** y = x · Wᵀ for W [out, in] in HF layout (plus the LoRA update when this projection has one). */
  linear(x: string, spec: ParamSpec): string {
    const g = this.g;
    let y: string;
    if (this.placement(spec) === 'quant4') {
      y = this.matMulNBits(x, spec);
    } else {
      y = g.op('MatMul', [x, g.op('Transpose', [this.param(spec)], { perm: [1, 0] })]);
    }
    const ad = this.lora.get(spec.name);
    if (ad) {
      const a = this.loraInput(ad.a);
      const bm = this.loraInput(ad.b);
      const xa = g.op('MatMul', [x, g.op('Transpose', [a], { perm: [1, 0] })]);
      const xab = g.op('MatMul', [xa, g.op('Transpose', [bm], { perm: [1, 0] })]);
      y = g.op('Add', [y, g.op('Mul', [xab, this.f32(this.loraScale)])]);
    }
    return y;
  }

  /** RMSNorm: x / √(mean(x²) + ε) · w, over the last axis. */
  rmsNorm(x: string, weight: string): string {
    const g = this.g;
    // Pow(x, 2) rather than x·x: ORT's SimplifiedLayerNormFusion matches exactly this chain on CPU/wasm.
    const ms = g.op('ReduceMean', [g.op('Pow', [x, this.f32(2)])], { axes: [-1], keepdims: 1 });
    const rms = g.op('Sqrt', [g.op('Add', [ms, this.f32(this.cfg.normEps)])]);
    return g.op('Mul', [g.op('Div', [x, rms]), this.param({ name: weight, kind: 'norm', shape: [this.cfg.dModel] })]);
  }

  /** x [B, S, n, hd] rotated by cos/sin [B, S, 1, hd]. */
  rope(x: string, cos: string, sin: string): string {
    const g = this.g;
    const half = headDim(this.cfg) / 2;
    const x1 = g.op('Slice', [x, this.i64([0]), this.i64([half]), this.i64([3])]);
    const x2 = g.op('Slice', [x, this.i64([half]), this.i64([2 * half]), this.i64([3])]);
    const rot = g.op('Concat', [g.op('Neg', [x2]), x1], { axis: 3 });
    return g.op('Add', [g.op('Mul', [x, cos]), g.op('Mul', [rot, sin])]);
  }

  /** [B, KV, T, hd] → [B, H, T, hd] by repeating each kv head H/KV times (grouped-query attention). */
  repeatKv(x: string): string {
    const { nHeads, nKvHeads } = this.cfg;
    if (nHeads === nKvHeads) return x;
    const g = this.g;
    const u = g.op('Unsqueeze', [x, this.i64([2])]);
    const e = g.op('Expand', [u, this.i64([1, 1, nHeads / nKvHeads, 1, 1])]);
    return g.op('Reshape', [e, this.i64([0, nHeads, -1, headDim(this.cfg)])]);
  }

  block(
    l: number,
    x: string,
    io: { cos: string; sin: string; bias: string; past?: { key: string; value: string } },
  ): { x: string; key: string; value: string; fresh: { key: string; value: string } } {
    const g = this.g;
    const cfg = this.cfg;
    const hd = headDim(cfg);
    const spec = (p: LoraTarget): ParamSpec => ({ name: projName(l, p), kind: 'linear', shape: projShape(cfg, p) });
    const n = this.rmsNorm(x, `model.layers.${l}.input_layernorm.weight`);
    // [B, S, d] → [B, S, heads, hd]
    const q = g.op('Reshape', [this.linear(n, spec('q_proj')), this.i64([0, 0, cfg.nHeads, hd])]);
    const k = g.op('Reshape', [this.linear(n, spec('k_proj')), this.i64([0, 0, cfg.nKvHeads, hd])]);
    const v = g.op('Reshape', [this.linear(n, spec('v_proj')), this.i64([0, 0, cfg.nKvHeads, hd])]);
    const perm = { perm: [0, 2, 1, 3] };
    const qh = g.op('Transpose', [this.rope(q, io.cos, io.sin)], perm); // [B, H, S, hd]
    let kh = g.op('Transpose', [this.rope(k, io.cos, io.sin)], perm); // [B, KV, S, hd]
    let vh = g.op('Transpose', [v], perm);
    const fresh = { key: kh, value: vh };
    if (io.past) {
      kh = g.op('Concat', [io.past.key, kh], { axis: 2 }); // [B, KV, T, hd]
      vh = g.op('Concat', [io.past.value, vh], { axis: 2 });
    }
    const kt = g.op('Transpose', [this.repeatKv(kh)], { perm: [0, 1, 3, 2] }); // [B, H, hd, T]
    const scores = g.op('Mul', [g.op('MatMul', [qh, kt]), this.f32(1 / Math.sqrt(hd))]); // [B, H, S, T]
    const probs = g.op('Softmax', [g.op('Add', [scores, io.bias])], { axis: -1 });
    const ctx = g.op('MatMul', [probs, this.repeatKv(vh)]); // [B, H, S, hd]
    const merged = g.op('Reshape', [g.op('Transpose', [ctx], perm), this.i64([0, 0, cfg.dModel])]); // [B, S, d]
    const x1 = g.op('Add', [x, this.linear(merged, spec('o_proj'))]);
    const n2 = this.rmsNorm(x1, `model.layers.${l}.post_attention_layernorm.weight`);
    const gate = this.linear(n2, spec('gate_proj'));
    const act = g.op('Mul', [g.op('Mul', [gate, g.op('Sigmoid', [gate])]), this.linear(n2, spec('up_proj'))]);
    return { x: g.op('Add', [x1, this.linear(act, spec('down_proj'))]), key: kh, value: vh, fresh };
  }

  /** The LM head: h · Eᵀ (tied) or lm_head. */
  head(h: string): string {
    const cfg = this.cfg;
    if (!cfg.tieEmbeddings) return this.linear(h, { name: 'lm_head.weight', kind: 'linear', shape: [cfg.vocabSize, cfg.dModel] });
    const emb: ParamSpec = { name: 'model.embed_tokens.weight', kind: 'embedding', shape: [cfg.vocabSize, cfg.dModel] };
    if (this.placement(emb) === 'quant4') return this.matMulNBits(h, emb);
    return this.g.op('MatMul', [h, this.g.op('Transpose', [this.param(emb)], { perm: [1, 0] })]);
  }
}

/** RoPE tables [maxSeq, headDim]: cos/sin of p·θ_i with θ_i = base^(−2i/hd), repeated over both halves. */
export function ropeTables(cfg: ModelConfig): { cos: Float32Array; sin: Float32Array } {
  const hd = headDim(cfg);
  const cos = new Float32Array(cfg.maxSeq * hd);
  const sin = new Float32Array(cfg.maxSeq * hd);
  for (let p = 0; p < cfg.maxSeq; p++) {
    for (let i = 0; i < hd / 2; i++) {
      // float32 inverse frequencies, as transformers computes them
      const invFreq = Math.fround(1 / Math.pow(cfg.ropeTheta, (2 * i) / hd));
      const a = p * invFreq;
      cos[p * hd + i] = cos[p * hd + i + hd / 2] = Math.cos(a);
      sin[p * hd + i] = sin[p * hd + i + hd / 2] = Math.sin(a);
    }
  }
  return { cos, sin };
}

/** Emits the decoder forward pass into `g`; see ForwardInputs/ForwardOptions for the contract. */
export function emitForward(g: GraphBuilder, cfg: ModelConfig, inputs: ForwardInputs, opts: ForwardOptions): ForwardOutputs {
  const e = new Emitter(g, cfg, opts);
  if (inputs.past && inputs.past.length !== cfg.nLayers) throw new GraphBuildError(`emitForward: ${inputs.past.length} past entries for ${cfg.nLayers} layers`);
  const tables = ropeTables(cfg);
  const hd = headDim(cfg);
  const cosT = g.has('rope.cos') ? 'rope.cos' : g.initializer('rope.cos', 'float32', [cfg.maxSeq, hd], tables.cos);
  const sinT = g.has('rope.sin') ? 'rope.sin' : g.initializer('rope.sin', 'float32', [cfg.maxSeq, hd], tables.sin);
  const cos = g.op('Unsqueeze', [g.op('Gather', [cosT, inputs.positionIds], { axis: 0 }), e.i64([2])]); // [B, S, 1, hd]
  const sin = g.op('Unsqueeze', [g.op('Gather', [sinT, inputs.positionIds], { axis: 0 }), e.i64([2])]);
  const bias = g.op('Unsqueeze', [inputs.attentionBias, e.i64([1])]); // [B, 1, S, T]

  const emb: ParamSpec = { name: 'model.embed_tokens.weight', kind: 'embedding', shape: [cfg.vocabSize, cfg.dModel] };
  let x = g.op('Gather', [e.param(emb), inputs.inputIds], { axis: 0 }); // [B, S, d]
  const present: { key: string; value: string }[] = [];
  const fresh: { key: string; value: string }[] = [];
  for (let l = 0; l < cfg.nLayers; l++) {
    const out = e.block(l, x, { cos, sin, bias, past: inputs.past?.[l] });
    x = out.x;
    present.push({ key: out.key, value: out.value });
    fresh.push(out.fresh);
  }
  const hidden = e.rmsNorm(x, 'model.norm.weight');
  const result: ForwardOutputs = { hidden, present, fresh, paramInputs: e.paramInputs, loraInputs: e.loraInputs };
  const mode = opts.logits ?? 'all';
  if (mode !== 'none') {
    const h = mode === 'last' ? g.op('Slice', [hidden, e.i64([-1]), e.i64([SLICE_END]), e.i64([1])]) : hidden;
    result.logits = e.head(h);
  }
  if (inputs.targets) {
    if (mode !== 'all' || !result.logits) throw new GraphBuildError('emitForward: target log-probs need logits "all"');
    const lsm = g.op('LogSoftmax', [result.logits], { axis: -1 });
    const vocab = g.constant(
      'int32',
      Int32Array.from({ length: cfg.vocabSize }, (_, i) => i),
    );
    const onehot = g.op('Cast', [g.op('Equal', [g.op('Unsqueeze', [inputs.targets, e.i64([2])]), vocab])], { to: 1 }); // [B, S, V]
    result.logprobs = g.op('ReduceSum', [g.op('Mul', [lsm, onehot]), e.i64([-1])], { keepdims: 0 });
  }
  if (opts.heads?.value) {
    let w = e.param({ name: 'v_head.summary.weight', kind: 'linear', shape: [1, cfg.dModel] });
    let b = e.param({ name: 'v_head.summary.bias', kind: 'bias', shape: [1] });
    if (opts.lora && opts.lora.rank > 0) {
      // the adapter's value-head delta (weights.ts valueHeadDelta): trainable beside the LoRA
      const [dw, db] = valueHeadDelta(cfg);
      w = g.op('Add', [w, e.loraInput(dw)]);
      b = g.op('Add', [b, e.loraInput(db)]);
    }
    const v = g.op('Add', [g.op('MatMul', [hidden, g.op('Transpose', [w], { perm: [1, 0] })]), b]); // [B, S, 1]
    result.values = g.op('Squeeze', [v, e.i64([2])]);
  }
  return result;
}
