import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { quantize4Search } from '../../../src/rl/model/llama/quantSearch.ts';
import { dequantize4, quantize4 } from '../../../src/rl/model/quant.ts';

const sqErr = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + (v - b[i]) ** 2, 0);

describe('quantize4Search', () => {
  it('clips a lone outlier to give the other weights finer steps (by hand)', () => {
    // 31 weights at ±1 and one at 7: absmax scale 1 puts ±1 on codes exactly, and so does search
    const w = Float32Array.from({ length: 32 }, (_, k) => (k === 0 ? 7 : k % 2 ? 1 : -1));
    expect(sqErr(dequantize4(quantize4Search(w, 32, 1)), w)).toBe(0);
    // 31 weights at ±0.5 and one at 7: absmax (scale 1) rounds ±0.5 to 0 or ±1, error 31·0.25;
    // a smaller scale trades the outlier's error for the rest's
    const v = Float32Array.from({ length: 32 }, (_, k) => (k === 0 ? 7 : k % 2 ? 0.5 : -0.5));
    expect(sqErr(dequantize4(quantize4Search(v, 32, 1)), v)).toBeLessThan(sqErr(dequantize4(quantize4(v, 32, 1)), v));
  });

  it('is never worse than absmax scaling, block by block (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ min: -4, max: 4, noNaN: true }), { minLength: 64, maxLength: 64 }), (xs) => {
        const w = Float32Array.from(xs);
        return sqErr(dequantize4(quantize4Search(w, 32, 2)), w) <= sqErr(dequantize4(quantize4(w, 32, 2)), w) * (1 + 1e-6) + 1e-9;
      }),
      { numRuns: 200, seed: 3 },
    );
  });
});
