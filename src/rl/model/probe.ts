// The probe graph: a two-layer MLP whose first layer is a 4-bit MatMulNBits, built in TypeScript.
// It proves the whole path (graph builder → ONNX Runtime in a worker → WebGPU or wasm) against a
// plain TypeScript reference, and it is what `turnwise doctor` and the status area run first.
//   x [B, 64] → MatMulNBits(W1 [64, 32]) + b1 → Relu → MatMul(W2 [32, 8]) + b2 → y [B, 8]
import { GraphBuilder } from './onnx/builder.ts';
import { QUANT_BLOCK, dequantize4, quantize4, type PackedWeight } from './quant.ts';
import { Rng } from '../util/rng.ts';

export const PROBE_IN = 64;
export const PROBE_HIDDEN = 32;
export const PROBE_OUT = 8;

/** The probe's weights; W1 is stored quantised, the rest in fp32. */
export interface ProbeWeights {
  w1: PackedWeight;
  b1: Float32Array;
  /** [HIDDEN, OUT], row-major. */
  w2: Float32Array;
  b2: Float32Array;
}

export function probeWeights(seed = 7): ProbeWeights {
  const rng = new Rng(seed);
  const gauss = (n: number, std: number) => Float32Array.from({ length: n }, () => rng.normal() * std);
  return {
    w1: quantize4(gauss(PROBE_IN * PROBE_HIDDEN, 0.2), PROBE_IN, PROBE_HIDDEN),
    b1: gauss(PROBE_HIDDEN, 0.1),
    w2: gauss(PROBE_HIDDEN * PROBE_OUT, 0.3),
    b2: gauss(PROBE_OUT, 0.1),
  };
}

/** A deterministic input batch x [batch, 64]. */
export function probeInput(batch: number, seed = 11): Float32Array {
  const rng = new Rng(seed);
  return Float32Array.from({ length: batch * PROBE_IN }, () => rng.normal());
}

/** Serialised ONNX model of the probe, with a symbolic batch dimension. */
export function buildProbeGraph(w: ProbeWeights): Uint8Array {
  const g = new GraphBuilder('turnwise_probe');
  const x = g.input('x', 'float32', ['batch', PROBE_IN]);
  const b = g.initializer('w1_packed', 'uint8', [PROBE_HIDDEN, PROBE_IN / QUANT_BLOCK, QUANT_BLOCK / 2], w.w1.packed);
  const s = g.initializer('w1_scales', 'float32', [w.w1.scales.length], w.w1.scales);
  const h = g.op('MatMulNBits', [x, b, s], { K: PROBE_IN, N: PROBE_HIDDEN, bits: 4, block_size: QUANT_BLOCK }, 'com.microsoft');
  const hb = g.op('Add', [h, g.initializer('b1', 'float32', [PROBE_HIDDEN], w.b1)]);
  const r = g.op('Relu', [hb]);
  const o = g.op('MatMul', [r, g.initializer('w2', 'float32', [PROBE_HIDDEN, PROBE_OUT], w.w2)]);
  g.node('Add', [o, g.initializer('b2', 'float32', [PROBE_OUT], w.b2)], ['y']);
  g.output('y', 'float32', ['batch', PROBE_OUT]);
  return g.toBytes();
}

/** Plain TypeScript forward pass, the reference the graph is checked against. */
export function probeReference(w: ProbeWeights, x: Float32Array, batch: number): Float32Array {
  const w1 = dequantize4(w.w1);
  const y = new Float32Array(batch * PROBE_OUT);
  const h = new Float64Array(PROBE_HIDDEN);
  for (let i = 0; i < batch; i++) {
    for (let j = 0; j < PROBE_HIDDEN; j++) {
      let acc = w.b1[j];
      for (let k = 0; k < PROBE_IN; k++) acc += x[i * PROBE_IN + k] * w1[k * PROBE_HIDDEN + j];
      h[j] = Math.max(0, acc);
    }
    for (let j = 0; j < PROBE_OUT; j++) {
      let acc = w.b2[j];
      for (let k = 0; k < PROBE_HIDDEN; k++) acc += h[k] * w.w2[k * PROBE_OUT + j];
      y[i * PROBE_OUT + j] = acc;
    }
  }
  return y;
}

/** Largest absolute difference between two equal-length arrays (Infinity on length mismatch). */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
