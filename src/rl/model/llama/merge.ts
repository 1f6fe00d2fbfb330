// Merging a LoRA adapter into its base (Hu et al. 2021, arXiv 2106.09685, §4.1): W' = W + (α/r)·B·A,
// W [out, in], B [out, r], A [r, in]. A forward pass of the merged weights equals the base with the
// adapter in its slot (engine/adapters.ts) to float rounding. The forge trains the critic's value
// head over the merged backbone, because the lab reads V(s) with the critic's adapter active.
import type { ModelConfig } from './config.ts';
import { loraParams, numel, projName, valueHeadDelta, type LoraSpec, type ModelWeights } from './weights.ts';

/** A copy of `weights` with the adapter merged into every projection it targets (others shared, not copied). */
export function mergeLora(cfg: ModelConfig, weights: ModelWeights, adapter: { spec: LoraSpec; weights: ModelWeights }): ModelWeights {
  const out: ModelWeights = { ...weights };
  const scale = adapter.spec.alpha / adapter.spec.rank;
  const r = adapter.spec.rank;
  for (const p of loraParams(cfg, adapter.spec)) {
    const a = adapter.weights[p.a.name];
    const b = adapter.weights[p.b.name];
    const name = projName(p.layer, p.target);
    const w = weights[name];
    if (!a || !b || !w) throw new Error(`mergeLora: ${!w ? name : !a ? p.a.name : p.b.name} is missing`);
    const [outDim, inDim] = [p.b.shape[0], p.a.shape[1]];
    if (w.length !== outDim * inDim || a.length !== numel(p.a.shape) || b.length !== numel(p.b.shape))
      throw new Error(`mergeLora: ${name} does not match its adapter's shapes`);
    const m = Float32Array.from(w);
    for (let o = 0; o < outDim; o++) {
      for (let k = 0; k < r; k++) {
        const bok = scale * b[o * r + k];
        if (bok === 0) continue;
        const row = k * inDim;
        for (let i = 0; i < inDim; i++) m[o * inDim + i] += bok * a[row + i];
      }
    }
    out[name] = m;
  }
  // the value-head delta (weights.ts valueHeadDelta) adds to the head it shifts
  const [dw, db] = valueHeadDelta(cfg);
  for (const [delta, head] of [
    [dw, 'v_head.summary.weight'],
    [db, 'v_head.summary.bias'],
  ] as const) {
    const d = adapter.weights[delta.name];
    if (!d) continue;
    if (!weights[head] || weights[head].length !== d.length) throw new Error(`mergeLora: ${delta.name} has no matching ${head}`);
    out[head] = weights[head].map((x, i) => x + d[i]);
  }
  return out;
}
