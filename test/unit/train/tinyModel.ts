// A tiny decoder built only for the autodiff/train-step tests (the real model lives in
// src/rl/model/llama): token + learned position embedding → one pre-norm block (RMSNorm via
// ReduceMean/Sqrt, 2-head causal attention via MatMul + Softmax with an additive mask, SwiGLU via
// Sigmoid/Mul) → optional frozen 4-bit MatMulNBits projection with a LoRA adapter beside it →
// final RMSNorm → tied output head (logits = h · Eᵀ) and a scalar value head. Works in float32 and
// float64 (the 4-bit layer runs in float32 between Casts, as MatMulNBits has no float64 kernel).
import type { DType, GraphBuilder } from '../../../src/rl/model/onnx/builder.ts';
import { quantize4 } from '../../../src/rl/model/quant.ts';
import type { ForwardFnOutputs, TrainParam } from '../../../src/rl/model/train/trainStep.ts';
import { Rng } from '../../../src/rl/util/rng.ts';

export interface TinyConfig {
  vocab: number;
  /** Width d (a multiple of 32 when nbits is on). */
  d: number;
  heads: number;
  /** SwiGLU hidden width. */
  ff: number;
  batch: number;
  seqLen: number;
  /** Add the frozen 4-bit projection + LoRA (rank `rank`). */
  nbits: boolean;
  rank: number;
  /** 'all': every fp parameter; 'lora': only the adapter matrices. */
  trainable: 'all' | 'lora';
}

export const TINY: TinyConfig = { vocab: 11, d: 8, heads: 2, ff: 12, batch: 2, seqLen: 5, nbits: false, rank: 2, trainable: 'all' };

/** Parameter shapes of the tiny model, trainable or not. */
export function tinyShapes(c: TinyConfig): TrainParam[] {
  const { vocab: v, d, ff } = c;
  const shapes: TrainParam[] = [
    { name: 'embed', dims: [v, d] },
    { name: 'pos', dims: [c.seqLen, d] },
    { name: 'norm1', dims: [d] },
    { name: 'wq', dims: [d, d] },
    { name: 'wk', dims: [d, d] },
    { name: 'wv', dims: [d, d] },
    { name: 'wo', dims: [d, d] },
    { name: 'norm2', dims: [d] },
    { name: 'w_gate', dims: [d, ff] },
    { name: 'w_up', dims: [d, ff] },
    { name: 'w_down', dims: [ff, d] },
    { name: 'norm_f', dims: [d] },
    { name: 'value_head', dims: [d] },
  ];
  if (c.nbits) shapes.push({ name: 'lora_a', dims: [d, c.rank] }, { name: 'lora_b', dims: [c.rank, d] });
  return shapes;
}

/** The trainable subset. */
export function tinyParams(c: TinyConfig): TrainParam[] {
  const all = tinyShapes(c);
  return c.trainable === 'lora' ? all.filter((p) => p.name.startsWith('lora_')) : all;
}

/** Seeded initial values (norm gains near 1, LoRA B non-zero so its gradient is exercised). */
export function tinyInit(c: TinyConfig, seed = 1): Record<string, Float32Array> {
  const rng = new Rng(seed);
  const out: Record<string, Float32Array> = {};
  for (const p of tinyShapes(c)) {
    const n = p.dims.reduce((a, b) => a * b, 1);
    const std = p.dims.length === 1 ? 0.1 : 1 / Math.sqrt(p.dims[0]);
    out[p.name] = Float32Array.from({ length: n }, () => (p.name.startsWith('norm') ? 1 : 0) + rng.normal() * std);
  }
  return out;
}

const FROZEN_SEED = 99;

