import { describe, expect, it } from 'vitest';
import { QuantizationError, dequantize4, quantize4 } from '../../../src/rl/model/quant.ts';

describe('quantize4', () => {
  it('packs a hand-made column in the MatMulNBits layout', () => {
    // K = 32, N = 1: one block. max|w| = 7 → scale 1; codes = w + 8.
    const w = Float32Array.from({ length: 32 }, (_, k) => (k % 15) - 7);
    const p = quantize4(w, 32, 1);
    expect(p.scales[0]).toBe(1);
    expect(p.packed.length).toBe(16);
    // byte 0 holds k = 0 (low nibble, code 1) and k = 1 (high nibble, code 2)
    expect(p.packed[0]).toBe(1 | (2 << 4));
    expect(Array.from(dequantize4(p))).toEqual(Array.from(w));
  });

  it('round-trips within half a quantisation step', () => {
    const k = 64;
    const n = 5;
    const w = Float32Array.from({ length: k * n }, (_, i) => Math.sin(i * 1.7) * (1 + (i % 5)));
    const p = quantize4(w, k, n);
    const back = dequantize4(p);
    for (let col = 0; col < n; col++) {
      for (let row = 0; row < k; row++) {
        const scale = p.scales[col * (k / 32) + Math.floor(row / 32)];
        expect(Math.abs(back[row * n + col] - w[row * n + col])).toBeLessThanOrEqual(scale / 2 + 1e-6);
      }
    }
  });

  it('rejects K that is not a multiple of the block', () => {
    expect(() => quantize4(new Float32Array(40), 40, 1)).toThrow(QuantizationError);
    expect(() => quantize4(new Float32Array(40), 40, 1)).toThrow(/multiple of 32/);
  });
});
