// The one model definition's configuration: a Llama-style decoder (Touvron et al. 2023, arXiv
// 2302.13971: RMSNorm, rotary positions, SwiGLU; grouped-query attention from Ainslie et al. 2023).
// Validated once where it enters (docs/style.md point 3); derived sizes are computed here only.
// `toHfConfig`/`fromHfConfig` map it to and from Hugging Face's LlamaConfig (config.json).
import type { ModelMeta } from '../meta.ts';
import { QUANT_BLOCK } from '../quant.ts';
import { isPlainObject } from '../../util/json.ts';

/** The architecture of a Turnwise decoder. */
export interface ModelConfig {
  /** Tokens in the vocabulary (rows of the embedding). */
  vocabSize: number;
  /** Width of the residual stream (hidden_size). */
  dModel: number;
  /** Decoder blocks. */
  nLayers: number;
  /** Query heads; must divide dModel. */
  nHeads: number;
  /** Key/value heads (grouped-query attention); must divide nHeads. Equal to nHeads for plain MHA. */
  nKvHeads: number;
  /** Hidden width of the SwiGLU MLP (intermediate_size). */
  dFf: number;
  /** Longest sequence (positions 0 … maxSeq − 1); the RoPE tables have this many rows. */
  maxSeq: number;
  /** RoPE base θ. */
  ropeTheta: number;
  /** ε inside RMSNorm's square root. */
  normEps: number;
  /** The LM head reuses the embedding matrix (tie_word_embeddings). */
  tieEmbeddings: boolean;
}

/** What callers may leave out; `validateConfig` fills the defaults. */
export type ModelConfigInput = Omit<ModelConfig, 'nKvHeads' | 'ropeTheta' | 'normEps' | 'tieEmbeddings'> &
  Partial<Pick<ModelConfig, 'nKvHeads' | 'ropeTheta' | 'normEps' | 'tieEmbeddings'>>;

export type ConfigErrorCode =
  'not-positive-int' | 'heads-divide-width' | 'kv-heads-divide-heads' | 'odd-head-dim' | 'bad-number' | 'not-quantisable' | 'bad-hf-config';

