// 4-bit block quantisation in the layout of ONNX Runtime's com.microsoft MatMulNBits
// (bits 4, block 32, fp32 scales, implicit zero point 8): y = x · W with W ≈ (q − 8) · scale.
// Layout (docs/design.md, facts from the prototype): packed uint8 [N, K/32, 16], for output column n
// and block b the 32 codes of rows k = 32b … 32b+31, even k in the low nibble; scales [N · K/32].

export const QUANT_BLOCK = 32;
const ZERO_POINT = 8;

/** A weight matrix W [K, N] in MatMulNBits form. */
export interface PackedWeight {
  /** K: input features (rows of W). */
  k: number;
  /** N: output features (columns of W). */
  n: number;
  /** uint8 [N, K/32, 16]. */
  packed: Uint8Array;
  /** fp32 [N · K/32]: one scale per (column, block). */
  scales: Float32Array;
}

/** Raised when a matrix cannot be quantised in this layout. */
export class QuantizationError extends Error {
  override name = 'QuantizationError';
}

/**
 * Quantises W [K, N] (row-major) symmetrically per (column, 32-row block): scale = max|w| / 7,
 * codes q = clamp(round(w / scale) + 8, 0, 15).
 */
export function quantize4(w: Float32Array, k: number, n: number): PackedWeight {
  if (w.length !== k * n) throw new QuantizationError(`quantize4: ${w.length} values for [${k}, ${n}]`);
  if (k % QUANT_BLOCK !== 0) throw new QuantizationError(`quantize4: K=${k} is not a multiple of ${QUANT_BLOCK}`);
  const blocks = k / QUANT_BLOCK;
  const packed = new Uint8Array(n * blocks * (QUANT_BLOCK / 2));
  const scales = new Float32Array(n * blocks);
  for (let col = 0; col < n; col++) {
    for (let b = 0; b < blocks; b++) {
      let maxAbs = 0;
      for (let r = 0; r < QUANT_BLOCK; r++) maxAbs = Math.max(maxAbs, Math.abs(w[(b * QUANT_BLOCK + r) * n + col]));
      const scale = maxAbs / 7 || 1;
      scales[col * blocks + b] = scale;
      const base = (col * blocks + b) * (QUANT_BLOCK / 2);
      for (let r = 0; r < QUANT_BLOCK; r++) {
        const q = Math.min(15, Math.max(0, Math.round(w[(b * QUANT_BLOCK + r) * n + col] / scale) + ZERO_POINT));
        packed[base + (r >> 1)] |= r % 2 === 0 ? q : q << 4;
      }
    }
  }
  return { k, n, packed, scales };
}

/** The fp32 matrix W [K, N] that MatMulNBits computes with. */
export function dequantize4({ k, n, packed, scales }: PackedWeight): Float32Array {
  const blocks = k / QUANT_BLOCK;
  const w = new Float32Array(k * n);
  for (let col = 0; col < n; col++) {
    for (let b = 0; b < blocks; b++) {
      const scale = scales[col * blocks + b];
      const base = (col * blocks + b) * (QUANT_BLOCK / 2);
      for (let r = 0; r < QUANT_BLOCK; r++) {
        const byte = packed[base + (r >> 1)];
        const q = r % 2 === 0 ? byte & 0xf : byte >> 4;
        w[(b * QUANT_BLOCK + r) * n + col] = (q - ZERO_POINT) * scale;
      }
    }
  }
  return w;
}
