// Live LoRA adapters (Hu et al. 2021, arXiv 2106.09685: W + (α/r)·B·A). The graphs are built once
// with an adapter *slot* (rank R, scale α_s/R, a set of targets) whose A/B matrices are graph inputs;
// an adapter of rank r ≤ R over a subset of the targets is embedded in the slot by zero-padding:
//   A_slot = [A; 0] (R × in),  B_slot = [c·B, 0] (out × R),  c = (α/r) / (α_s/R),
// so (α_s/R)·B_slot·A_slot = (α/r)·B·A exactly when c = 1 (same spec) and to float rounding
// otherwise. The base model (adapter off, the reference policy) is the all-zero slot: exactly the base.
import type { ModelConfig } from '../../model/llama/config.ts';
import {
  adapterParamSpecs,
  ALL_LORA_TARGETS,
  loraParams,
  numel,
  valueHeadDelta,
  type HeadsSpec,
  type LoraSpec,
  type ParamSpec,
} from '../../model/llama/weights.ts';
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

/** The all-zero slot: the base model (with a value head, a zero head delta: weights.ts valueHeadDelta). */
export function zeroFeeds(cfg: ModelConfig, slot: LoraSpec | null, heads: HeadsSpec = {}): AdapterFeeds {
  const feeds: AdapterFeeds = {};
  for (const s of adapterParamSpecs(cfg, slot ?? undefined, heads))
    feeds[s.name] = { type: 'float32', data: new Float32Array(numel(s.shape)), dims: [...s.shape] };
  return feeds;
}

function checkTensor(id: string, spec: ParamSpec, w: Float32Array | undefined): Float32Array {
  const name = spec.name;
  if (!w) throw new AdapterError(`adapter "${id}": ${name} is missing`);
  if (w.length !== numel(spec.shape)) throw new AdapterError(`adapter "${id}": ${name} has ${w.length} values, expected [${spec.shape.join(', ')}]`);
  for (let i = 0; i < w.length; i++) {
    if (!Number.isFinite(w[i])) throw new AdapterError(`adapter "${id}": ${name} holds a non-finite value at ${i}`);
  }
  return w;
}

/** Checks an adapter against the slot and returns its padded feeds; AdapterError says what does not fit. */
export function adapterFeeds(cfg: ModelConfig, slot: LoraSpec | null, adapter: Adapter, id: string, heads: HeadsSpec = {}): AdapterFeeds {
  const spec = adapter.spec;
  if (!slot || slot.rank === 0) throw new AdapterError(`adapter "${id}": the model was loaded without an adapter slot (adapterSlot: null)`);
  if (!Number.isInteger(spec.rank) || spec.rank < 1) throw new AdapterError(`adapter "${id}": rank must be a positive integer, got ${spec.rank}`);
  if (!(spec.alpha > 0) || !Number.isFinite(spec.alpha)) throw new AdapterError(`adapter "${id}": alpha must be a positive number, got ${spec.alpha}`);
  if (spec.rank > slot.rank)
    throw new AdapterError(`adapter "${id}": rank ${spec.rank} exceeds the model's adapter slot rank ${slot.rank} (load the model with a larger adapterSlot)`);
  const extra = spec.targets.filter((t) => !slot.targets.includes(t));
  if (extra.length) throw new AdapterError(`adapter "${id}": targets ${extra.join(', ')} are not in the model's adapter slot (${slot.targets.join(', ')})`);
  const feeds = zeroFeeds(cfg, slot, heads);
  const c = spec.alpha / spec.rank / (slot.alpha / slot.rank);
  const r = spec.rank;
  const R = slot.rank;
  for (const p of loraParams(cfg, spec)) {
    const a = checkTensor(id, p.a, adapter.weights[p.a.name]);
    const b = checkTensor(id, p.b, adapter.weights[p.b.name]);
    const [outDim] = p.b.shape;
    // A: [r, in] row-major → rows 0…r−1 of the slot's [R, in].
    (feeds[p.a.name].data as Float32Array).set(a);
    // B: [out, r] → columns 0…r−1 of the slot's [out, R], scaled by c.
    const bs = feeds[p.b.name].data as Float32Array;
    for (let o = 0; o < outDim; o++) for (let k = 0; k < r; k++) bs[o * R + k] = c === 1 ? b[o * r + k] : b[o * r + k] * c;
  }
  // the value-head delta is not scaled by α/r; an adapter without one (a policy's, or one trained
  // before the head trained) leaves the head at the base
  if (heads.value) {
    for (const d of valueHeadDelta(cfg)) {
      if (adapter.weights[d.name]) (feeds[d.name].data as Float32Array).set(checkTensor(id, d, adapter.weights[d.name]));
    }
  }
  return feeds;
}
