// A small random model folder like the forge writes (config, tokenizer, safetensors, 4-bit onnx graphs),
// for bridge tests until the shipped models exist. Sizes are multiples of 32 so the block linears pack to 4 bits.
import { writeManifest, writeModelFolder } from '../../../src/rl/model/folder/folder.ts';
import { memoryFolder } from '../../../src/rl/model/folder/io.ts';
import { validateConfig } from '../../../src/rl/model/llama/config.ts';
import { buildGraph } from '../../../src/rl/model/llama/graphs.ts';
import { blocksQuant4, paramSource } from '../../../src/rl/model/llama/params.ts';
import { initWeights } from '../../../src/rl/model/llama/weights.ts';
import { fitTokenizer } from '../../../src/rl/model/tokenizer/fit.ts';

export const tok = fitTokenizer(
  [
    'Guess the animal I am thinking of. Candidates: cat, cow, eagle, shark.',
    'is it a mammal? Yes. Remaining: cat, cow. Turns left: 3.',
    'guess: cat',
    'Correct! It is cat.',
  ].flatMap((s) => [s, s]),
  { minCount: 2 },
);
export const cfg = validateConfig({ vocabSize: tok.vocabSize, dModel: 64, nLayers: 2, nHeads: 4, nKvHeads: 2, dFf: 96, maxSeq: 96 });
export const weights = initWeights(cfg, 11, { std: 0.08 });

/** The folder's files in memory (under `policy/`, listed in manifest.json), with onnx/prefill_q4.onnx and onnx/decode_q4.onnx as the forge builds them. */
export async function forgedFolder() {
  const mem = memoryFolder();
  const params = paramSource(weights, blocksQuant4);
  const policy = await writeModelFolder(mem.write, 'policy', {
    config: cfg,
    tokenizer: tok,
    weights,
    turnwise: { role: 'policy', maxReplyTokens: 24 },
    files: {
      'onnx/prefill_q4.onnx': buildGraph(cfg, { kind: 'prefill', params }).bytes,
      'onnx/decode_q4.onnx': buildGraph(cfg, { kind: 'decode', params }).bytes,
    },
  });
  await writeManifest(mem.write, { policy }, { seed: 11, command: 'test fixture', date: '2026-01-01' });
  return mem;
}
