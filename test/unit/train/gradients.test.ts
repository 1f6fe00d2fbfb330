// The whole train step's gradients against central finite differences of its own loss output, on
// the tiny decoder (tinyModel.ts), for every loss kind, full-parameter and LoRA-only training.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { buildTrainStep } from '../../../src/rl/model/train/trainStep.ts';
import type { LossSpec } from '../../../src/rl/model/train/losses.ts';
import { TINY, tinyForward, tinyInit, tinyParams, type TinyConfig } from './tinyModel.ts';
import { batchFeeds, fdTrainStep, stateFeeds } from './harness.ts';

const LOSSES: { spec: LossSpec; batch?: number }[] = [
  { spec: { kind: 'sft', weighted: true } },
  { spec: { kind: 'policy-gradient', clipLow: 0.2, clipHigh: 0.28, klCoef: 0.1, entropyCoef: 0.01 } },
  { spec: { kind: 'policy-gradient', clipLow: 0.2, clipHigh: 0.28, aggregation: 'seq-mean-token-mean' } },
  { spec: { kind: 'dpo', beta: 0.5, nllCoef: 0.1, pairs: 2 }, batch: 4 },
  { spec: { kind: 'bradley-terry', source: 'log-ratio', beta: 1, pairs: 2 }, batch: 4 },
  { spec: { kind: 'bradley-terry', source: 'log-ratio', beta: 1, pairs: 2, ridge: 0.3 }, batch: 4 },
  { spec: { kind: 'bradley-terry', source: 'value', beta: 1, pairs: 2 }, batch: 4 },
  { spec: { kind: 'value-mse', clip: 0.2 } },
];

async function check(runtime: OrtRuntime, c: TinyConfig, spec: LossSpec, samples: number, h: number) {
  const graph = buildTrainStep({
    forward: tinyForward(c, tinyInit(c), 'float64'),
    loss: spec,
    params: tinyParams(c),
    batch: c.batch,
    seqLen: c.seqLen,
    dtype: 'float64',
    outputGradients: true,
  });
  const session = await runtime.createSession(graph.bytes, { label: 'fd_train', optimization: 'basic' });
  try {
    const feeds = { ...batchFeeds(graph, c), ...stateFeeds(graph, tinyInit(c)) };
    return await fdTrainStep(session, graph, feeds, samples, h);
  } finally {
    await session.dispose();
  }
}

describe('train-step gradients vs central finite differences (float64, wasm)', () => {
  let runtime: OrtRuntime;
  beforeAll(async () => {
    runtime = await OrtRuntime.create('wasm');
  });
  afterAll(async () => runtime.dispose());

  for (const { spec, batch } of LOSSES) {
    it(`${spec.kind} ${JSON.stringify(spec).slice(0, 80)}`, async () => {
      const r = await check(runtime, { ...TINY, batch: batch ?? TINY.batch }, spec, 40, 1e-6);
      expect(r.maxGrad).toBeGreaterThan(1e-3);
      expect(r.maxError).toBeLessThan(1e-8); // seen: ≤ 6e-10
    });
  }

  // The frozen 4-bit layer computes in float32 between Casts, so rounding (≈1e-7 relative) over a
  // step h limits the difference quotient; a larger h and a looser bound account for that.
  it('full training through a frozen MatMulNBits layer (fp32-transpose backward)', async () => {
    const c: TinyConfig = { ...TINY, d: 32, heads: 2, ff: 16, nbits: true };
    const r = await check(runtime, c, { kind: 'sft' }, 40, 1e-3);
    expect(r.maxGrad).toBeGreaterThan(1e-3);
    expect(r.maxError).toBeLessThan(5e-4); // seen: 4.5e-5
  });

  it('LoRA-only training beside a frozen 4-bit base', async () => {
    const c: TinyConfig = { ...TINY, d: 32, heads: 2, ff: 16, nbits: true, trainable: 'lora' };
    expect(tinyParams(c).map((p) => p.name)).toEqual(['lora_a', 'lora_b']);
    const r = await check(runtime, c, { kind: 'policy-gradient', clipLow: 0.2, clipHigh: 0.28 }, 30, 1e-3);
    expect(r.maxGrad).toBeGreaterThan(1e-4);
    expect(r.maxError).toBeLessThan(1e-3);
  });
});
