// The train-step check (runtime/train/check.ts) on wasm and onnxruntime-node: the step moves every
// parameter set, and the two backends agree within 1e-3 relative (the bound the browser test holds
// WebGPU to).
import { describe, expect, it } from 'vitest';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { checkTrainStep, relativeError, type TrainStepCheck } from '../../../src/rl/runtime/train/check.ts';

async function on(kind: 'wasm' | 'node'): Promise<TrainStepCheck> {
  const runtime = await OrtRuntime.create(kind);
  try {
    return await checkTrainStep(runtime);
  } finally {
    await runtime.dispose();
  }
}

describe('train-step check', () => {
  it('moves the LoRA and the full parameter sets, and wasm equals onnxruntime-node within 1e-3', { timeout: 120_000 }, async () => {
    const [wasm, node] = [await on('wasm'), await on('node')];
    expect([wasm.backend, node.backend]).toEqual(['wasm', 'node']);
    expect(wasm.steps.map((s) => s.trainable)).toEqual(['lora', 'full']);
    for (const [i, s] of wasm.steps.entries()) {
      expect(Number.isFinite(s.loss) && s.gradNorm > 0).toBe(true);
      const names = Object.keys(s.after);
      expect(names.length).toBeGreaterThan(s.trainable === 'lora' ? 27 : 10);
      // the step changed every parameter tensor (lr 1e-2), so agreement below is not agreement of untouched inputs
      for (const n of names) expect(relativeError(s.after[n], s.before[n])).toBeGreaterThan(1e-3);
      expect(relativeError([node.steps[i].loss], [s.loss])).toBeLessThan(1e-3);
      for (const n of names) expect(relativeError(node.steps[i].after[n], s.after[n])).toBeLessThan(1e-3);
    }
  });

  it('relative error is max |a − b| over max |b|', () => {
    expect(relativeError([1, 2.002], [1, 2])).toBeCloseTo(0.001, 9);
    expect(relativeError([1], [1, 2])).toBe(Number.POSITIVE_INFINITY);
  });
});
