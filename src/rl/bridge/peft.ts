// LoRA adapters in Hugging Face PEFT's on-disk layout (https://huggingface.co/docs/peft), both ways:
//   adapter_model.safetensors  base_model.model.model.layers.{l}.self_attn.q_proj.lora_A.weight [r, in]
//                              base_model.model.model.layers.{l}.self_attn.q_proj.lora_B.weight [out, r]
//                              (mlp.{gate,up,down}_proj likewise), float32
//   adapter_config.json        peft_type LORA, task_type CAUSAL_LM, r, lora_alpha, target_modules,
//                              base_model_name_or_path, …
// The update is W + (α/r)·B·A (Hu et al. 2021, arXiv 2106.09685); with use_rslora PEFT scales by α/√r
// instead, which import turns into the equivalent α' = α·√r. Inside Turnwise an adapter is a LoraSpec
// plus PEFT names without the `base_model.model.` prefix (model/llama/weights.ts loraParams), the shape
// the engine's adapter slot and the trainer use; this module is the one place that converts.
import { headDim, type ModelConfig } from '../model/llama/config.ts';
import { ALL_LORA_TARGETS, loraParams, numel, type LoraSpec, type LoraTarget, type ModelWeights } from '../model/llama/weights.ts';
import { writeSafetensors } from '../model/safetensors.ts';
import { readSafetensorsWidened } from './halfFloat.ts';
import { SHIPPED_ADAPTER_FILES, type LoadedModel } from '../model/folder/folder.ts';

/** PEFT prefixes every key of a causal-LM adapter with this (PeftModel → LoraModel → the base). */
export const PEFT_PREFIX = 'base_model.model.';
export const ADAPTER_WEIGHTS_FILE = 'adapter_model.safetensors';
export const ADAPTER_CONFIG_FILE = 'adapter_config.json';

/** A LoRA adapter as the engine and trainer hold it (structurally the engine's `Adapter`). */
export interface LoraAdapter {
  spec: LoraSpec;
  /** PEFT names without `base_model.model.`, e.g. `model.layers.0.self_attn.q_proj.lora_A.weight`. */
  weights: ModelWeights;
}

export type PeftErrorCode =
  'bad-config' | 'unsupported' | 'unknown-target' | 'missing-tensor' | 'unexpected-tensor' | 'shape-mismatch' | 'non-finite' | 'bad-weights';

/** An adapter that cannot be exported, or a PEFT folder that does not fit the base model. `file` names the file. */
export class PeftError extends Error {
  constructor(
    readonly code: PeftErrorCode,
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = 'PeftError';
  }
}

/**
 * The adapter_config.json fields of a LoRA adapter. No extra keys: older PEFT releases reject
 * unknown ones, so Turnwise's provenance goes into the safetensors metadata instead.
 */
export interface PeftLoraConfig {
  peft_type: 'LORA';
  task_type: 'CAUSAL_LM';
  base_model_name_or_path: string;
  revision: string | null;
  r: number;
  lora_alpha: number;
  lora_dropout: number;
  target_modules: string[];
  bias: 'none';
  fan_in_fan_out: false;
  inference_mode: boolean;
  init_lora_weights: true;
  layers_to_transform: null;
  layers_pattern: null;
  rank_pattern: Record<string, never>;
  alpha_pattern: Record<string, never>;
  modules_to_save: null;
  use_rslora: false;
  use_dora: false;
}

/** What the exported adapter_config.json says beyond rank, α and targets. */
export interface PeftExportOptions {
  /** base_model_name_or_path: a Hub id or a path where the exported base will be (AutoPeftModel reads it). */
  baseModel: string;
  /** lora_dropout to train on with (not used at inference); default 0. */
  dropout?: number;
  /** Provenance stored in the safetensors metadata as strings (adapter id, run id, …). */
  metadata?: Record<string, string>;
}

const json = (o: unknown) => new TextEncoder().encode(JSON.stringify(o, null, 2) + '\n');

