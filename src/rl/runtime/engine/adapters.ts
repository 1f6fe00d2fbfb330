// Live LoRA adapters (Hu et al. 2021, arXiv 2106.09685: W + (α/r)·B·A). The graphs are built once
// with an adapter *slot* (rank R, scale α_s/R, a set of targets) whose A/B matrices are graph inputs;
// an adapter of rank r ≤ R over a subset of the targets is embedded in the slot by zero-padding:
//   A_slot = [A; 0] (R × in),  B_slot = [c·B, 0] (out × R),  c = (α/r) / (α_s/R),
// so (α_s/R)·B_slot·A_slot = (α/r)·B·A exactly when c = 1 (same spec) and to float rounding
// otherwise. The base model (adapter off, the reference policy) is the all-zero slot: exactly the base.
import type { ModelConfig } from '../../model/llama/config.ts';
import { ALL_LORA_TARGETS, loraParams, numel, type LoraSpec } from '../../model/llama/weights.ts';
import type { TensorData } from '../ort.ts';
import { AdapterError } from './errors.ts';
import type { Adapter } from './types.ts';

/**
 * Id of a model folder's shipped adapter (model/folder/folder.ts `adapter/`), registered and made
 * active when the model loads: the forged critic's SWEET-RL adapter, so requests that name no adapter
 * use it and adapter null is its reference, the base (forge/critic.ts).
 */
export const SHIPPED_ADAPTER_ID = 'forged';

/** The slot built into the graphs unless the loader is told otherwise: rank 8 over every projection. */
export const DEFAULT_ADAPTER_SLOT: LoraSpec = { rank: 8, alpha: 16, targets: ALL_LORA_TARGETS };

/** Feeds for the slot's inputs. */
export type AdapterFeeds = Record<string, TensorData>;

/** The all-zero slot: the base model. */
export function zeroFeeds(cfg: ModelConfig, slot: LoraSpec | null): AdapterFeeds {
  const feeds: AdapterFeeds = {};
  for (const p of loraParams(cfg, slot ?? undefined)) {
    for (const s of [p.a, p.b]) feeds[s.name] = { type: 'float32', data: new Float32Array(numel(s.shape)), dims: [...s.shape] };
  }
  return feeds;
}

/** Checks an adapter against the slot and returns its padded feeds; AdapterError says what does not fit. */
export function adapterFeeds(cfg: ModelConfig, slot: LoraSpec | null, adapter: Adapter, id: string): AdapterFeeds {
  const spec = adapter.spec;
  if (!slot || slot.rank === 0) throw new AdapterError(`adapter "${id}": the model was loaded without an adapter slot (adapterSlot: null)`);
  if (!Number.isInteger(spec.rank) || spec.rank < 1) throw new AdapterError(`adapter "${id}": rank must be a positive integer, got ${spec.rank}`);
  if (!(spec.alpha > 0) || !Number.isFinite(spec.alpha)) throw new AdapterError(`adapter "${id}": alpha must be a positive number, got ${spec.alpha}`);
  if (spec.rank > slot.rank) throw new AdapterError(`adapter "${id}": rank ${spec.rank} exceeds the model's adapter slot rank ${slot.rank} (load the model with a larger adapterSlot)`);
  const extra = spec.targets.filter((t) => !slot.targets.includes(t));
  if (extra.length) throw new AdapterError(`adapter "${id}": targets ${extra.join(', ')} are not in the model's adapter slot (${slot.targets.join(', ')})`);
  const feeds = zeroFeeds(cfg, slot);
  const c = spec.alpha / spec.rank / (slot.alpha / slot.rank);
  const r = spec.rank;
  const R = slot.rank;
  for (const p of loraParams(cfg, spec)) {
    const a = adapter.weights[p.a.name];
    const b = adapter.weights[p.b.name];
    for (const [w, s] of [
      [a, p.a],
      [b, p.b],
    ] as const) {
      if (!w) throw new AdapterError(`adapter "${id}": ${s.name} is missing`);
      if (w.length !== numel(s.shape)) throw new AdapterError(`adapter "${id}": ${s.name} has ${w.length} values, expected [${s.shape.join(', ')}]`);
      for (let i = 0; i < w.length; i++) {
        if (!Number.isFinite(w[i])) throw new AdapterError(`adapter "${id}": ${s.name} holds a non-finite value at ${i}`);
      }
    }
    const [outDim] = p.b.shape;
    // A: [r, in] row-major → rows 0…r−1 of the slot's [R, in].
    (feeds[p.a.name].data as Float32Array).set(a);
    // B: [out, r] → columns 0…r−1 of the slot's [out, R], scaled by c.
    const bs = feeds[p.b.name].data as Float32Array;
    for (let o = 0; o < outDim; o++) for (let k = 0; k < r; k++) bs[o * R + k] = c === 1 ? b[o * r + k] : b[o * r + k] * c;
  }
  return feeds;
}
