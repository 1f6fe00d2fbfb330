// Row surgery on a KV cache held in JS (engine/stepper.ts KvState): repeat each prompt's rows K
// times after one prefill (K samples of one prompt share its prefill), and keep only the rows still
// generating (finished rows stop costing compute). Every tensor is [batch, …], row-major.
import type { KvState } from './stepper.ts';
import type { TensorData } from '../ort.ts';

type Float = Float32Array;

/** Rows of a [B × stride] array in the order `rows` gives (repeats allowed). */
function pick<T extends Float32Array | Uint8Array | Int32Array>(src: T, stride: number, rows: readonly number[], make: (n: number) => T): T {
  const out = make(rows.length * stride);
  rows.forEach((r, i) => out.set(src.subarray(r * stride, (r + 1) * stride), i * stride));
  return out;
}

function pickTensor(t: TensorData, rows: readonly number[]): TensorData {
  const [b, ...rest] = t.dims;
  const stride = t.data.length / b;
  return { type: t.type, data: pick(t.data as Float, stride, rows, (n) => new Float32Array(n)), dims: [rows.length, ...rest] };
}

/** A cache whose row i is row `rows[i]` of `state`. */
export function selectRows(state: KvState, rows: readonly number[]): KvState {
  const past: Record<string, TensorData> = {};
  for (const [name, t] of Object.entries(state.past)) past[name] = pickTensor(t, rows);
  return {
    batch: rows.length,
    length: state.length,
    keyMask: pick(state.keyMask, state.length, rows, (n) => new Uint8Array(n)),
    next: pick(state.next, 1, rows, (n) => new Int32Array(n)),
    past,
  };
}

/** Row i of the result is row `rows[i]` of a [B × width] matrix. */
export function selectMatrixRows(m: Float32Array, width: number, rows: readonly number[]): Float32Array {
  return pick(m, width, rows, (n) => new Float32Array(n));
}

/** [0,0,…,1,1,…]: each of `batch` rows repeated `n` times, consecutively. */
export function repeatIndex(batch: number, n: number): number[] {
  return Array.from({ length: batch * n }, (_, i) => Math.floor(i / n));
}