/** adapter_config.json for `spec`. */
export function peftAdapterConfig(spec: LoraSpec, opts: PeftExportOptions): PeftLoraConfig {
  return {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: opts.baseModel,
    revision: null,
    r: spec.rank,
    lora_alpha: spec.alpha,
    lora_dropout: opts.dropout ?? 0,
    target_modules: [...spec.targets],
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    layers_to_transform: null,
    layers_pattern: null,
    rank_pattern: {},
    alpha_pattern: {},
    modules_to_save: null,
    use_rslora: false,
    use_dora: false,
  };
}

/** Every key an exported adapter_model.safetensors holds for `spec` on `cfg`, sorted. */
export function expectedPeftKeys(cfg: ModelConfig, spec: LoraSpec): string[] {
  return loraParams(cfg, spec)
    .flatMap((p) => [p.a.name, p.b.name])
    .map((n) => PEFT_PREFIX + n)
    .sort();
}

/** The two files of a PEFT adapter folder, by file name. Throws PeftError on missing or mis-shaped matrices. */
export function exportPeftAdapter(cfg: ModelConfig, adapter: LoraAdapter, opts: PeftExportOptions): Record<string, Uint8Array> {
  const { spec } = adapter;
  if (!Number.isInteger(spec.rank) || spec.rank < 1)
    throw new PeftError('bad-config', ADAPTER_CONFIG_FILE, `adapter rank must be a positive integer, got ${spec.rank}`);
  if (!(spec.alpha > 0) || !Number.isFinite(spec.alpha))
    throw new PeftError('bad-config', ADAPTER_CONFIG_FILE, `adapter alpha must be a positive number, got ${spec.alpha}`);
  const tensors: Record<string, { shape: number[]; data: Float32Array }> = {};
  for (const p of loraParams(cfg, spec)) {
    for (const s of [p.a, p.b]) {
      const w = adapter.weights[s.name];
      if (!w) throw new PeftError('missing-tensor', ADAPTER_WEIGHTS_FILE, `adapter matrix ${s.name} is missing`);
      if (w.length !== numel(s.shape))
        throw new PeftError('shape-mismatch', ADAPTER_WEIGHTS_FILE, `adapter matrix ${s.name} has ${w.length} values, expected [${s.shape.join(', ')}]`);
      tensors[PEFT_PREFIX + s.name] = { shape: s.shape, data: w };
    }
  }
  return {
    [ADAPTER_CONFIG_FILE]: json(peftAdapterConfig(spec, opts)),
    [ADAPTER_WEIGHTS_FILE]: writeSafetensors(tensors, { format: 'pt', ...(opts.metadata ?? {}) }),
  };
}

// ---- import -------------------------------------------------------------------------------------

type RawConfig = Record<string, unknown>;

const isEmpty = (v: unknown) =>
  v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && Object.keys(v).length === 0);

/** Our projection named by a PEFT target_modules entry ("q_proj", "self_attn.q_proj", "model.layers.0.mlp.up_proj"). */
function targetOf(entry: string): LoraTarget | undefined {
  return ALL_LORA_TARGETS.find((t) => entry === t || entry.endsWith(`.${t}`));
}

