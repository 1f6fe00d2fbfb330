// 4-bit packs with a searched scale per (column, 32-row block): instead of scale = max|w| / 7 (quant.ts),
// try scales max|w|/7 · f for a grid of shrink factors f and keep the one with the least squared
// error (clipping the rare extreme weight buys finer steps for the rest; the grid search of
// GPTQ/AWQ-style round-to-nearest baselines). Codes q ∈ [0, 15] with zero point 8, so w ≈ (q − 8)·s
// and negative extremes may use code 0 (−8·s). Same MatMulNBits layout as quant.ts.
import { QUANT_BLOCK, QuantizationError, type PackedWeight } from '../quant.ts';

const FACTORS = [1, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 8 / 7];

/** Quantises W [K, N] (row-major) choosing each block's scale to minimise squared error. */
export function quantize4Search(w: Float32Array, k: number, n: number): PackedWeight {
  if (w.length !== k * n) throw new QuantizationError(`quantize4Search: ${w.length} values for [${k}, ${n}]`);
  if (k % QUANT_BLOCK !== 0) throw new QuantizationError(`quantize4Search: K=${k} is not a multiple of ${QUANT_BLOCK}`);
  const blocks = k / QUANT_BLOCK;
  const packed = new Uint8Array(n * blocks * (QUANT_BLOCK / 2));
  const scales = new Float32Array(n * blocks);
  const vals = new Float64Array(QUANT_BLOCK);
  const code = (v: number, s: number) => Math.min(15, Math.max(0, Math.round(v / s) + 8));
  for (let col = 0; col < n; col++) {
    for (let b = 0; b < blocks; b++) {
      let maxAbs = 0;
      for (let r = 0; r < QUANT_BLOCK; r++) {
        vals[r] = w[(b * QUANT_BLOCK + r) * n + col];
        maxAbs = Math.max(maxAbs, Math.abs(vals[r]));
      }
      let best = maxAbs / 7 || 1;
      let bestErr = Infinity;
      for (const f of FACTORS) {
        const s = Math.fround((maxAbs / 7) * f || 1);
        let err = 0;
        for (let r = 0; r < QUANT_BLOCK; r++) err += (vals[r] - (code(vals[r], s) - 8) * s) ** 2;
        if (err < bestErr) {
          bestErr = err;
          best = s;
        }
      }
      scales[col * blocks + b] = best;
      const base = (col * blocks + b) * (QUANT_BLOCK / 2);
      for (let r = 0; r < QUANT_BLOCK; r++) packed[base + (r >> 1)] |= r % 2 === 0 ? code(vals[r], best) : code(vals[r], best) << 4;
    }
  }
  return { k, n, packed, scales };
}
