import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraph } from '../../../src/rl/model/llama/graphs.ts';
import { blocksQuant4, paramSource, quantisedWeights } from '../../../src/rl/model/llama/params.ts';
import { leftPad, prefillFeeds } from '../../../src/rl/model/llama/feeds.ts';
import { referenceForward } from '../../../src/rl/model/llama/reference.ts';
import { validateConfig } from '../../../src/rl/model/llama/config.ts';
import { ALL_LORA_TARGETS, initLora, initWeights, loraLeavesLogits, paramSpecs, type LoraSpec } from '../../../src/rl/model/llama/weights.ts';
import { compareLogits } from '../../../src/rl/model/llama/metrics.ts';
import { OrtRuntime, type TensorData } from '../../../src/rl/runtime/ort.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { TINY, maxAbs, runOnce, tinyWeights } from './helpers.ts';

let runtime: OrtRuntime;
beforeAll(async () => {
  runtime = await OrtRuntime.create('wasm');
});
afterAll(async () => runtime.dispose());

const seq = [4, 8, 15, 16, 23, 42];
const lora: LoraSpec = { rank: 4, alpha: 8, targets: ALL_LORA_TARGETS };

function loraFeeds(w: Record<string, Float32Array>, specs: { name: string; shape: number[] }[]): Record<string, TensorData> {
  return Object.fromEntries(specs.map((s) => [s.name, { type: 'float32' as const, data: w[s.name], dims: s.shape }]));
}

describe('LoRA adapters as graph inputs', () => {
  const w = tinyWeights(6);
  const g = buildGraph(TINY, { kind: 'score', params: paramSource(w, 'const'), lora });

  it('declares PEFT-named A [r, in] and B [out, r] inputs for every target', () => {
    expect(g.loraInputs.length).toBe(2 * TINY.nLayers * ALL_LORA_TARGETS.length);
    expect(g.loraInputs.find((p) => p.name === 'model.layers.1.self_attn.v_proj.lora_A.weight')?.shape).toEqual([4, 32]);
    expect(g.loraInputs.find((p) => p.name === 'model.layers.1.mlp.down_proj.lora_B.weight')?.shape).toEqual([32, 4]);
  });

  it('B = 0 leaves the logits unchanged; a nonzero B changes them exactly as the reference says', async () => {
    const base = referenceForward(TINY, w, seq);
    const fresh = initLora(TINY, lora, 1);
    const out0 = await runOnce(runtime, g.bytes, { ...prefillFeeds(TINY, leftPad([seq], 0)), ...loraFeeds(fresh, g.loraInputs) });
    expect(maxAbs(out0.logits.data as Float32Array, base.logits)).toBeLessThan(1e-4);

    const rng = new Rng(2);
    const trained = Object.fromEntries(Object.entries(fresh).map(([k, v]) => [k, v.map(() => rng.normal() * 0.3)]));
    const out1 = await runOnce(runtime, g.bytes, { ...prefillFeeds(TINY, leftPad([seq], 0)), ...loraFeeds(trained, g.loraInputs) });
    const ref1 = referenceForward(TINY, w, seq, { lora, loraWeights: trained });
    expect(maxAbs(ref1.logits, base.logits)).toBeGreaterThan(0.1);
    expect(maxAbs(out1.logits.data as Float32Array, ref1.logits)).toBeLessThan(1e-4);
    // the training loop's shortcut (kl_ref of a fresh adapter's rollouts is 0) rests on the same fact
    expect(loraLeavesLogits(fresh)).toBe(true);
    expect(loraLeavesLogits(trained)).toBe(false);
    const onlyA = Object.fromEntries(Object.entries(fresh).map(([k, v]) => [k, k.endsWith('lora_A.weight') ? v.map(() => 1) : v]));
    expect(loraLeavesLogits(onlyA)).toBe(true);
  });

  it('rank 0 adds no inputs', () => {
    expect(buildGraph(TINY, { kind: 'score', params: paramSource(w, 'const'), lora: { ...lora, rank: 0 } }).loraInputs).toEqual([]);
  });
});

describe('4-bit inference graphs', () => {
  // Bounds measured on random models (docs/model.md, "4-bit accuracy"): init std 0.02 as the forge
  // uses, d 64, 2 layers, vocab 300, 4 rows × 32 random tokens; seeds 1–3 gave, with the shipped
  // placement (block linears 4-bit with searched scales, embedding fp32), max |Δ| 0.052–0.061,
  // relRms 0.038–0.043, KL 2.2e-5–2.6e-5 nats, top-1 agreement 1.0.
  const cfg = validateConfig({ vocabSize: 300, dModel: 64, nLayers: 2, nHeads: 4, dFf: 128, maxSeq: 32 });
  const w = initWeights(cfg, 1, { std: 0.02 });
  const rng = new Rng(101);
  const rows = Array.from({ length: 4 }, () => Array.from({ length: 32 }, () => rng.int(300)));
  const feeds = prefillFeeds(cfg, leftPad(rows, 0));

  it('computes exactly with the dequantised weights (the only error is rounding to 4 bits)', async () => {
    const q4 = paramSource(w, 'quant4');
    const g = buildGraph(cfg, { kind: 'score', params: q4 });
    const out = await runOnce(runtime, g.bytes, prefillFeeds(cfg, leftPad([seq], 0)));
    const ref = referenceForward(cfg, quantisedWeights(q4, paramSpecs(cfg)), seq);
    expect(maxAbs(out.logits.data as Float32Array, ref.logits)).toBeLessThan(1e-4);
    expect(maxAbs(out.logits.data as Float32Array, referenceForward(cfg, w, seq).logits)).toBeGreaterThan(1e-3);
  });

  it('stays within the stated bound of the fp32 logits (shipped placement)', async () => {
    const fp = await runOnce(runtime, buildGraph(cfg, { kind: 'score', params: paramSource(w, 'const') }).bytes, feeds);
    const q = await runOnce(runtime, buildGraph(cfg, { kind: 'score', params: paramSource(w, blocksQuant4) }).bytes, feeds);
    const d = compareLogits(q.logits.data as Float32Array, fp.logits.data as Float32Array, 4 * 32, 300);
    expect(d.maxAbs).toBeGreaterThan(0);
    expect(d.maxAbs).toBeLessThan(0.1);
    expect(d.relRms).toBeLessThan(0.08);
    expect(d.meanKl).toBeLessThan(1e-4);
    expect(d.top1).toBeGreaterThanOrEqual(0.99);
  });
});