/** The LoraSpec an adapter_config.json describes, and the layers it touches (null: all). */
export function specFromPeftConfig(raw: unknown, cfg: ModelConfig, where = ADAPTER_CONFIG_FILE): { spec: LoraSpec; layers: Set<number> | null } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new PeftError('bad-config', where, `${where} is not a JSON object`);
  const c = raw as RawConfig;
  if (c.peft_type !== 'LORA')
    throw new PeftError('unsupported', where, `${where}: peft_type is ${JSON.stringify(c.peft_type)}; only LORA adapters load into Turnwise`);
  if (c.task_type !== undefined && c.task_type !== null && c.task_type !== 'CAUSAL_LM') {
    throw new PeftError('unsupported', where, `${where}: task_type ${JSON.stringify(c.task_type)} is not CAUSAL_LM`);
  }
  const r = c.r;
  if (typeof r !== 'number' || !Number.isInteger(r) || r < 1)
    throw new PeftError('bad-config', where, `${where}: r must be a positive integer, got ${JSON.stringify(r)}`);
  const alphaRaw = c.lora_alpha ?? 8; // PEFT's default lora_alpha
  if (typeof alphaRaw !== 'number' || !(alphaRaw > 0) || !Number.isFinite(alphaRaw))
    throw new PeftError('bad-config', where, `${where}: lora_alpha must be a positive number, got ${JSON.stringify(c.lora_alpha)}`);
  if (c.use_dora === true) throw new PeftError('unsupported', where, `${where}: use_dora is set; DoRA adapters are not supported (plain LoRA only)`);
  if (c.bias !== undefined && c.bias !== 'none')
    throw new PeftError('unsupported', where, `${where}: bias "${String(c.bias)}" adds trained biases; only bias "none" is supported`);
  if (c.fan_in_fan_out === true) throw new PeftError('unsupported', where, `${where}: fan_in_fan_out is set (Conv1D layouts); Llama projections are nn.Linear`);
  if (!isEmpty(c.modules_to_save))
    throw new PeftError(
      'unsupported',
      where,
      `${where}: modules_to_save ${JSON.stringify(c.modules_to_save)} trains whole modules; only LoRA matrices are supported`,
    );
  if (!isEmpty(c.rank_pattern) || !isEmpty(c.alpha_pattern))
    throw new PeftError('unsupported', where, `${where}: rank_pattern/alpha_pattern give layers different ranks; one rank for all layers is supported`);
  if (!isEmpty(c.layers_pattern)) throw new PeftError('unsupported', where, `${where}: layers_pattern is set; use layers_to_transform or none`);

  const tm = c.target_modules;
  let targets: LoraTarget[];
  if (tm === 'all-linear') targets = [...ALL_LORA_TARGETS];
  else if (Array.isArray(tm) && tm.length > 0 && tm.every((t) => typeof t === 'string')) {
    const found = new Set<LoraTarget>();
    for (const entry of tm as string[]) {
      const t = targetOf(entry);
      if (!t) {
        const why = /lm_head|embed_tokens/.test(entry) ? ' (adapters on the embedding or LM head are not supported)' : '';
        throw new PeftError('unknown-target', where, `${where}: target module "${entry}" is not one of ${ALL_LORA_TARGETS.join(', ')}${why}`);
      }
      found.add(t);
    }
    targets = ALL_LORA_TARGETS.filter((t) => found.has(t));
  } else {
    throw new PeftError('unsupported', where, `${where}: target_modules must be a list of projection names or "all-linear", got ${JSON.stringify(tm)}`);
  }

  let layers: Set<number> | null = null;
  const ltt = c.layers_to_transform;
  if (ltt !== undefined && ltt !== null) {
    const list = typeof ltt === 'number' ? [ltt] : ltt;
    if (!Array.isArray(list) || !list.every((l) => Number.isInteger(l) && l >= 0 && l < cfg.nLayers)) {
      throw new PeftError('bad-config', where, `${where}: layers_to_transform ${JSON.stringify(ltt)} must name layers 0 … ${cfg.nLayers - 1}`);
    }
    layers = new Set(list as number[]);
  }
  // rsLoRA scales by α/√r; α' = α·√r gives the same α'/r.
  const alpha = c.use_rslora === true ? alphaRaw * Math.sqrt(r) : alphaRaw;
  return { spec: { rank: r, alpha, targets }, layers };
}

/** The bytes of a PEFT adapter folder: adapter_config.json (bytes or parsed) and adapter_model.safetensors. */
export interface PeftFiles {
  config: Uint8Array | string | RawConfig;
  weights: Uint8Array;
  /** Folder path, named in errors. */
  folder?: string;
}

/**
 * Loads a PEFT LoRA adapter for base model `cfg`. Layers outside layers_to_transform get zero
 * matrices (B = 0 leaves them exactly the base). F16/BF16 tensors are widened to float32. Throws
 * PeftError naming the file and the offending key or field when the adapter does not fit the base.
 */