/** A configuration that cannot build a model. `field` names the offending field. */
export class ConfigError extends Error {
  constructor(
    readonly code: ConfigErrorCode,
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Checks every field and returns a complete, frozen config. */
export function validateConfig(input: ModelConfigInput): ModelConfig {
  const cfg: ModelConfig = {
    nKvHeads: input.nHeads,
    ropeTheta: 10000,
    normEps: 1e-5,
    tieEmbeddings: true,
    ...input,
  };
  for (const field of ['vocabSize', 'dModel', 'nLayers', 'nHeads', 'nKvHeads', 'dFf', 'maxSeq'] as const) {
    const v = cfg[field];
    if (!Number.isInteger(v) || v <= 0) throw new ConfigError('not-positive-int', field, `model config: ${field} must be a positive integer, got ${v}`);
  }
  if (cfg.dModel % cfg.nHeads !== 0) {
    throw new ConfigError('heads-divide-width', 'nHeads', `model config: nHeads ${cfg.nHeads} does not divide dModel ${cfg.dModel}`);
  }
  if (cfg.nHeads % cfg.nKvHeads !== 0) {
    throw new ConfigError('kv-heads-divide-heads', 'nKvHeads', `model config: nKvHeads ${cfg.nKvHeads} does not divide nHeads ${cfg.nHeads}`);
  }
  if ((cfg.dModel / cfg.nHeads) % 2 !== 0) {
    throw new ConfigError('odd-head-dim', 'nHeads', `model config: head dimension ${cfg.dModel / cfg.nHeads} must be even for rotary positions`);
  }
  if (!(cfg.ropeTheta > 1) || !Number.isFinite(cfg.ropeTheta))
    throw new ConfigError('bad-number', 'ropeTheta', `model config: ropeTheta must be > 1, got ${cfg.ropeTheta}`);
  if (!(cfg.normEps > 0) || !Number.isFinite(cfg.normEps))
    throw new ConfigError('bad-number', 'normEps', `model config: normEps must be > 0, got ${cfg.normEps}`);
  if (typeof cfg.tieEmbeddings !== 'boolean') throw new ConfigError('bad-number', 'tieEmbeddings', 'model config: tieEmbeddings must be a boolean');
  return Object.freeze(cfg);
}

/** Width of one attention head. */
export function headDim(cfg: ModelConfig): number {
  return cfg.dModel / cfg.nHeads;
}

/** Throws unless every linear layer's input width is a multiple of the 4-bit block (32). */
export function assertQuantisable(cfg: ModelConfig): void {
  for (const [field, k] of [
    ['dModel', cfg.dModel],
    ['dFf', cfg.dFf],
  ] as const) {
    if (k % QUANT_BLOCK !== 0) {
      throw new ConfigError(
        'not-quantisable',
        field,
        `model config: ${field} ${k} is not a multiple of ${QUANT_BLOCK}, so it cannot be stored as 4-bit blocks`,
      );
    }
  }
}

/** Hugging Face LlamaConfig fields (config.json), plus our own section. */
export interface HfLlamaConfig {
  architectures: string[];
  model_type: 'llama';
  vocab_size: number;
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  head_dim: number;
  hidden_act: 'silu';
  max_position_embeddings: number;
  rms_norm_eps: number;
  rope_theta: number;
  tie_word_embeddings: boolean;
  attention_bias: false;
  mlp_bias: false;
  torch_dtype: 'float32';
  bos_token_id: number;
  eos_token_id: number;
  pad_token_id: number;
  /** Turnwise's own fields, ignored by transformers (model/meta.ts). */
  turnwise?: ModelMeta;
}

/** Special token ids written beside the architecture. */
export interface HfSpecialIds {
  bos: number;
  eos: number;
  pad: number;
}

export function toHfConfig(cfg: ModelConfig, ids: HfSpecialIds, turnwise?: ModelMeta): HfLlamaConfig {
  return {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    vocab_size: cfg.vocabSize,
    hidden_size: cfg.dModel,
    intermediate_size: cfg.dFf,
    num_hidden_layers: cfg.nLayers,
    num_attention_heads: cfg.nHeads,
    num_key_value_heads: cfg.nKvHeads,
    head_dim: headDim(cfg),
    hidden_act: 'silu',
    max_position_embeddings: cfg.maxSeq,
    rms_norm_eps: cfg.normEps,
    rope_theta: cfg.ropeTheta,
    tie_word_embeddings: cfg.tieEmbeddings,
    attention_bias: false,
    mlp_bias: false,
    torch_dtype: 'float32',
    bos_token_id: ids.bos,
    eos_token_id: ids.eos,
    pad_token_id: ids.pad,
    ...(turnwise ? { turnwise } : {}),
  };
}

const positiveInt = (x: unknown): boolean => Number.isInteger(x) && (x as number) > 0;

/** Checks config.json's raw "turnwise" section (model/meta.ts); `where` names the file in errors. */
export function parseModelMeta(raw: unknown, where = 'config.json'): ModelMeta {
  const bad = (field: string, what: string): never => {
    throw new ConfigError('bad-hf-config', `turnwise.${field}`, `${where}: turnwise.${field} ${what}`);
  };
  if (!isPlainObject(raw)) return bad('', 'must be an object');
  if (raw.role !== undefined && raw.role !== 'policy' && raw.role !== 'critic') bad('role', 'must be "policy" or "critic"');
  for (const f of ['contextTokens', 'maxReplyTokens'] as const) if (raw[f] !== undefined && !positiveInt(raw[f])) bad(f, 'must be a positive integer');
  if (raw.families !== undefined && !(Array.isArray(raw.families) && raw.families.every((f) => typeof f === 'string')))
    bad('families', 'must be a list of family names');
  if (raw.tasks !== undefined && !(isPlainObject(raw.tasks) && Object.values(raw.tasks).every(isPlainObject)))
    bad('tasks', 'must map family names to option objects');
  if (raw.chat !== undefined && typeof raw.chat !== 'string') bad('chat', 'must be a string');
  if (raw.keepAnswered !== undefined && typeof raw.keepAnswered !== 'boolean') bad('keepAnswered', 'must be true or false');
  return raw as ModelMeta;
}

/** Reads a Hugging Face Llama config.json object; `where` names the file in errors. */
export function fromHfConfig(raw: unknown, where = 'config.json'): { config: ModelConfig; ids: Partial<HfSpecialIds>; turnwise?: ModelMeta } {
  const o = raw as Partial<HfLlamaConfig> | null;
  if (!o || typeof o !== 'object' || o.model_type !== 'llama') {
    throw new ConfigError('bad-hf-config', 'model_type', `${where}: model_type must be "llama"`);
  }
  const act = (o as { hidden_act?: string }).hidden_act;
  if (act !== undefined && act !== 'silu') throw new ConfigError('bad-hf-config', 'hidden_act', `${where}: hidden_act ${act} is not supported (silu only)`);
  const hd = (o as { head_dim?: number }).head_dim;
  if (hd !== undefined && o.hidden_size !== undefined && o.num_attention_heads !== undefined && hd * o.num_attention_heads !== o.hidden_size) {
    throw new ConfigError('bad-hf-config', 'head_dim', `${where}: head_dim ${hd} × heads ≠ hidden_size (not supported)`);
  }
  const config = validateConfig({
    vocabSize: o.vocab_size as number,
    dModel: o.hidden_size as number,
    nLayers: o.num_hidden_layers as number,
    nHeads: o.num_attention_heads as number,
    nKvHeads: o.num_key_value_heads ?? (o.num_attention_heads as number),
    dFf: o.intermediate_size as number,
    maxSeq: o.max_position_embeddings as number,
    ropeTheta: o.rope_theta ?? 10000,
    normEps: o.rms_norm_eps ?? 1e-6,
    tieEmbeddings: o.tie_word_embeddings ?? false,
  });
  const ids: Partial<HfSpecialIds> = {};
  if (typeof o.bos_token_id === 'number') ids.bos = o.bos_token_id;
  if (typeof o.eos_token_id === 'number') ids.eos = o.eos_token_id;
  if (typeof o.pad_token_id === 'number') ids.pad = o.pad_token_id;
  return { config, ids, ...(o.turnwise !== undefined ? { turnwise: parseModelMeta(o.turnwise, where) } : {}) };
}
