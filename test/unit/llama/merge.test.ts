// Merging a LoRA adapter into its base: W' = W + (α/r)·B·A by hand, and the merged forward equals
// the base with the adapter applied (src/rl/model/llama/merge.ts against the float64 reference).
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/rl/model/llama/config.ts';
import { mergeLora } from '../../../src/rl/model/llama/merge.ts';
import { referenceForward } from '../../../src/rl/model/llama/reference.ts';
import { initLora, initWeights, loraParams, projName } from '../../../src/rl/model/llama/weights.ts';
import { Rng } from '../../../src/rl/util/rng.ts';

const cfg = validateConfig({ vocabSize: 40, dModel: 32, nLayers: 1, nHeads: 2, dFf: 64, maxSeq: 16 });

describe('mergeLora', () => {
  it('adds (α/r)·B·A to each targeted projection and leaves the rest', () => {
    const w = initWeights(cfg, 1);
    const spec = { rank: 1, alpha: 2, targets: ['q_proj'] as const };
    const [p] = loraParams(cfg, { ...spec, targets: [...spec.targets] });
    const a = new Float32Array(p.a.shape[1]);
    const b = new Float32Array(p.b.shape[0]);
    a[3] = 0.5;
    b[7] = 0.25;
    const merged = mergeLora(cfg, w, { spec: { ...spec, targets: [...spec.targets] }, weights: { [p.a.name]: a, [p.b.name]: b } });
    const q = projName(0, 'q_proj');
    const inDim = p.a.shape[1];
    const changed: number[] = [];
    merged[q].forEach((x, i) => {
      if (x !== w[q][i]) changed.push(i);
    });
    expect(changed).toEqual([7 * inDim + 3]);
    expect(merged[q][7 * inDim + 3] - w[q][7 * inDim + 3]).toBeCloseTo(2 * 0.25 * 0.5, 6);
    expect(merged[projName(0, 'k_proj')]).toBe(w[projName(0, 'k_proj')]);
  });

  it('gives the forward pass of the base with the adapter', () => {
    const w = initWeights(cfg, 2);
    const spec = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'down_proj'] as ('q_proj' | 'v_proj' | 'down_proj')[] };
    const lora = initLora(cfg, spec, 3, 0.2);
    const rng = new Rng(4);
    for (const p of loraParams(cfg, spec)) lora[p.b.name] = lora[p.b.name].map(() => rng.normal() * 0.2);
    const tokens = [1, 5, 9, 2, 30];
    const withAdapter = referenceForward(cfg, w, tokens, { lora: spec, loraWeights: lora });
    const merged = referenceForward(cfg, mergeLora(cfg, w, { spec, weights: lora }), tokens);
    const base = referenceForward(cfg, w, tokens);
    let diff = 0;
    let moved = 0;
    withAdapter.logits.forEach((x, i) => {
      diff = Math.max(diff, Math.abs(x - merged.logits[i]));
      moved = Math.max(moved, Math.abs(x - base.logits[i]));
    });
    expect(diff).toBeLessThan(1e-4);
    expect(moved).toBeGreaterThan(1e-3);
  });
});
