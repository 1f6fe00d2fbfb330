// The sampler: hand-computed supports, seeded reproducibility, and parameter validation.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/rl/util/rng.ts';
import { logSoftmax, resolveSampling, sampleToken, samplingSupport } from '../../../src/rl/runtime/engine/sampling.ts';

const LOGITS = Float32Array.from([0, Math.log(4), Math.log(2), Math.log(1), -Infinity]);
// probabilities: [1, 4, 2, 1, 0] / 8

describe('sampling', () => {
  it('builds the top-k / top-p support by hand', () => {
    expect(samplingSupport(LOGITS, { temperature: 1, topK: 2, topP: 1 }).ids).toEqual([1, 2]);
    // p sorted: 0.5, 0.25, 0.125, 0.125 → cumulative 0.5, 0.75: topP 0.7 keeps two tokens
    expect(samplingSupport(LOGITS, { temperature: 1, topK: 0, topP: 0.7 }).ids).toEqual([1, 2]);
    expect(samplingSupport(LOGITS, { temperature: 1, topK: 0, topP: 0.5 }).ids).toEqual([1]);
    // ties (ids 0 and 3, p = 1/8) are ordered by id
    expect(samplingSupport(LOGITS, { temperature: 1, topK: 4, topP: 1 }).ids).toEqual([1, 2, 0, 3]);
    // temperature 2 flattens: weights ∝ p^(1/2)
    const w = samplingSupport(LOGITS, { temperature: 2, topK: 2, topP: 1 }).weights;
    expect(w[1] / w[0]).toBeCloseTo(Math.sqrt(0.5), 6);
  });

  it('greedy picks the argmax and reports its model log-prob', () => {
    const s = sampleToken(LOGITS, { temperature: 0, topK: 0, topP: 1 }, new Rng(1));
    expect(s.token).toBe(1);
    expect(s.logprob).toBeCloseTo(Math.log(0.5), 6);
  });

  it('reports log π under the model, not the filtered distribution', () => {
    const s = sampleToken(LOGITS, { temperature: 0.5, topK: 1, topP: 1 }, new Rng(1));
    expect(s.token).toBe(1);
    expect(s.logprob).toBeCloseTo(Math.log(0.5), 6);
  });

  it('samples the right frequencies with a seed and never leaves the support', () => {
    const rng = new Rng(42);
    const counts = [0, 0, 0, 0, 0];
    for (let i = 0; i < 8000; i++) counts[sampleToken(LOGITS, { temperature: 1, topK: 0, topP: 1 }, rng).token]++;
    expect(counts[4]).toBe(0);
    [1, 4, 2, 1].forEach((p, i) => expect(counts[i] / 8000).toBeCloseTo(p / 8, 1));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.double({ min: 0.1, max: 3, noNaN: true }),
        fc.integer(),
        (k, p, t, seed) => {
          const params = { temperature: t, topK: k, topP: p };
          const support = samplingSupport(LOGITS, params).ids;
          const a = sampleToken(LOGITS, params, new Rng(seed));
          const b = sampleToken(LOGITS, params, new Rng(seed));
          return support.includes(a.token) && a.token === b.token;
        },
      ),
    );
  });

  it('log-softmax sums to one', () => {
    const lp = logSoftmax([1, 2, 3]);
    expect(Math.exp(lp[0]) + Math.exp(lp[1]) + Math.exp(lp[2])).toBeCloseTo(1, 12);
  });

  it('names each invalid parameter', () => {
    expect(resolveSampling({})).toMatchObject({ temperature: 1, topP: 1, topK: 0, maxNewTokens: 64, stop: [], seed: 0 });
    const cases: [object, string, RegExp][] = [
      [{ temperature: -1 }, 'temperature', /temperature must be a number in \[0, 100\] \(0 = greedy\), got -1/],
      [{ temperature: Number.NaN }, 'temperature', /temperature/],
      [{ topP: 0 }, 'topP', /topP must be in \(0, 1\], got 0/],
      [{ topP: 1.5 }, 'topP', /topP/],
      [{ topK: 2.5 }, 'topK', /topK must be an integer ≥ 0/],
      [{ maxNewTokens: 0 }, 'maxNewTokens', /maxNewTokens must be an integer in \[1, 65536\], got 0/],
      [{ stop: [''] }, 'stop', /stop must be a list of at most 16 non-empty strings/],
      [{ seed: 1.5 }, 'seed', /seed must be an integer, got 1.5/],
    ];
    for (const [input, field, message] of cases) {
      expect(() => resolveSampling(input)).toThrow(message);
      try {
        resolveSampling(input);
      } catch (e) {
        expect(e).toMatchObject({ name: 'SamplingParamsError', field });
      }
    }
  });
});
