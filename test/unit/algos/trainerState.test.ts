// Trainer.exportState / importState (the checkpoint of adapter + AdamW moments): a run that stops
// after two steps and resumes in a new Trainer from the exported state equals an uninterrupted run,
// bit for bit; a state that does not fit is a named error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrtRuntime, type TensorData } from '../../../src/rl/runtime/ort.ts';
import { validateConfig } from '../../../src/rl/model/llama/config.ts';
import { initLora, initWeights } from '../../../src/rl/model/llama/weights.ts';
import { leftPad, prefillFeeds } from '../../../src/rl/model/llama/feeds.ts';
import { buildLlamaTrainStep } from '../../../src/rl/model/train/llama.ts';
import { Trainer } from '../../../src/rl/runtime/train/trainer.ts';
import { Rng } from '../../../src/rl/util/rng.ts';

const cfg = validateConfig({ vocabSize: 40, dModel: 32, nLayers: 1, nHeads: 2, dFf: 64, maxSeq: 16 });
const lora = { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj'] as const };
const graph = buildLlamaTrainStep({
  cfg,
  weights: initWeights(cfg, 1, { std: 0.2 }),
  trainable: { kind: 'lora', lora, base: 'fp32' },
  loss: { kind: 'sft' },
  batch: 2,
  seqLen: 6,
});

function batch(seed: number): Record<string, TensorData> {
  const rng = new Rng(seed);
  const rows = Array.from({ length: 2 }, () => Array.from({ length: 7 }, () => rng.int(cfg.vocabSize)));
  return {
    ...prefillFeeds(
      cfg,
      leftPad(
        rows.map((r) => r.slice(0, 6)),
        0,
      ),
    ),
    targets: { type: 'int32', data: Int32Array.from(rows.flatMap((r) => r.slice(1))), dims: [2, 6] },
    loss_mask: { type: 'float32', data: new Float32Array(12).fill(1), dims: [2, 6] },
  };
}

describe('Trainer state', () => {
  let rt: OrtRuntime;
  beforeAll(async () => (rt = await OrtRuntime.create('wasm')));
  afterAll(() => rt.dispose());

  it('resumes exactly from an exported state', async () => {
    const init = initLora(cfg, lora, 3);
    const a = await Trainer.create(rt, graph, init, { lr: 0.01 });
    for (let s = 0; s < 4; s++) await a.step(batch(s));
    const b = await Trainer.create(rt, graph, init, { lr: 0.01 });
    for (let s = 0; s < 2; s++) await b.step(batch(s));
    const saved = b.exportState();
    expect(saved.step).toBe(2);
    expect(Object.keys(saved.tensors)).toContain(`${graph.params[0].name}.m`);
    const c = await Trainer.create(rt, graph, initLora(cfg, lora, 99), { lr: 0.01 });
    c.importState(saved);
    for (let s = 2; s < 4; s++) await c.step(batch(s));
    expect(c.steps).toBe(4);
    for (const p of graph.params) expect(Array.from(c.param(p.name))).toEqual(Array.from(a.param(p.name)));
    const bad = { step: 1, tensors: { ...saved.tensors, [graph.params[0].name]: new Float32Array(1) } };
    expect(() => c.importState(bad)).toThrow(/has 1 values, expected/);
    await Promise.all([a.dispose(), b.dispose(), c.dispose()]);
  });
});
