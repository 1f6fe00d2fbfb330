// End to end on the smallest real input: fit a tokenizer, init a model, write and reload its folder,
// open 4-bit prefill/decode sessions and sample a few agent tokens after a chat prompt.
import { describe, expect, it } from 'vitest';
import { fitTokenizer } from '../../../src/rl/model/tokenizer/fit.ts';
import { encodeChat } from '../../../src/rl/model/tokenizer/chat.ts';
import { validateConfig } from '../../../src/rl/model/llama/config.ts';
import { initWeights } from '../../../src/rl/model/llama/weights.ts';
import { blocksQuant4, paramSource } from '../../../src/rl/model/llama/params.ts';
import { Stepper } from '../../../src/rl/runtime/engine/stepper.ts';
import { loadModel, writeManifest, writeModelFolder } from '../../../src/rl/model/folder/folder.ts';
import { memoryFolder } from '../../../src/rl/model/folder/io.ts';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';

describe('model smoke', () => {
  it('tokenizer → model → folder → 4-bit sessions → a few sampled tokens', async () => {
    const tok = fitTokenizer(['Is it red? Yes.', 'Is it big? No.', 'GUESS: apple'], { minCount: 1 });
    const cfg = validateConfig({ vocabSize: tok.vocabSize, dModel: 32, nLayers: 2, nHeads: 2, dFf: 64, maxSeq: 64 });
    const mem = memoryFolder();
    await writeManifest(mem.write, { policy: await writeModelFolder(mem.write, 'policy', { config: cfg, tokenizer: tok, weights: initWeights(cfg, 1) }) });
    const m = await loadModel(mem.read, 'policy');
    const runtime = await OrtRuntime.create('wasm');
    const runner = await Stepper.create(runtime, m.config, paramSource(m.weights, blocksQuant4));
    const prompt = encodeChat(m.tokenizer, [{ role: 'system', content: 'Guess the fruit.' }], { addGenerationPrompt: true }).ids;
    let step = await runner.prefill([prompt]);
    const out: number[] = [];
    for (let t = 0; t < 5; t++) {
      expect(step.logits.length).toBe(cfg.vocabSize);
      expect(step.logits.every(Number.isFinite)).toBe(true);
      let best = 0;
      for (let i = 1; i < step.logits.length; i++) if (step.logits[i] > step.logits[best]) best = i;
      out.push(best);
      step = await runner.decode(step.state, [best]);
    }
    expect(step.state.used).toBe(prompt.length + 5);
    expect(typeof m.tokenizer.decode(out)).toBe('string');
    await runner.dispose();
    expect(runtime.liveSessions).toBe(0);
    await runtime.dispose();
  });
});
