// Feeds for the model's graphs, built and checked in TypeScript before every run: token ids out of
// the vocabulary or positions past maxSeq are named errors here (ONNX Runtime's Gather would fail
// obscurely, or read garbage silently). Ragged batches are left-padded; masking and causality become
// one additive bias [B, S, T] (emit.ts), so a chunk of S new tokens after P cached ones, padding in
// the middle of a cache, and packed sequences all use the same graphs.
import type { TensorData } from '../onnx/tensor.ts';
import type { ModelConfig } from './config.ts';
import { NEG_BIAS } from './emit.ts';

/** A token id outside [0, vocabSize) (targets may also be −1). `index` is [row, position]. */
export class TokenRangeError extends Error {
  constructor(
    readonly input: string,
    readonly index: [number, number],
    readonly id: number,
    message: string,
  ) {
    super(message);
    this.name = 'TokenRangeError';
  }
}

/** A position at or past maxSeq, or a batch whose pieces disagree in size. */
export class SequenceError extends Error {
  constructor(
    readonly code: 'too-long' | 'shape',
    message: string,
  ) {
    super(message);
    this.name = 'SequenceError';
  }
}

/** Throws TokenRangeError for the first id outside [min, vocabSize). ids: [batch × seq], row-major. */
export function checkTokenIds(ids: ArrayLike<number>, vocabSize: number, seq: number, input = 'input_ids', min = 0): void {
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (!Number.isInteger(id) || id < min || id >= vocabSize) {
      const at: [number, number] = [Math.floor(i / seq), i % seq];
      throw new TokenRangeError(input, at, id, `${input}[${at[0]}, ${at[1]}] = ${id} is outside the vocabulary [0, ${vocabSize})`);
    }
  }
}

/** Throws SequenceError for a position outside [0, maxSeq). */
export function checkPositions(pos: ArrayLike<number>, maxSeq: number, seq: number): void {
  for (let i = 0; i < pos.length; i++) {
    if (pos[i] < 0 || pos[i] >= maxSeq) {
      throw new SequenceError('too-long', `position_ids[${Math.floor(i / seq)}, ${i % seq}] = ${pos[i]} is outside the model's context [0, ${maxSeq})`);
    }
  }
}

/** Left-padded token rows. */
export interface PaddedBatch {
  batch: number;
  seq: number;
  /** int32 [batch × seq], pad id where mask is 0. */
  ids: Int32Array;
  /** [batch × seq]: 1 for real tokens. */
  mask: Uint8Array;
}

/** Left-pads rows to the longest (so every row's last token sits at position seq − 1). */
export function leftPad(rows: readonly (readonly number[])[], padId: number): PaddedBatch {
  const batch = rows.length;
  const seq = Math.max(1, ...rows.map((r) => r.length));
  const ids = new Int32Array(batch * seq).fill(padId);
  const mask = new Uint8Array(batch * seq);
  rows.forEach((r, b) => {
    const off = b * seq + seq - r.length;
    ids.set(r, off);
    mask.fill(1, off, off + r.length);
  });
  return { batch, seq, ids, mask };
}

/**
 * Positions of new tokens: each row continues from `start[b]` (tokens already cached), counting real
 * tokens only; padding gets the position of the next real token (it is hidden from every query).
 */
export function positionsFor(mask: Uint8Array, batch: number, seq: number, start?: ArrayLike<number>): { positions: Int32Array; next: Int32Array } {
  const positions = new Int32Array(batch * seq);
  const next = new Int32Array(batch);
  for (let b = 0; b < batch; b++) {
    let p = start ? start[b] : 0;
    for (let s = 0; s < seq; s++) {
      positions[b * seq + s] = p;
      if (mask[b * seq + s]) p++;
    }
    next[b] = p;
  }
  return { positions, next };
}

/**
 * Additive attention bias [batch, seq, total] for `seq` new tokens after `total − seq` cached ones:
 * query i sees key j iff j ≤ (total − seq) + i and keyMask[b, j] = 1. keyMask: [batch × total].
 */
export function causalBias(keyMask: Uint8Array, batch: number, seq: number, total: number): Float32Array {
  const past = total - seq;
  const bias = new Float32Array(batch * seq * total).fill(NEG_BIAS);
  for (let b = 0; b < batch; b++) {
    for (let i = 0; i < seq; i++) {
      const row = (b * seq + i) * total;
      for (let j = 0; j <= past + i; j++) if (keyMask[b * total + j]) bias[row + j] = 0;
    }
  }
  return bias;
}

/** The three token-side feeds of any graph, checked. */
export function tokenFeeds(
  cfg: ModelConfig,
  ids: Int32Array,
  positions: Int32Array,
  bias: Float32Array,
  batch: number,
  seq: number,
): Record<string, TensorData> {
  if (ids.length !== batch * seq || positions.length !== batch * seq || bias.length % (batch * seq) !== 0) {
    throw new SequenceError('shape', `feeds: ids ${ids.length}, positions ${positions.length}, bias ${bias.length} do not fit [${batch}, ${seq}]`);
  }
  checkTokenIds(ids, cfg.vocabSize, seq);
  checkPositions(positions, cfg.maxSeq, seq);
  return {
    input_ids: { type: 'int32', data: ids, dims: [batch, seq] },
    position_ids: { type: 'int32', data: positions, dims: [batch, seq] },
    attention_bias: { type: 'float32', data: bias, dims: [batch, seq, bias.length / (batch * seq)] },
  };
}

/** Feeds for a prefill or score graph from a left-padded batch. */
export function prefillFeeds(cfg: ModelConfig, batch: PaddedBatch): Record<string, TensorData> {
  const { positions } = positionsFor(batch.mask, batch.batch, batch.seq);
  return tokenFeeds(cfg, batch.ids, positions, causalBias(batch.mask, batch.batch, batch.seq, batch.seq), batch.batch, batch.seq);
}

/** A `targets` feed (next-token ids; −1 = ignore), checked. */
export function targetFeed(cfg: ModelConfig, targets: Int32Array, batch: number, seq: number): Record<string, TensorData> {
  if (targets.length !== batch * seq) throw new SequenceError('shape', `targets: ${targets.length} values for [${batch}, ${seq}]`);
  checkTokenIds(targets, cfg.vocabSize, seq, 'targets', -1);
  return { targets: { type: 'int32', data: targets, dims: [batch, seq] } };
}
