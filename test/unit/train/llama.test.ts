// The train step on the one model definition (src/rl/model/llama/emit.ts): gradients of the full
// parameter set and of LoRA adapters over a 4-bit base against float32 central differences, and SFT
// on one batch driving the loss near zero. The decoder emits float32 only, so the difference
// quotients carry float32 rounding (≈1e-7 · |loss| / h): a larger step and a looser bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrtRuntime, type TensorData } from '../../../src/rl/runtime/ort.ts';
import { validateConfig } from '../../../src/rl/model/llama/config.ts';
import { initLora, initWeights, type ModelWeights } from '../../../src/rl/model/llama/weights.ts';
import { leftPad, prefillFeeds } from '../../../src/rl/model/llama/feeds.ts';
import { buildLlamaTrainStep, type LlamaTrainable } from '../../../src/rl/model/train/llama.ts';
import { Trainer } from '../../../src/rl/runtime/train/trainer.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { fdTrainStep, NO_UPDATE, stateFeeds } from './harness.ts';

const cfg = validateConfig({ vocabSize: 40, dModel: 32, nLayers: 1, nHeads: 2, dFf: 64, maxSeq: 16 });
const [B, S] = [2, 6];
const LORA: LlamaTrainable = { kind: 'lora', lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'down_proj'] }, base: 'quant4' };

function sftBatch(seed: number): Record<string, TensorData> {
  const rng = new Rng(seed);
  const rows = Array.from({ length: B }, () => Array.from({ length: S + 1 }, () => rng.int(cfg.vocabSize)));
  return {
    ...prefillFeeds(
      cfg,
      leftPad(
        rows.map((r) => r.slice(0, S)),
        0,
      ),
    ),
    targets: { type: 'int32', data: Int32Array.from(rows.flatMap((r) => r.slice(1))), dims: [B, S] },
    loss_mask: { type: 'float32', data: new Float32Array(B * S).fill(1), dims: [B, S] },
  };
}

/** Base weights with a larger spread than the forge's 0.02, so gradients are well above rounding. */
const base = initWeights(cfg, 1, { std: 0.2 });

function adapters(): ModelWeights {
  if (LORA.kind !== 'lora') throw new Error('unreachable');
  const rng = new Rng(8);
  const w = initLora(cfg, LORA.lora, 5, 0.2);
  // B = 0 would make A's gradient vanish; a random B exercises both.
  for (const k of Object.keys(w)) if (k.includes('lora_B')) w[k] = Float32Array.from(w[k], () => rng.normal() * 0.2);
  return w;
}

describe('Llama train step', () => {
  let runtime: OrtRuntime;
  beforeAll(async () => {
    runtime = await OrtRuntime.create('wasm');
  });
  afterAll(async () => runtime.dispose());

  for (const [label, trainable, init] of [
    ['all parameters', { kind: 'full' } as LlamaTrainable, () => base],
    ['LoRA over a 4-bit base', LORA, adapters],
  ] as const) {
    it(`gradients of ${label} match float32 central differences`, async () => {
      const graph = buildLlamaTrainStep({ cfg, weights: base, trainable, loss: { kind: 'sft' }, batch: B, seqLen: S, outputGradients: true });
      const session = await runtime.createSession(graph.bytes, { label: 'llama_fd', optimization: 'basic' });
      const r = await fdTrainStep(session, graph, { ...sftBatch(2), ...stateFeeds(graph, init(), NO_UPDATE) }, 40, 1e-2);
      await session.dispose();
      expect(r.maxGrad).toBeGreaterThan(1e-2);
      expect(r.maxError).toBeLessThan(1e-3); // seen: ≤ 1e-4
    });
  }

  it("value-MSE over LoRA trains the value head's delta too (issue #19: the head is no longer frozen)", async () => {
    const lora = { rank: 4, alpha: 8, targets: ['q_proj'] as const };
    const critic = initWeights(cfg, 3, { std: 0.2, heads: { value: true } });
    const graph = buildLlamaTrainStep({
      cfg,
      weights: critic,
      trainable: { kind: 'lora', lora: { ...lora, targets: [...lora.targets] }, base: 'fp32' },
      heads: { value: true },
      loss: { kind: 'value-mse' },
      batch: B,
      seqLen: S,
    });
    expect(graph.params.map((p) => p.name).slice(-2)).toEqual(['v_head.summary.delta.weight', 'v_head.summary.delta.bias']);
    expect(graph.unreached).toEqual([]);
    const init = initLora(cfg, { ...lora, targets: [...lora.targets] }, 5, 0.2, { value: true });
    expect(Array.from(init['v_head.summary.delta.bias'])).toEqual([0]);
    const trainer = await Trainer.create(runtime, graph, init, { lr: 0.01 });
    const { targets: _t, ...feeds } = sftBatch(2);
    // returns of 3 everywhere: far from the base head's ≈ 0, reachable through the bias alone
    const batch = { ...feeds, returns: { type: 'float32' as const, data: new Float32Array(B * S).fill(3), dims: [B, S] } };
    const first = await trainer.step(batch);
    let last = first;
    for (let i = 1; i < 100; i++) last = await trainer.step(batch);
    const bias = trainer.param('v_head.summary.delta.bias')[0];
    const weight = Math.hypot(...trainer.param('v_head.summary.delta.weight'));
    await trainer.dispose();
    // both parts of the head moved (fresh: zero), and the values reached the returns
    expect(bias).toBeGreaterThan(0.1); // seen: 0.24
    expect(weight).toBeGreaterThan(0.1);
    expect(last.loss).toBeLessThan(first.loss / 10);
  }, 180_000);

  it('SFT of all parameters on one batch reaches a loss near zero within 100 steps', async () => {
    const graph = buildLlamaTrainStep({ cfg, weights: base, trainable: { kind: 'full' }, loss: { kind: 'sft' }, batch: B, seqLen: S });
    const trainer = await Trainer.create(runtime, graph, base, { lr: 0.01 });
    const batch = sftBatch(2);
    const first = await trainer.step(batch);
    let last = first;
    for (let i = 1; i < 100; i++) last = await trainer.step(batch);
    await trainer.dispose();
    expect(first.loss).toBeGreaterThan(3); // ≈ ln 40 and above at this init spread
    expect(last.loss).toBeLessThan(0.01); // seen: 6e-4
  });
});
