// Backward through a frozen 4-bit linear layer, com.microsoft MatMulNBits (y = x · W, W ≈ (q − 8) · s
// per (column, 32-row block); layout in quant.ts). Only dx = dy · Wᵀ is needed: the weight is frozen.
// Re-quantising Wᵀ with ordinary per-column scales is inexact (2–5% gradient error, docs/design.md), so
// two exact emissions are offered, both built at graph-build time from the initializer data:
//  - 'fp32-transpose': one fp32 initializer Wᵀ [N, K] (the dequantised weight) and one MatMul;
//  - 'block-nbits': for each 32-row block b of W, dx[:, b] = (dy ⊙ s[:, b]) · (q_b − 8)ᵀ, where the
//    codes (q_b − 8)ᵀ [N, 32] form a MatMulNBits weight with unit scales — exact, 4-bit storage,
//    2·K/32 + 1 nodes.
// Measured (docs/training-graphs.md): fp32-transpose is 1.1–3× faster on wasm and onnxruntime-node,
// block-nbits stores 8× less; fp32-transpose is the default.
import type { NodeView } from '../onnx/builder.ts';
import { QUANT_BLOCK, dequantize4, type PackedWeight } from '../quant.ts';
import type { Emit } from './emit.ts';
import { AutodiffError, type GraphTypes } from './shapes.ts';

/** How the backward of MatMulNBits is emitted. */
export type NBitsBackwardMode = 'fp32-transpose' | 'block-nbits';

/** Per-graph state: the mode and the backward weights already emitted (a weight used twice is stored once). */
export interface NBitsBackward {
  mode: NBitsBackwardMode;
  cache: Map<string, string[]>;
}

/** The packed weight of a MatMulNBits node, read from its initializers. */
function packedWeight(types: GraphTypes, e: Emit, node: NodeView): PackedWeight {
  const k = node.attrs.K;
  const n = node.attrs.N;
  if (typeof k !== 'number' || typeof n !== 'number') throw new AutodiffError('MatMulNBits: attributes K and N are required');
  if (node.attrs.bits !== 4 || node.attrs.block_size !== QUANT_BLOCK) {
    throw new AutodiffError(`MatMulNBits: autodiff supports bits 4 and block_size ${QUANT_BLOCK} only`);
  }
  if (node.inputs.slice(3).some((i) => i !== '')) {
    throw new AutodiffError('MatMulNBits: autodiff supports the implicit zero point 8 and no g_idx or bias inputs');
  }
  const b = e.g.initializerOf(node.inputs[1]);
  const s = e.g.initializerOf(node.inputs[2]);
  if (!b || !s) {
    throw new AutodiffError(`MatMulNBits "${node.outputs[0]}": backward needs the packed weight and scales as initializers, not graph inputs`);
  }
  void types;
  return { k, n, packed: b.data as Uint8Array, scales: s.data as Float32Array };
}

/** Emits dx = dy · Wᵀ for one MatMulNBits node; returns the gradient of its activation input. */
export function matMulNBitsBackward(e: Emit, types: GraphTypes, node: NodeView, dy: string, state: NBitsBackward): string {
  const key = node.inputs[1];
  let weights = state.cache.get(key);
  const w = packedWeight(types, e, node);
  if (state.mode === 'fp32-transpose') {
    if (!weights) {
      const full = dequantize4(w);
      const wt = new Float32Array(w.k * w.n);
      for (let r = 0; r < w.k; r++) for (let c = 0; c < w.n; c++) wt[c * w.k + r] = full[r * w.n + c];
      weights = [e.g.initializer(e.g.fresh(`${key}.T`), 'float32', [w.n, w.k], wt)];
      state.cache.set(key, weights);
    }
    return e.op('MatMul', [dy, weights[0]]);
  }
  if (w.n % QUANT_BLOCK !== 0) {
    throw new AutodiffError(`MatMulNBits: block-nbits backward needs N (${w.n}) to be a multiple of ${QUANT_BLOCK}`);
  }
  if (!weights) {
    weights = blockPacks(w).flatMap(({ scale, packed }, b) => [
      e.g.initializer(e.g.fresh(`${key}.Tscale${b}`), 'float32', [w.n], scale),
      e.g.initializer(e.g.fresh(`${key}.Tpack${b}`), 'uint8', [QUANT_BLOCK, w.n / QUANT_BLOCK, QUANT_BLOCK / 2], packed),
    ]);
    weights.push(e.g.initializer(e.g.fresh(`${key}.Tones`), 'float32', [w.n], new Float32Array(w.n).fill(1)));
    state.cache.set(key, weights);
  }
  const ones = weights[weights.length - 1];
  const parts: string[] = [];
  for (let b = 0; b < w.k / QUANT_BLOCK; b++) {
    const scaled = e.op('Mul', [dy, weights[2 * b]]);
    parts.push(e.op('MatMulNBits', [scaled, weights[2 * b + 1], ones], { K: w.n, N: QUANT_BLOCK, bits: 4, block_size: QUANT_BLOCK }, 'com.microsoft'));
  }
  return parts.length === 1 ? parts[0] : e.op('Concat', parts, { axis: -1 });
}

/**
 * For each 32-row block b of W [K, N]: its per-column scales s[:, b] and the codes (q − 8)ᵀ as a
 * MatMulNBits weight of K' = N, N' = 32 (codes + 8 packed, unit scales).
 */
export function blockPacks({ k, n, packed, scales }: PackedWeight): { scale: Float32Array; packed: Uint8Array }[] {
  const blocks = k / QUANT_BLOCK;
  const half = QUANT_BLOCK / 2;
  const outBlocks = n / QUANT_BLOCK;
  const result: { scale: Float32Array; packed: Uint8Array }[] = [];
  for (let b = 0; b < blocks; b++) {
    const scale = new Float32Array(n);
    const pack = new Uint8Array(QUANT_BLOCK * outBlocks * half);
    for (let col = 0; col < n; col++) {
      scale[col] = scales[col * blocks + b];
      for (let j = 0; j < QUANT_BLOCK; j++) {
        const byte = packed[(col * blocks + b) * half + (j >> 1)];
        const q = j % 2 === 0 ? byte & 0xf : byte >> 4;
        // Wᵀ_b element (row col, column j) goes to output column j, block col / 32, position col % 32.
        const r = col % QUANT_BLOCK;
        pack[(j * outBlocks + Math.floor(col / QUANT_BLOCK)) * half + (r >> 1)] |= r % 2 === 0 ? q : q << 4;
      }
    }
    result.push({ scale, packed: pack });
  }
  return result;
}
