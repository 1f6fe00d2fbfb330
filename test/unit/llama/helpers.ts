// Shared fixtures for the llama tests: a tiny config, seeded weights and a session helper.
import { validateConfig, type ModelConfig } from '../../../src/rl/model/llama/config.ts';
import { initWeights, type ModelWeights } from '../../../src/rl/model/llama/weights.ts';
import { OrtRuntime, type TensorData } from '../../../src/rl/runtime/ort.ts';

/** d 32, 2 layers, 4 query heads over 2 kv heads (GQA), vocab 50. */
export const TINY: ModelConfig = validateConfig({ vocabSize: 50, dModel: 32, nLayers: 2, nHeads: 4, nKvHeads: 2, dFf: 64, maxSeq: 64 });

/** Larger-than-default std so logits spread and differences show. */
export function tinyWeights(seed = 1, value = false): ModelWeights {
  return initWeights(TINY, seed, { std: 0.2, heads: { value } });
}

export async function runOnce(runtime: OrtRuntime, bytes: Uint8Array, feeds: Record<string, TensorData>): Promise<Record<string, TensorData>> {
  const s = await runtime.createSession(bytes, { label: 'test' });
  try {
    return await s.run(feeds);
  } finally {
    await s.dispose();
  }
}

export function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