export function importPeftAdapter(cfg: ModelConfig, files: PeftFiles): LoraAdapter {
  const dir = files.folder ? `${files.folder.replace(/\/$/, '')}/` : '';
  const cfgFile = dir + ADAPTER_CONFIG_FILE;
  const wFile = dir + ADAPTER_WEIGHTS_FILE;
  let raw: unknown = files.config;
  if (typeof raw === 'string' || raw instanceof Uint8Array) {
    const text = typeof raw === 'string' ? raw : new TextDecoder().decode(raw);
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new PeftError('bad-config', cfgFile, `${cfgFile} is not valid JSON (${(e as Error).message})`);
    }
  }
  const { spec, layers } = specFromPeftConfig(raw, cfg, cfgFile);
  let tensors;
  try {
    tensors = readSafetensorsWidened(files.weights, wFile).tensors;
  } catch (e) {
    throw new PeftError('bad-weights', wFile, (e as Error).message);
  }
  // Strip the prefix; PEFT builds before 0.7 could leave the adapter name in (`lora_A.default.weight`).
  const byName = new Map<string, { shape: number[]; data: Float32Array; key: string }>();
  for (const [key, t] of Object.entries(tensors)) {
    const name = (key.startsWith(PEFT_PREFIX) ? key.slice(PEFT_PREFIX.length) : key).replace(/\.(lora_[AB])\.default\.weight$/, '.$1.weight');
    const data = t.data instanceof Float32Array ? t.data : t.data instanceof Float64Array ? Float32Array.from(t.data) : null;
    if (!data) throw new PeftError('bad-weights', wFile, `${wFile}: tensor ${key} has dtype ${t.dtype}; adapters must hold floats`);
    byName.set(name, { shape: t.shape, data, key });
  }
  const weights: ModelWeights = {};
  const hd = headDim(cfg);
  for (const p of loraParams(cfg, spec)) {
    const touched = layers === null || layers.has(p.layer);
    for (const s of [p.a, p.b]) {
      const t = byName.get(s.name);
      byName.delete(s.name);
      if (!t) {
        if (touched) throw new PeftError('missing-tensor', wFile, `${wFile}: ${PEFT_PREFIX}${s.name} is missing (target_modules lists ${p.target})`);
        weights[s.name] = new Float32Array(numel(s.shape));
        continue;
      }
      if (t.shape.length !== 2 || t.shape[0] !== s.shape[0] || t.shape[1] !== s.shape[1]) {
        throw new PeftError(
          'shape-mismatch',
          wFile,
          `${wFile}: ${t.key} has shape [${t.shape.join(', ')}] but r = ${spec.rank} on this base (hidden ${cfg.dModel}, intermediate ${cfg.dFf}, ${cfg.nKvHeads}×${hd} kv) needs [${s.shape.join(', ')}]`,
        );
      }
      const bad = t.data.findIndex((x) => !Number.isFinite(x));
      if (bad >= 0) throw new PeftError('non-finite', wFile, `${wFile}: ${t.key} holds a non-finite value at index ${bad}`);
      weights[s.name] = t.data;
    }
  }
  if (byName.size) {
    const extra = [...byName.values()].map((t) => t.key);
    throw new PeftError(
      'unexpected-tensor',
      wFile,
      `${wFile}: ${extra.length} tensor(s) match no target of this base: ${extra.slice(0, 4).join(', ')}${extra.length > 4 ? ', …' : ''}`,
    );
  }
  return { spec, weights };
}

/** A model folder's files shipping `adapter` in adapter/ (SHIPPED_ADAPTER_FILES), as shippedAdapter reads them back. */
export function shippedAdapterFiles(cfg: ModelConfig, adapter: LoraAdapter, opts: PeftExportOptions): Record<string, Uint8Array> {
  const peft = exportPeftAdapter(cfg, adapter, opts);
  return { [SHIPPED_ADAPTER_FILES[0]]: peft[ADAPTER_CONFIG_FILE], [SHIPPED_ADAPTER_FILES[1]]: peft[ADAPTER_WEIGHTS_FILE] };
}

/**
 * The adapter a model folder ships in adapter/ (model/folder/folder.ts), or undefined: the forged
 * critic's SWEET-RL adapter (forge/critic.ts). The engine registers it and makes it the model's
 * active adapter; the model without it is the reference. Throws PeftError when it does not fit.
 */
export function shippedAdapter(model: Pick<LoadedModel, 'config' | 'files'>): LoraAdapter | undefined {
  const [config, weights] = SHIPPED_ADAPTER_FILES.map((f) => model.files[f]);
  if (!config || !weights) return undefined;
  return importPeftAdapter(model.config, { config, weights, folder: 'adapter' });
}