/** Emits the forward pass; parameters that are not trainable become initializers. */
export function tinyForward(c: TinyConfig, init: Record<string, Float32Array>, dtype: DType = 'float32') {
  return (g: GraphBuilder): ForwardFnOutputs => {
    const { batch: b, seqLen: t, d, heads: h, vocab } = c;
    const dh = d / h;
    const trainable = new Set(tinyParams(c).map((p) => p.name));
    const P: Record<string, string> = {};
    for (const p of tinyShapes(c)) {
      const data = dtype === 'float64' ? Float64Array.from(init[p.name]) : init[p.name];
      P[p.name] = trainable.has(p.name) ? p.name : g.initializer(p.name, dtype, p.dims, data);
    }
    const k = (v: number) => g.constant(dtype, [v], []);
    const ints = (v: number[]) => g.constant('int64', v);
    const rms = (x: string, gain: string) => {
      const ms = g.op('ReduceMean', [g.op('Mul', [x, x])], { axes: [-1], keepdims: 1 });
      return g.op('Mul', [g.op('Div', [x, g.op('Sqrt', [g.op('Add', [ms, k(1e-5)])])]), gain]);
    };
    const tokens = g.input('tokens', 'int32', [b, t]);
    const x = g.op('Add', [g.op('Gather', [P.embed, tokens], { axis: 0 }), P.pos]); // [B, T, d] + [T, d]
    const n1 = rms(x, P.norm1);
    const heads = (w: string) => g.op('Transpose', [g.op('Reshape', [g.op('MatMul', [n1, w]), ints([b, t, h, dh])])], { perm: [0, 2, 1, 3] }); // [B, H, T, dh]
    const [q, kk, v] = [heads(P.wq), heads(P.wk), heads(P.wv)];
    const mask = g.constant(
      dtype,
      Array.from({ length: t * t }, (_, i) => (i % t > Math.floor(i / t) ? -1e9 : 0)),
      [t, t],
    );
    const scores = g.op('Add', [g.op('Mul', [g.op('MatMul', [q, g.op('Transpose', [kk], { perm: [0, 1, 3, 2] })]), k(1 / Math.sqrt(dh))]), mask]);
    const attn = g.op('MatMul', [g.op('Softmax', [scores], { axis: -1 }), v]); // [B, H, T, dh]
    const merged = g.op('Reshape', [g.op('Transpose', [attn], { perm: [0, 2, 1, 3] }), ints([b, t, d])]);
    let x2 = g.op('Add', [x, g.op('MatMul', [merged, P.wo])]);
    const n2 = rms(x2, P.norm2);
    if (c.nbits) {
      const rng = new Rng(FROZEN_SEED);
      const w = quantize4(
        Float32Array.from({ length: d * d }, () => rng.normal() / Math.sqrt(d)),
        d,
        d,
      );
      const packed = g.initializer('frozen_packed', 'uint8', [d, d / 32, 16], w.packed);
      const scales = g.initializer('frozen_scales', 'float32', [w.scales.length], w.scales);
      const in32 = dtype === 'float32' ? n2 : g.op('Cast', [n2], { to: 1 });
      const y32 = g.op('MatMulNBits', [in32, packed, scales], { K: d, N: d, bits: 4, block_size: 32 }, 'com.microsoft');
      const frozen = dtype === 'float32' ? y32 : g.op('Cast', [y32], { to: 11 });
      const lora = g.op('MatMul', [g.op('MatMul', [n2, P.lora_a]), P.lora_b]);
      x2 = g.op('Add', [x2, g.op('Add', [frozen, lora])]);
    }
    const n3 = rms(x2, P.norm2);
    const gate = g.op('MatMul', [n3, P.w_gate]);
    const swiglu = g.op('Mul', [g.op('Mul', [gate, g.op('Sigmoid', [gate])]), g.op('MatMul', [n3, P.w_up])]);
    const x3 = g.op('Add', [x2, g.op('MatMul', [swiglu, P.w_down])]);
    const nf = rms(x3, P.norm_f);
    const logits = g.op('MatMul', [nf, g.op('Transpose', [P.embed], { perm: [1, 0] })]); // tied head [B, T, V]
    const values = g.op('ReduceSum', [g.op('Mul', [nf, P.value_head]), ints([-1])], { keepdims: 0 }); // [B, T]
    void vocab;
    return { logits, values };
  };
}

/** A seeded batch for the tiny model: tokens, next-token targets, and a mask with a padded tail. */
export function tinyBatch(c: TinyConfig, seed = 5) {
  const rng = new Rng(seed);
  const n = c.batch * c.seqLen;
  const seq = Int32Array.from({ length: n + c.batch }, () => rng.int(c.vocab));
  const tokens = new Int32Array(n);
  const targets = new Int32Array(n);
  const mask = new Float32Array(n);
  for (let r = 0; r < c.batch; r++) {
    for (let i = 0; i < c.seqLen; i++) {
      tokens[r * c.seqLen + i] = seq[r * (c.seqLen + 1) + i];
      targets[r * c.seqLen + i] = seq[r * (c.seqLen + 1) + i + 1];
      mask[r * c.seqLen + i] = r === c.batch - 1 && i === c.seqLen - 1 ? 0 : 1;
    }
  }
  return { tokens, targets, mask };
}
