// A model folder in the Hugging Face layout, written by the forge and loaded by the engine:
//   <folder>/config.json            LlamaConfig (model_type "llama") + a "turnwise" section
//   <folder>/tokenizer.json         HF tokenizers format (tokenizer/hfJson.ts)
//   <folder>/tokenizer_config.json  special tokens and the chat template
//   <folder>/model.safetensors      fp32 weights, HF names and [out, in] layout (graphs are rebuilt from them)
//   <folder>/onnx/…                 optional exported graphs, and any other extra files
//   <folder>/adapter/…              optional: a LoRA adapter in PEFT's layout (adapter_config.json,
//                                   adapter_model.safetensors) that the engine makes the model's active
//                                   adapter; the model without it is the reference (the forged critic's
//                                   SWEET-RL adapter, forge/critic.ts)
// and manifest.json beside the folders (manifest.ts) with every file's size and sha256. Reading and
// writing go through pluggable byte functions, so Node (fs) and browsers (fetch) share this code.
import type { ModelMeta } from '../meta.ts';
import { ModelFileError, parseManifest, readVerified, sha256Hex, type ManifestModel, type ModelManifest, type ReadBytes } from '../manifest.ts';
import { fromHfConfig, toHfConfig, type ModelConfig } from '../llama/config.ts';
import { checkWeights } from '../llama/params.ts';
import { paramSpecs, type HeadsSpec, type ModelWeights } from '../llama/weights.ts';
import { readSafetensors, writeSafetensors } from '../safetensors.ts';
import { parseTokenizerJson, serializeTokenizer, tokenizerConfigJson } from '../tokenizer/hfJson.ts';
import type { Tokenizer } from '../tokenizer/tokenizer.ts';

/** Writes bytes at a path relative to the models root, creating folders as needed. */
export type WriteBytes = (path: string, bytes: Uint8Array) => Promise<void>;

/** Everything a model folder holds. */
export interface ModelFolderContent {
  config: ModelConfig;
  tokenizer: Tokenizer;
  weights: ModelWeights;
  /** Value head present (critic). Inferred from the weights when loading. */
  heads?: HeadsSpec;
  /** Our own fields in config.json's "turnwise" section (model/meta.ts: window, reply budget, forged tasks, figures). */
  turnwise?: ModelMeta;
  /** Extra files by path inside the folder, e.g. { 'onnx/decoder_q4.onnx': bytes }. */
  files?: Record<string, Uint8Array>;
}

/** A loaded, verified model folder. */
export interface LoadedModel extends ModelFolderContent {
  heads: HeadsSpec;
  files: Record<string, Uint8Array>;
}

export const CONFIG_FILE = 'config.json';
export const TOKENIZER_FILE = 'tokenizer.json';
export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';
export const WEIGHTS_FILE = 'model.safetensors';
/** The shipped adapter's PEFT files inside a model folder (read by bridge/peft.ts shippedAdapter). */
export const SHIPPED_ADAPTER_FILES = ['adapter/adapter_config.json', 'adapter/adapter_model.safetensors'] as const;
const REQUIRED = [CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE];

const json = (o: unknown) => new TextEncoder().encode(JSON.stringify(o, null, 2) + '\n');

/** The bytes of every file of a folder, by path inside it. */
export function folderFiles(content: ModelFolderContent): Record<string, Uint8Array> {
  const { config, tokenizer, weights, heads = {} } = content;
  if (tokenizer.vocabSize !== config.vocabSize) {
    throw new ModelFileError('corrupt', TOKENIZER_FILE, `tokenizer has ${tokenizer.vocabSize} tokens but the config says vocab_size ${config.vocabSize}`);
  }
  const specs = paramSpecs(config, heads);
  checkWeights(weights, specs);
  const tensors = Object.fromEntries(specs.map((s) => [s.name, { shape: s.shape, data: weights[s.name] }]));
  const ids = { bos: tokenizer.special.bos, eos: tokenizer.special.end, pad: tokenizer.special.pad };
  return {
    [CONFIG_FILE]: json(toHfConfig(config, ids, content.turnwise)),
    [TOKENIZER_FILE]: new TextEncoder().encode(serializeTokenizer(tokenizer)),
    [TOKENIZER_CONFIG_FILE]: json(tokenizerConfigJson(config.maxSeq)),
    [WEIGHTS_FILE]: writeSafetensors(tensors, { format: 'pt' }),
    ...(content.files ?? {}),
  };
}

/** Writes `<folder>/…` and returns its manifest entry (paths relative to the models root). */
export async function writeModelFolder(write: WriteBytes, folder: string, content: ModelFolderContent): Promise<ManifestModel> {
  const files = folderFiles(content);
  const entries = [];
  for (const name of Object.keys(files).sort()) {
    const path = `${folder}/${name}`;
    await write(path, files[name]);
    entries.push({ path, bytes: files[name].length, sha256: await sha256Hex(files[name]) });
  }
  return { folder, files: entries };
}

