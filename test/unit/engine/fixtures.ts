// Tiny random models written as real model folders (manifest + Hugging Face layout) in memory, so
// the engine tests load exactly what the forge will ship, in milliseconds, without the forge.
import { validateConfig, type ModelConfig } from '../../../src/rl/model/llama/config.ts';
import { initWeights, type ModelWeights } from '../../../src/rl/model/llama/weights.ts';
import { fitTokenizer } from '../../../src/rl/model/tokenizer/fit.ts';
import type { Tokenizer } from '../../../src/rl/model/tokenizer/tokenizer.ts';
import { writeManifest, writeModelFolder } from '../../../src/rl/model/folder/folder.ts';
import { memoryFolder } from '../../../src/rl/model/folder/io.ts';

export const CORPUS = ['Is it red? Yes.', 'Is it big? No.', 'GUESS: apple', 'I WANT TO ANSWER: banana', 'Which fruit is it?', 'It is small and yellow.'];

export interface TinyModel {
  cfg: ModelConfig;
  tok: Tokenizer;
  weights: ModelWeights;
  /** Every file by path, manifest.json at the root, folders `policy` and `critic`. */
  files: Record<string, Uint8Array>;
}

/**
 * d 32, 2 layers, 4 heads over 2 kv heads, context 64; std 0.2 so logits spread (greedy choices are
 * not near-ties). The critic is the same architecture with a value head and other weights.
 */
export async function tinyModels(seed = 1, maxSeq = 64): Promise<TinyModel & { criticWeights: ModelWeights }> {
  const tok = fitTokenizer(CORPUS, { minCount: 1 });
  const cfg = validateConfig({ vocabSize: tok.vocabSize, dModel: 32, nLayers: 2, nHeads: 4, nKvHeads: 2, dFf: 64, maxSeq });
  const weights = initWeights(cfg, seed, { std: 0.2 });
  const criticWeights = initWeights(cfg, seed + 100, { std: 0.2, heads: { value: true } });
  const mem = memoryFolder();
  const policy = await writeModelFolder(mem.write, 'policy', { config: cfg, tokenizer: tok, weights });
  const critic = await writeModelFolder(mem.write, 'critic', { config: cfg, tokenizer: tok, weights: criticWeights, heads: { value: true } });
  await writeManifest(mem.write, { policy, critic });
  return { cfg, tok, weights, criticWeights, files: Object.fromEntries(mem.files) };
}
