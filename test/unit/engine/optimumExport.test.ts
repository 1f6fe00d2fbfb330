// The Optimum-layout export (what transformers.js loads): prefill with an empty past and a left-padded
// row, then one decode step with the returned cache, against the float64 reference.
import { describe, expect, it } from 'vitest';
import { paramSource } from '../../../src/rl/model/llama/params.ts';
import { referenceForward } from '../../../src/rl/model/llama/reference.ts';
import { OrtRuntime, type TensorData } from '../../../src/rl/runtime/ort.ts';
import { buildOptimumDecoder } from '../../../src/rl/runtime/engine/optimumExport.ts';
import { tinyModels } from './fixtures.ts';

const i64 = (xs: number[], dims: number[]): TensorData => ({ type: 'int64', data: BigInt64Array.from(xs.map(BigInt)), dims });

describe('Optimum decoder export', () => {
  it('matches the reference for a padded prefill and a cached decode step', async () => {
    const m = await tinyModels(12);
    const { cfg } = m;
    const runtime = await OrtRuntime.create('wasm');
    const session = await runtime.createSession(buildOptimumDecoder(cfg, paramSource(m.weights, 'const')), { label: 'optimum' });
    try {
      const seq = [1, 20, 30, 40];
      const kv = cfg.nKvHeads;
      const hd = cfg.dModel / cfg.nHeads;
      const empty: Record<string, TensorData> = {};
      for (let l = 0; l < cfg.nLayers; l++) {
        for (const k of ['key', 'value']) empty[`past_key_values.${l}.${k}`] = { type: 'float32', data: new Float32Array(0), dims: [2, kv, 0, hd] };
      }
      // row 0 = seq, row 1 = [pad, pad] + seq[0..1] (left padding, as transformers.js batches)
      const out = await session.run({
        input_ids: i64([...seq, 0, 0, seq[0], seq[1]], [2, 4]),
        attention_mask: i64([1, 1, 1, 1, 0, 0, 1, 1], [2, 4]),
        position_ids: i64([0, 1, 2, 3, 1, 1, 0, 1], [2, 4]),
        ...empty,
      });
      const V = cfg.vocabSize;
      const logits = out.logits.data as Float32Array;
      const ref = referenceForward(cfg, m.weights, seq).logits;
      for (let v = 0; v < V; v++) expect(logits[3 * V + v]).toBeCloseTo(ref[3 * V + v], 4);
      const ref2 = referenceForward(cfg, m.weights, seq.slice(0, 2)).logits;
      for (let v = 0; v < V; v++) expect(logits[(4 + 3) * V + v]).toBeCloseTo(ref2[V + v], 4);
      // decode one token for both rows with the cache
      const past: Record<string, TensorData> = {};
      for (let l = 0; l < cfg.nLayers; l++) {
        for (const k of ['key', 'value']) past[`past_key_values.${l}.${k}`] = out[`present.${l}.${k}`];
      }
      const step = await session.run({
        input_ids: i64([50, 60], [2, 1]),
        attention_mask: i64([1, 1, 1, 1, 1, 0, 0, 1, 1, 1], [2, 5]),
        position_ids: i64([4, 2], [2, 1]),
        ...past,
      });
      const s = step.logits.data as Float32Array;
      const r0 = referenceForward(cfg, m.weights, [...seq, 50]).logits;
      const r1 = referenceForward(cfg, m.weights, [...seq.slice(0, 2), 60]).logits;
      for (let v = 0; v < V; v++) {
        expect(s[v]).toBeCloseTo(r0[4 * V + v], 4);
        expect(s[V + v]).toBeCloseTo(r1[2 * V + v], 4);
      }
    } finally {
      await session.dispose();
      await runtime.dispose();
    }
  });
});