/** Writes manifest.json at the models root. */
export async function writeManifest(
  write: WriteBytes,
  models: Record<string, ManifestModel>,
  forge?: ModelManifest['forge'],
  path = 'manifest.json',
): Promise<ModelManifest> {
  const manifest: ModelManifest = { version: 1, ...(forge ? { forge } : {}), models };
  await write(path, json(manifest));
  return manifest;
}

/** Parses a folder's files (already read) into a model; `folder` prefixes paths in errors. */
export function parseModelFolder(files: Record<string, Uint8Array>, folder: string): LoadedModel {
  const text = (name: string) => new TextDecoder().decode(files[name]);
  const at = (name: string) => `${folder}/${name}`;
  for (const name of REQUIRED) if (!files[name]) throw new ModelFileError('missing', at(name), `model file ${at(name)} is missing`);
  let raw: unknown;
  try {
    raw = JSON.parse(text(CONFIG_FILE));
  } catch (e) {
    throw new ModelFileError('corrupt', at(CONFIG_FILE), `${at(CONFIG_FILE)} is not valid JSON (${(e as Error).message})`);
  }
  const wrap = <T>(name: string, fn: () => T): T => {
    try {
      return fn();
    } catch (e) {
      if ((e as Error).name === 'ModelFileError') throw e;
      throw new ModelFileError('corrupt', at(name), `${at(name)}: ${(e as Error).message}`);
    }
  };
  const { config, turnwise } = wrap(CONFIG_FILE, () => fromHfConfig(raw, at(CONFIG_FILE)));
  const tokenizer = wrap(TOKENIZER_FILE, () => parseTokenizerJson(text(TOKENIZER_FILE), at(TOKENIZER_FILE)));
  if (tokenizer.vocabSize !== config.vocabSize) {
    throw new ModelFileError(
      'corrupt',
      at(TOKENIZER_FILE),
      `${at(TOKENIZER_FILE)} has ${tokenizer.vocabSize} tokens but ${at(CONFIG_FILE)} says vocab_size ${config.vocabSize}`,
    );
  }
  const { tensors } = wrap(WEIGHTS_FILE, () => readSafetensors(files[WEIGHTS_FILE], at(WEIGHTS_FILE)));
  const heads: HeadsSpec = { value: 'v_head.summary.weight' in tensors };
  const weights: ModelWeights = {};
  for (const [name, t] of Object.entries(tensors)) if (t.data instanceof Float32Array) weights[name] = t.data;
  wrap(WEIGHTS_FILE, () => checkWeights(weights, paramSpecs(config, heads)));
  const [adapterConfig, adapterWeights] = SHIPPED_ADAPTER_FILES.map((f) => files[f]);
  if (!adapterConfig !== !adapterWeights)
    throw new ModelFileError('missing', at(SHIPPED_ADAPTER_FILES[adapterConfig ? 1 : 0]), `${at('adapter')} needs both ${SHIPPED_ADAPTER_FILES.join(' and ')}`);
  return { config, tokenizer, weights, heads, ...(turnwise ? { turnwise } : {}), files };
}

/**
 * Loads model `name` listed in the manifest at `manifestPath`, verifying every listed file's size and
 * sha256 first. Missing or corrupt files raise ModelFileError naming the path.
 */
export async function loadModel(read: ReadBytes, name: string, manifestPath = 'manifest.json'): Promise<LoadedModel> {
  const mbytes = await read(manifestPath);
  if (!mbytes) throw new ModelFileError('missing', manifestPath, `model manifest ${manifestPath} is missing`);
  const manifest = parseManifest(new TextDecoder().decode(mbytes), manifestPath);
  const entry = manifest.models[name];
  if (!entry)
    throw new ModelFileError(
      'bad-manifest',
      manifestPath,
      `${manifestPath} lists no model "${name}" (it has ${Object.keys(manifest.models).join(', ') || 'none'})`,
    );
  const prefix = entry.folder.replace(/\/$/, '') + '/';
  for (const req of REQUIRED) {
    if (!entry.files.some((f) => f.path === prefix + req))
      throw new ModelFileError('missing', prefix + req, `model file ${prefix + req} is not listed in ${manifestPath}`);
  }
  const files: Record<string, Uint8Array> = {};
  for (const f of entry.files) {
    const bytes = await readVerified(read, f);
    files[f.path.startsWith(prefix) ? f.path.slice(prefix.length) : f.path] = bytes;
  }
  return parseModelFolder(files, entry.folder);
}

/** Loads a Hugging Face-layout folder with no manifest (another model, e.g. one a user supplies): no sha256 check. */
export async function loadModelFolderUnverified(read: ReadBytes, folder: string): Promise<LoadedModel> {
  const files: Record<string, Uint8Array> = {};
  for (const name of [...REQUIRED, TOKENIZER_CONFIG_FILE, ...SHIPPED_ADAPTER_FILES]) {
    const bytes = await read(`${folder}/${name}`);
    if (bytes) files[name] = bytes;
  }
  return parseModelFolder(files, folder);
}
