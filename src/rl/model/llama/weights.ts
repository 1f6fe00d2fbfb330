// Parameter names, shapes and seeded initialisation of the Llama-style decoder. Names and layouts are
// Hugging Face's (LlamaForCausalLM state dict: linear weights [out, in], row-major), so a weight set
// exports to transformers unchanged. The value head follows TRL's AutoModelForCausalLMWithValueHead
// (`v_head.summary.weight` [1, d], `v_head.summary.bias` [1]). LoRA matrices follow PEFT
// (`lora_A` [r, in], `lora_B` [out, r]; Hu et al. 2021, arXiv 2106.09685: W + (α/r)·B·A).
import { Rng } from '../../util/rng.ts';
import { headDim, type ModelConfig } from './config.ts';

/** How a parameter is used: a linear map (y = x · Wᵀ), a norm gain, the token embedding, or a bias. */
export type ParamKind = 'linear' | 'norm' | 'embedding' | 'bias';

/** One named parameter. `shape` is Hugging Face's: [out, in] for linears, [vocab, d] for the embedding. */
export interface ParamSpec {
  name: string;
  kind: ParamKind;
  shape: number[];
}

/** A weight set keyed by Hugging Face tensor name (row-major fp32). */
export type ModelWeights = Record<string, Float32Array>;

/** The projections a LoRA adapter may target. */
export type LoraTarget = 'q_proj' | 'k_proj' | 'v_proj' | 'o_proj' | 'gate_proj' | 'up_proj' | 'down_proj';

export const ALL_LORA_TARGETS: readonly LoraTarget[] = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];

/** Which projections get adapters; rank 0 or no targets means none. */
export interface LoraSpec {
  /** r: inner width of each adapter. */
  rank: number;
  /** α: the update is scaled by α / r (PEFT's lora_alpha). */
  alpha: number;
  /** Projections in every layer that get an adapter. */
  targets: readonly LoraTarget[];
}

/** Which heads the graph carries beyond the backbone. */
export interface HeadsSpec {
  /** A scalar value head (critic for GAE/PPO). */
  value?: boolean;
}

const ATTN: readonly LoraTarget[] = ['q_proj', 'k_proj', 'v_proj', 'o_proj'];

/** Hugging Face name of projection `proj` in layer `layer`. */
export function projName(layer: number, proj: LoraTarget): string {
  return `model.layers.${layer}.${ATTN.includes(proj) ? 'self_attn' : 'mlp'}.${proj}.weight`;
}

/** [out, in] of a projection. */
export function projShape(cfg: ModelConfig, proj: LoraTarget): [number, number] {
  const kv = cfg.nKvHeads * headDim(cfg);
  switch (proj) {
    case 'q_proj':
      return [cfg.dModel, cfg.dModel];
    case 'k_proj':
    case 'v_proj':
      return [kv, cfg.dModel];
    case 'o_proj':
      return [cfg.dModel, cfg.dModel];
    case 'gate_proj':
    case 'up_proj':
      return [cfg.dFf, cfg.dModel];
    case 'down_proj':
      return [cfg.dModel, cfg.dFf];
  }
}

/** Every parameter of the model, in a fixed order (embedding, layers, final norm, heads). */
export function paramSpecs(cfg: ModelConfig, heads: HeadsSpec = {}): ParamSpec[] {
  const d = cfg.dModel;
  const specs: ParamSpec[] = [{ name: 'model.embed_tokens.weight', kind: 'embedding', shape: [cfg.vocabSize, d] }];
  for (let l = 0; l < cfg.nLayers; l++) {
    specs.push({ name: `model.layers.${l}.input_layernorm.weight`, kind: 'norm', shape: [d] });
    for (const p of ATTN) specs.push({ name: projName(l, p), kind: 'linear', shape: projShape(cfg, p) });
    specs.push({ name: `model.layers.${l}.post_attention_layernorm.weight`, kind: 'norm', shape: [d] });
    for (const p of ['gate_proj', 'up_proj', 'down_proj'] as const) specs.push({ name: projName(l, p), kind: 'linear', shape: projShape(cfg, p) });
  }
  specs.push({ name: 'model.norm.weight', kind: 'norm', shape: [d] });
  if (!cfg.tieEmbeddings) specs.push({ name: 'lm_head.weight', kind: 'linear', shape: [cfg.vocabSize, d] });
  if (heads.value) {
    specs.push({ name: 'v_head.summary.weight', kind: 'linear', shape: [1, d] });
    specs.push({ name: 'v_head.summary.bias', kind: 'bias', shape: [1] });
  }
  return specs;
}

