// The engine's stepper (runtime/engine/stepper.ts) against the plain-TS reference forward
// (model/llama/reference.ts): KV-cache decoding, ragged chunks and a critic's value head.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramSource } from '../../../src/rl/model/llama/params.ts';
import { referenceForward } from '../../../src/rl/model/llama/reference.ts';
import { Stepper } from '../../../src/rl/runtime/engine/stepper.ts';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { TINY, maxAbs, tinyWeights } from './helpers.ts';

const V = TINY.vocabSize;
let runtime: OrtRuntime;
let runner: Stepper;
const w = tinyWeights(5);
beforeAll(async () => {
  runtime = await OrtRuntime.create('wasm');
  runner = await Stepper.create(runtime, TINY, paramSource(w, 'const'));
});
afterAll(async () => {
  await runner.dispose();
  expect(runtime.liveSessions).toBe(0);
  await runtime.dispose();
});

/** Reference logits of the last token of `seq`. */
const lastRef = (seq: number[]) => referenceForward(TINY, w, seq).logits.subarray((seq.length - 1) * V, seq.length * V);

describe('KV cache', () => {
  it('decode token by token equals recomputing the whole sequence', async () => {
    const seq = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    let step = await runner.prefill([seq.slice(0, 4)]);
    expect(maxAbs(step.logits, lastRef(seq.slice(0, 4)))).toBeLessThan(1e-4);
    for (let t = 4; t < seq.length; t++) {
      step = await runner.decode(step.state, [seq[t]]);
      expect(step.state.used).toBe(t + 1); // slots written; a host cache has free ones after them
      expect(maxAbs(step.logits, lastRef(seq.slice(0, t + 1)))).toBeLessThan(1e-4);
    }
  });

  it('a ragged batch (prefill, ragged chunk, decode) equals each row alone', async () => {
    const rows = [[11, 12, 13], [21, 22, 23, 24, 25, 26], [31]];
    const chunks = [[14, 15], [27], [32, 33, 34, 35]];
    const next = [16, 28, 36];
    let step = await runner.prefill(rows);
    rows.forEach((r, b) => expect(maxAbs(step.logits.subarray(b * V, (b + 1) * V), lastRef(r))).toBeLessThan(1e-4));
    step = await runner.extend(step.state, chunks);
    step = await runner.decode(step.state, next);
    rows.forEach((r, b) => {
      const full = [...r, ...chunks[b], next[b]];
      expect(maxAbs(step.logits.subarray(b * V, (b + 1) * V), lastRef(full))).toBeLessThan(1e-4);
    });
    expect(Array.from(step.state.next)).toEqual([6, 8, 6]);
  });

  it('a critic stepper (value head) reports each row’s value at its last token', async () => {
    const wc = tinyWeights(7, true);
    wc['v_head.summary.bias'][0] = -0.5;
    const critic = await Stepper.create(runtime, TINY, paramSource(wc, 'const'), { heads: { value: true }, label: 'critic' });
    try {
      const rows = [
        [1, 2, 3],
        [4, 5],
      ];
      let step = await critic.prefill(rows);
      step = await critic.decode(step.state, [9, 9]);
      rows.forEach((r, b) => {
        const ref = referenceForward(TINY, wc, [...r, 9], { heads: { value: true } });
        expect(Math.abs(step.values![b] - ref.values![r.length])).toBeLessThan(1e-4);
      });
    } finally {
      await critic.dispose();
    }
  });
});
