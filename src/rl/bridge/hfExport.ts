// A self-contained Hugging Face folder for a Turnwise model (and optionally one LoRA adapter), the
// hand-off from the lab to transformers + PEFT, TRL and veRL:
//   config.json                LlamaConfig (model_type llama, rope_theta, rms_norm_eps, tie_word_embeddings, ids)
//   generation_config.json     bos/eos/pad ids and the engine's sampling defaults
//   model.safetensors          HF Llama tensor names, [out, in], F32 (model/folder/folder.ts writes it)
//   tokenizer.json, tokenizer_config.json (chat_template), special_tokens_map.json
//   adapter/adapter_model.safetensors, adapter/adapter_config.json   PEFT LoRA (peft.ts), if given
//   turnwise_check.json        sample episode ids + reference logits (check.ts)
//   onnx/…                     the lab's own graphs, copied when the source folder has them
//   README.md                  model card (modelCard.ts)
// The base files are exactly what writeModelFolder writes (folderFiles), so the lab can load the
// export back with loadModelFolderUnverified; this module adds only what the Python stacks also want.
import { folderFiles, type LoadedModel } from '../model/folder/folder.ts';
import type { ModelConfig } from '../model/llama/config.ts';
import { blocksQuant4, paramSource, quantisedWeights } from '../model/llama/params.ts';
import { paramSpecs, type HeadsSpec, type ModelWeights } from '../model/llama/weights.ts';
import { SPECIAL_TOKENS, type Tokenizer } from '../model/tokenizer/tokenizer.ts';
import { buildLogitsCheck, CHECK_FILE } from './check.ts';
import { modelCard } from './modelCard.ts';
import { exportPeftAdapter, type LoraAdapter } from './peft.ts';

const GENERATION_CONFIG_FILE = 'generation_config.json';
const SPECIAL_TOKENS_MAP_FILE = 'special_tokens_map.json';
export const README_FILE = 'README.md';
export const ADAPTER_DIR = 'adapter';

/** What to export. */
export interface HfExportOptions {
  /** The base model as loaded (loadModel / loadModelFolderUnverified). */
  model: LoadedModel;
  /** Its name in the card and in adapter_config.json's base_model_name_or_path (default "turnwise-policy"). */
  name?: string;
  /** base_model_name_or_path written into adapter_config.json (a Hub id or the folder's path). Default `name`. */
  baseRef?: string;
  /** One LoRA adapter and its id, written to adapter/. */
  adapter?: LoraAdapter & { id: string };
  /** 'master': the fp32 weights the forge/trainer keep (default); 'engine': the 4-bit values the lab's ONNX graphs compute with, as fp32. */
  weights?: 'master' | 'engine';
  /** Copy onnx/… and other extra files of the source folder (default true). */
  includeOnnx?: boolean;
  /** generation_config max_new_tokens; default config.json's turnwise.maxReplyTokens, else 64. */
  maxNewTokens?: number;
  /** Command line recorded in the card. */
  command?: string;
}

const json = (o: unknown) => new TextEncoder().encode(JSON.stringify(o, null, 2) + '\n');

/** Every tensor name model.safetensors holds for `cfg` (Hugging Face LlamaForCausalLM state-dict keys), sorted. */
export function expectedLlamaKeys(cfg: ModelConfig, heads: HeadsSpec = {}): string[] {
  return paramSpecs(cfg, heads)
    .map((s) => s.name)
    .sort();
}

/** generation_config.json: the special ids and the engine's default sampling (temperature 1, no top-k/top-p). */
export function generationConfigJson(tok: Tokenizer, maxNewTokens = 64): Record<string, unknown> {
  return {
    _from_model_config: false,
    bos_token_id: tok.special.bos,
    eos_token_id: tok.special.end,
    pad_token_id: tok.special.pad,
    do_sample: true,
    temperature: 1.0,
    top_k: 0,
    top_p: 1.0,
    max_new_tokens: maxNewTokens,
  };
}

/** special_tokens_map.json (older transformers read the specials from here rather than tokenizer_config.json). */
export function specialTokensMapJson(): Record<string, unknown> {
  const tok = (content: string) => ({ content, lstrip: false, normalized: false, rstrip: false, single_word: false });
  return {
    bos_token: tok('<|bos|>'),
    eos_token: tok('<|end|>'),
    pad_token: tok('<|pad|>'),
    additional_special_tokens: SPECIAL_TOKENS.slice(3).map(tok),
  };
}

/** The weights the export writes: master fp32, or the 4-bit-rounded values the shipped graphs compute with. */
export function exportWeights(model: LoadedModel, kind: 'master' | 'engine'): ModelWeights {
  if (kind === 'master') return model.weights;
  return quantisedWeights(paramSource(model.weights, blocksQuant4), paramSpecs(model.config, model.heads));
}

/** All files of the export folder, by path inside it. */
export function hfExportFiles(opts: HfExportOptions): Record<string, Uint8Array> {
  const { model } = opts;
  const name = opts.name ?? 'turnwise-policy';
  const kind = opts.weights ?? 'master';
  const weights = exportWeights(model, kind);
  const extra = opts.includeOnnx === false ? {} : Object.fromEntries(Object.entries(model.files).filter(([p]) => p.startsWith('onnx/')));
  const base = folderFiles({
    config: model.config,
    tokenizer: model.tokenizer,
    weights,
    heads: model.heads,
    turnwise: { ...(model.turnwise ?? {}), export: { weights: kind, name } },
    files: extra,
  });
  const files: Record<string, Uint8Array> = {
    ...base,
    [GENERATION_CONFIG_FILE]: json(generationConfigJson(model.tokenizer, opts.maxNewTokens ?? model.turnwise?.maxReplyTokens)),
    [SPECIAL_TOKENS_MAP_FILE]: json(specialTokensMapJson()),
  };
  if (opts.adapter) {
    const peft = exportPeftAdapter(model.config, opts.adapter, {
      baseModel: opts.baseRef ?? name,
      metadata: { turnwise_adapter_id: opts.adapter.id, turnwise_base: name },
    });
    for (const [f, bytes] of Object.entries(peft)) files[`${ADAPTER_DIR}/${f}`] = bytes;
  }
  const check = buildLogitsCheck(model.config, model.tokenizer, weights, kind, opts.adapter);
  files[CHECK_FILE] = json(check);
  files[README_FILE] = new TextEncoder().encode(
    modelCard({
      name,
      config: model.config,
      heads: model.heads,
      weights: kind,
      adapter: opts.adapter ? { id: opts.adapter.id, spec: opts.adapter.spec } : undefined,
      turnwise: model.turnwise,
      command: opts.command,
      files: Object.keys(files),
    }),
  );
  return files;
}