/** Number of scalars in a shape. */
export function numel(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** Total parameter count. */
export function countParams(cfg: ModelConfig, heads: HeadsSpec = {}): number {
  return paramSpecs(cfg, heads).reduce((n, p) => n + numel(p.shape), 0);
}

/** Options for `initWeights`. */
export interface InitOptions {
  /** Standard deviation of linear and embedding weights (GPT-2/Llama: 0.02). */
  std?: number;
  heads?: HeadsSpec;
}

/**
 * Seeded initialisation: N(0, std²) for the embedding and linears, with o_proj and down_proj scaled by
 * 1/√(2·layers) (GPT-2's residual scaling); norm gains 1; value head bias 0.
 */
export function initWeights(cfg: ModelConfig, seed: number, opts: InitOptions = {}): ModelWeights {
  const std = opts.std ?? 0.02;
  const rng = new Rng(seed);
  const weights: ModelWeights = {};
  for (const spec of paramSpecs(cfg, opts.heads)) {
    const r = rng.fork(spec.name);
    const n = numel(spec.shape);
    if (spec.kind === 'norm') weights[spec.name] = new Float32Array(n).fill(1);
    else if (spec.kind === 'bias') weights[spec.name] = new Float32Array(n);
    else {
      const s = /o_proj|down_proj/.test(spec.name) ? std / Math.sqrt(2 * cfg.nLayers) : std;
      weights[spec.name] = Float32Array.from({ length: n }, () => r.normal() * s);
    }
  }
  return weights;
}

/** One LoRA matrix pair's names and shapes (PEFT names without the `base_model.model.` prefix). */
export interface LoraParam {
  layer: number;
  target: LoraTarget;
  /** `….lora_A.weight`, shape [r, in]. */
  a: ParamSpec;
  /** `….lora_B.weight`, shape [out, r]. */
  b: ParamSpec;
}

/** The adapter matrices a LoRA spec adds, layer by layer in target order. Empty for rank 0. */
export function loraParams(cfg: ModelConfig, lora: LoraSpec | undefined): LoraParam[] {
  if (!lora || lora.rank === 0) return [];
  const out: LoraParam[] = [];
  for (let l = 0; l < cfg.nLayers; l++) {
    for (const t of lora.targets) {
      const [o, i] = projShape(cfg, t);
      const base = projName(l, t).replace(/\.weight$/, '');
      out.push({
        layer: l,
        target: t,
        a: { name: `${base}.lora_A.weight`, kind: 'linear', shape: [lora.rank, i] },
        b: { name: `${base}.lora_B.weight`, kind: 'linear', shape: [o, lora.rank] },
      });
    }
  }
  return out;
}

/**
 * The value head's part of an adapter: a delta on the head itself, h·(w + Δw)ᵀ + (b + Δb). TRL
 * trains the whole value head beside the LoRA (AutoModelForCausalLMWithValueHead); a delta, zero when
 * fresh, keeps a fresh adapter exactly the base and lets the all-zero slot stay the reference.
 * Without it only the trunk's LoRA could move the critic's values (issue #19 point 4).
 */
export function valueHeadDelta(cfg: ModelConfig): [ParamSpec, ParamSpec] {
  return [
    { name: 'v_head.summary.delta.weight', kind: 'linear', shape: [1, cfg.dModel] },
    { name: 'v_head.summary.delta.bias', kind: 'bias', shape: [1] },
  ];
}

/** Every tensor of an adapter: each LoRA pair's A and B, then the value head's delta where the model has a value head. */
export function adapterParamSpecs(cfg: ModelConfig, lora: LoraSpec | undefined, heads: HeadsSpec = {}): ParamSpec[] {
  const pairs = loraParams(cfg, lora).flatMap((p) => [p.a, p.b]);
  // as emit.ts: any adapter slot (rank > 0) carries the delta where there is a value head
  return lora && lora.rank > 0 && heads.value ? [...pairs, ...valueHeadDelta(cfg)] : pairs;
}

/** PEFT's initialisation: A ~ N(0, 1/r²)-ish (here N(0, std²)), B = 0 (and a zero value-head delta), so a fresh adapter is the identity. */
export function initLora(cfg: ModelConfig, lora: LoraSpec, seed: number, std = 0.02, heads: HeadsSpec = {}): ModelWeights {
  const rng = new Rng(seed);
  const w: ModelWeights = {};
  for (const p of loraParams(cfg, lora)) {
    const r = rng.fork(p.a.name);
    w[p.a.name] = Float32Array.from({ length: numel(p.a.shape) }, () => r.normal() * std);
    w[p.b.name] = new Float32Array(numel(p.b.shape));
  }
  if (lora.rank > 0 && heads.value) for (const d of valueHeadDelta(cfg)) w[d.name] = new Float32Array(numel(d.shape));
  return w;
}

/**
 * Whether an adapter leaves the language-model logits as the base's: every LoRA B matrix zero, so
 * W + (α/r)·B·A = W (a fresh adapter, initLora). The value-head delta does not touch the logits.
 */
export function loraLeavesLogits(adapter: ModelWeights): boolean {
  return Object.entries(adapter).every(([name, w]) => !name.endsWith('.lora_B.weight') || w.every((x) => x === 0));
}
