import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraph } from '../../../src/rl/model/llama/graphs.ts';
import { paramSource } from '../../../src/rl/model/llama/params.ts';
import { leftPad, prefillFeeds, targetFeed } from '../../../src/rl/model/llama/feeds.ts';
import { logSoftmaxRows, referenceForward } from '../../../src/rl/model/llama/reference.ts';
import { OrtRuntime, type TensorData } from '../../../src/rl/runtime/ort.ts';
import { validateConfig } from '../../../src/rl/model/llama/config.ts';
import { initWeights } from '../../../src/rl/model/llama/weights.ts';
import { TINY, maxAbs, runOnce, tinyWeights } from './helpers.ts';

let runtime: OrtRuntime;
beforeAll(async () => {
  runtime = await OrtRuntime.create('wasm');
});
afterAll(async () => runtime.dispose());

describe('llama graph vs float64 reference', () => {
  it('score graph logits and target log-probs match the TypeScript forward within 1e-4', async () => {
    const w = tinyWeights(3);
    const seqs = [
      [1, 5, 9, 49, 0, 7, 7, 3],
      [2, 4, 6, 8, 10, 12, 14, 16],
    ];
    const g = buildGraph(TINY, { kind: 'score', params: paramSource(w, 'const'), targets: true });
    const batch = leftPad(seqs, 0);
    const targets = Int32Array.from(seqs.flatMap((s) => [...s.slice(1), -1]));
    const out = await runOnce(runtime, g.bytes, { ...prefillFeeds(TINY, batch), ...targetFeed(TINY, targets, 2, 8) });
    expect(out.logits.dims).toEqual([2, 8, TINY.vocabSize]);
    const V = TINY.vocabSize;
    seqs.forEach((s, b) => {
      const ref = referenceForward(TINY, w, s);
      const got = (out.logits.data as Float32Array).subarray(b * 8 * V, (b + 1) * 8 * V);
      expect(maxAbs(got, ref.logits)).toBeLessThan(1e-4);
      const lsm = logSoftmaxRows(ref.logits, 8, V);
      const lp = (out.logprobs.data as Float32Array).subarray(b * 8, (b + 1) * 8);
      for (let t = 0; t < 7; t++) expect(Math.abs(lp[t] - lsm[t * V + s[t + 1]])).toBeLessThan(1e-4);
      expect(Math.abs(lp[7])).toBe(0); // target −1: ignored
    });
  });

  it('untied head, plain multi-head attention and the value head match the reference', async () => {
    const cfg = validateConfig({ vocabSize: 40, dModel: 32, nLayers: 1, nHeads: 2, dFf: 48, maxSeq: 16, tieEmbeddings: false });
    const w = initWeights(cfg, 9, { std: 0.3, heads: { value: true } });
    w['v_head.summary.bias'][0] = 0.25;
    const seq = [3, 1, 4, 1, 5, 9];
    const g = buildGraph(cfg, { kind: 'score', params: paramSource(w, 'const'), heads: { value: true } });
    const out = await runOnce(runtime, g.bytes, prefillFeeds(cfg, leftPad([seq], 0)));
    const ref = referenceForward(cfg, w, seq, { heads: { value: true } });
    expect(maxAbs(out.logits.data as Float32Array, ref.logits)).toBeLessThan(1e-4);
    expect(out.values.dims).toEqual([1, 6]);
    expect(maxAbs(out.values.data as Float32Array, ref.values!)).toBeLessThan(1e-4);
  });

  it('parameters placed as inputs give the same logits as initializers', async () => {
    const w = tinyWeights(4);
    const seq = [[7, 8, 9, 10]];
    const asInput = buildGraph(TINY, { kind: 'score', params: paramSource(null, 'input') });
    expect(asInput.paramInputs.map((p) => p.name)).toContain('model.layers.1.mlp.down_proj.weight');
    expect(asInput.paramInputs.find((p) => p.name === 'model.layers.0.self_attn.k_proj.weight')?.shape).toEqual([16, 32]);
    const feeds: Record<string, TensorData> = prefillFeeds(TINY, leftPad(seq, 0));
    for (const p of asInput.paramInputs) feeds[p.name] = { type: 'float32', data: w[p.name], dims: p.shape };
    const a = await runOnce(runtime, asInput.bytes, feeds);
    const ref = referenceForward(TINY, w, seq[0]);
    expect(maxAbs(a.logits.data as Float32Array, ref.logits)).toBeLessThan(1e-4);
  });
});
