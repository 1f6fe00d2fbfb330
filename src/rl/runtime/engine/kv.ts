// Row surgery on a KV cache held in JS (engine/stepper.ts KvState): repeat each prompt's rows K
// times after one prefill (K samples of one prompt share its prefill), drop the rows that finished
// (in place, no new buffers), grow a host cache's free slots, write a decode step's keys and values
// into them, and cut one row's context out (its real slots, in order) or put kept contexts back
// into a batch (engine/contexts.ts: KV reuse across turns). Every tensor is [batch, kvHeads, T, hd].
import type { KvState } from './stepper.ts';
import type { TensorData } from '../ort.ts';

/** Free slots a host cache grows by when a step does not fit (amortises the copy; each slot costs attention). */
export const HOST_HEADROOM = 16;

/** One row's cached keys and values at its real slots, in order: [kvHeads, L, hd] per past name. */
export interface RowContext {
  /** L: the row's real tokens (their RoPE positions are 0 … L − 1). */
  length: number;
  past: Record<string, Float32Array>;
}

/** [batch, heads, length, hd] of a past tensor. */
function shape(t: TensorData): [number, number, number, number] {
  const [b, h, len, hd] = t.dims;
  return [b, h, len, hd];
}

/**
 * A cache of `rows.length` rows (repeats allowed) whose row i is row `rows[i]` of `state`, with
 * `length` slots per row (≥ state.used; the first `used` are copied, the rest are free).
 */
export function selectRows(state: KvState, rows: readonly number[], length = state.used): KvState {
  const past: Record<string, TensorData> = {};
  for (const [name, t] of Object.entries(state.past)) {
    const [, h, len, hd] = shape(t);
    const src = t.data as Float32Array;
    const data = new Float32Array(rows.length * h * length * hd);
    rows.forEach((r, i) => {
      for (let k = 0; k < h; k++) {
        const from = (r * h + k) * len * hd;
        data.set(src.subarray(from, from + state.used * hd), (i * h + k) * length * hd);
      }
    });
    past[name] = { type: 'float32', data, dims: [rows.length, h, length, hd] };
  }
  const keyMask = new Uint8Array(rows.length * length);
  rows.forEach((r, i) => keyMask.set(state.keyMask.subarray(r * state.length, r * state.length + state.used), i * length));
  return { batch: rows.length, length, used: state.used, keyMask, next: Int32Array.from(rows, (r) => state.next[r]), past };
}

/** The same rows with `length` slots each (free slots added at the end). */
export function growRows(state: KvState, length: number): KvState {
  return selectRows(
    state,
    Array.from({ length: state.batch }, (_, i) => i),
    length,
  );
}

/** Keeps rows `keep` (increasing) of `state`, moving them down inside the same buffers. */
export function dropRows(state: KvState, keep: readonly number[]): KvState {
  for (let i = 1; i < keep.length; i++) if (keep[i] <= keep[i - 1]) throw new RangeError('dropRows: rows to keep must be increasing');
  const past: Record<string, TensorData> = {};
  for (const [name, t] of Object.entries(state.past)) {
    const [, h, len, hd] = shape(t);
    const stride = h * len * hd;
    const data = t.data as Float32Array;
    keep.forEach((r, i) => {
      if (r !== i) data.copyWithin(i * stride, r * stride, (r + 1) * stride);
    });
    past[name] = { type: 'float32', data: data.subarray(0, keep.length * stride), dims: [keep.length, h, len, hd] };
  }
  const keyMask = state.keyMask;
  keep.forEach((r, i) => {
    if (r !== i) keyMask.copyWithin(i * state.length, r * state.length, (r + 1) * state.length);
  });
  return {
    batch: keep.length,
    length: state.length,
    used: state.used,
    keyMask: keyMask.subarray(0, keep.length * state.length),
    next: Int32Array.from(keep, (r) => state.next[r]),
    past,
  };
}

/** Writes a chunk's keys and values (`fresh`, [batch, heads, seq, hd]) into slots [used, used + seq) and advances `used`. */
export function appendChunk(state: KvState, fresh: Record<string, TensorData>, mask: Uint8Array, seq: number): void {
  for (const [name, t] of Object.entries(state.past)) {
    const [b, h, len, hd] = shape(t);
    const dst = t.data as Float32Array;
    const src = fresh[name].data as Float32Array;
    for (let r = 0; r < b; r++) {
      for (let k = 0; k < h; k++) {
        const from = (r * h + k) * seq * hd;
        dst.set(src.subarray(from, from + seq * hd), ((r * h + k) * len + state.used) * hd);
      }
    }
  }
  for (let r = 0; r < state.batch; r++) state.keyMask.set(mask.subarray(r * seq, (r + 1) * seq), r * state.length + state.used);
  state.used += seq;
}

/** Row `r`'s real slots, in order (padding and free slots left out). */
export function rowContext(state: KvState, r: number): RowContext {
  const slots: number[] = [];
  for (let j = 0; j < state.used; j++) if (state.keyMask[r * state.length + j]) slots.push(j);
  const past: Record<string, Float32Array> = {};
  for (const [name, t] of Object.entries(state.past)) {
    const [, h, len, hd] = shape(t);
    const src = t.data as Float32Array;
    const out = new Float32Array(h * slots.length * hd);
    for (let k = 0; k < h; k++) {
      const base = (r * h + k) * len;
      slots.forEach((j, i) => out.set(src.subarray((base + j) * hd, (base + j + 1) * hd), (k * slots.length + i) * hd));
    }
    past[name] = out;
  }
  return { length: slots.length, past };
}

/**
 * A batch cache from kept contexts: row r holds the first `take[r]` tokens of `contexts[r]` (none
 * when null or 0), right-aligned at slots [T − take[r], T), T = max take; `headroom` free slots follow.
 */
export function assembleRows(
  contexts: readonly (RowContext | null)[],
  take: readonly number[],
  names: readonly string[],
  heads: number,
  hd: number,
  headroom: number,
): KvState {
  const used = Math.max(0, ...take);
  const length = used + headroom;
  const batch = contexts.length;
  const past: Record<string, TensorData> = {};
  for (const name of names) {
    const data = new Float32Array(batch * heads * length * hd);
    contexts.forEach((c, r) => {
      const n = take[r];
      if (!c || n === 0) return;
      for (let k = 0; k < heads; k++) {
        const from = k * c.length * hd;
        data.set(c.past[name].subarray(from, from + n * hd), ((r * heads + k) * length + used - n) * hd);
      }
    });
    past[name] = { type: 'float32', data, dims: [batch, heads, length, hd] };
  }
  const keyMask = new Uint8Array(batch * length);
  take.forEach((n, r) => keyMask.fill(1, r * length + used - n, r * length + used));
  return { batch, length, used, keyMask, next: Int32Array.from(take), past };
}

/** Row i of the result is row `rows[i]` of a [B × width] matrix. */
export function selectMatrixRows(m: Float32Array, width: number, rows: readonly number[]): Float32Array {
  const out = new Float32Array(rows.length * width);
  rows.forEach((r, i) => out.set(m.subarray(r * width, (r + 1) * width), i * width));
  return out;
}

/** [0,0,…,1,1,…]: each of `batch` rows repeated `n` times, consecutively. */
export function repeatIndex(batch: number, n: number): number[] {
  return Array.from({ length: batch * n }, (_, i) => Math.floor(i / n));
}
