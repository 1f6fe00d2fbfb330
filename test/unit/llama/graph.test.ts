import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraph } from '../../../src/rl/model/llama/graphs.ts';
import { paramSource } from '../../../src/rl/model/llama/params.ts';
import { leftPad, prefillFeeds, targetFeed } from '../../../src/rl/model/llama/feeds.ts';
import { logSoftmaxRows, referenceForward } from '../../../src/rl/model/llama/reference.ts';
import { OrtRuntime, type TensorData } from '../../../src/rl/runtime/ort.ts';
import { validateConfig } from '../../../src/rl/model/llama/config.ts';
import { initWeights } from '../../../src/rl/model/llama/weights.ts';
import { emitForward } from '../../../src/rl/model/llama/emit.ts';
import { GraphBuilder } from '../../../src/rl/model/onnx/builder.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
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

  it('two forward passes in one builder share weights (policy with LoRA beside its reference)', async () => {
    const w = tinyWeights(8);
    const g = new GraphBuilder('two');
    const ids = g.input('input_ids', 'int32', ['batch', 'seq']);
    const pos = g.input('position_ids', 'int32', ['batch', 'seq']);
    const bias = g.input('attention_bias', 'float32', ['batch', 'seq', 'seq']);
    const params = paramSource(w, (p) => (p.kind === 'linear' ? 'quant4' : 'const'));
    const lora = { rank: 2, alpha: 2, targets: ['q_proj', 'down_proj'] as const };
    const policy = emitForward(g, TINY, { inputIds: ids, positionIds: pos, attentionBias: bias }, { params, lora });
    const ref = emitForward(g, TINY, { inputIds: ids, positionIds: pos, attentionBias: bias }, { params });
    g.node('Identity', [policy.logits!], ['policy_logits']);
    g.node('Identity', [ref.logits!], ['ref_logits']);
    g.output('policy_logits', 'float32', ['batch', 'seq', TINY.vocabSize]);
    g.output('ref_logits', 'float32', ['batch', 'seq', TINY.vocabSize]);
    const feeds: Record<string, TensorData> = prefillFeeds(TINY, leftPad([[1, 2, 3]], 0));
    const rng = new Rng(3);
    for (const p of policy.loraInputs)
      feeds[p.name] = { type: 'float32', data: Float32Array.from({ length: p.shape[0] * p.shape[1] }, () => rng.normal()), dims: p.shape };
    const out = await runOnce(runtime, g.toBytes(), feeds);
    expect(maxAbs(out.policy_logits.data as Float32Array, out.ref_logits.data as Float32Array)).toBeGreaterThan(1e-2);
    const q = await runOnce(runtime, buildGraph(TINY, { kind: 'score', params }).bytes, prefillFeeds(TINY, leftPad([[1, 2, 3]], 0)));
    expect(maxAbs(out.ref_logits.data as Float32Array, q.logits.data as Float32Array)).toBeLessThan(1e-5);
  });
});
