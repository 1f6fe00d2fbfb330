// `turnwise export-model --out DIR [--model public/models/policy] [--adapter DIR|FILE|init:SEED[:RANK]]
//  [--weights master|engine] [--data FILE] …`: writes a self-contained Hugging Face folder (base
// weights, PEFT adapter, tokenizer, configs, logits check, README model card; src/rl/bridge/hfExport.ts)
// that transformers + PEFT, TRL and veRL load unchanged (recipes/README.md). With --data, the
// trajectories of a Turnwise JSONL file are added under data/ in every format the recipes read.
// Files are written to DIR.partial and renamed at the end, so a failed export leaves no half folder.
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError, intOption, parseOptions, report, type Command } from '../command.ts';
import { hfExportFiles } from '../../rl/bridge/hfExport.ts';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, importPeftAdapter, type LoraAdapter } from '../../rl/bridge/peft.ts';
import { loadModel, loadModelFolderUnverified, type LoadedModel } from '../../rl/model/folder/folder.ts';
import { nodeReader } from '../../rl/model/folder/nodeIo.ts';
import { ALL_LORA_TARGETS, initLora, loraParams } from '../../rl/model/llama/weights.ts';
import type { ModelConfig } from '../../rl/model/llama/config.ts';
import { parseManifest } from '../../rl/model/manifest.ts';
import { Rng } from '../../rl/util/rng.ts';
import { validateImport } from '../../rl/store/importer.ts';
import { readLines } from '../../rl/store/formats/lines.ts';
import { decodeTurnwise } from '../../rl/store/formats/turnwise.ts';
import { EXPORT_FORMATS, encodeExport, type ExportFormat } from '../../rl/store/formats/index.ts';
import type { PortableRecord } from '../../rl/store/schema.ts';

/** Loads a model folder: verified through the models root's manifest.json when it lists it, else as a plain HF folder. */
export async function loadFolder(path: string): Promise<LoadedModel> {
  const root = dirname(path);
  const folder = basename(path);
  const read = nodeReader(root);
  const mbytes = await read('manifest.json');
  if (mbytes) {
    const manifest = parseManifest(new TextDecoder().decode(mbytes), join(root, 'manifest.json'));
    const key = Object.entries(manifest.models).find(([, m]) => m.folder.replace(/\/$/, '') === folder)?.[0];
    if (key) return loadModel(read, key);
  }
  const model = await loadModelFolderUnverified(read, folder);
  try {
    for (const f of await readdir(join(path, 'onnx'))) model.files[`onnx/${f}`] = new Uint8Array(await readFile(join(path, 'onnx', f)));
  } catch {
    // no onnx/ folder: nothing to copy
  }
  return model;
}

/**
 * A pipeline-check adapter: PEFT's init for A and, unlike PEFT, a nonzero B (N(0, std²)), so the
 * adapter changes the logits and every export/import step is exercised. Not a trained adapter.
 */
export function initCheckAdapter(cfg: ModelConfig, seed: number, rank = 8, std = 0.02): LoraAdapter {
  const spec = { rank, alpha: 2 * rank, targets: ALL_LORA_TARGETS };
  const weights = initLora(cfg, spec, seed, std);
  const rng = new Rng(seed).fork('lora_B');
  for (const p of loraParams(cfg, spec)) weights[p.b.name] = weights[p.b.name].map(() => rng.normal() * std);
  return { spec, weights };
}

/** Reads --adapter: a PEFT folder, its adapter_model.safetensors, or init:SEED[:RANK]. */
async function loadAdapter(arg: string, cfg: ModelConfig): Promise<LoraAdapter & { id: string }> {
  const init = /^init:(\d+)(?::(\d+))?$/.exec(arg);
  if (init) return { id: `init-${init[1]}`, ...initCheckAdapter(cfg, Number(init[1]), init[2] ? intOption(init[2], 'adapter rank', 8, 1, 256) : 8) };
  let dir = arg;
  if (!(await stat(arg).catch(() => null))?.isDirectory()) dir = dirname(arg);
  const weights = await readFile(join(dir, ADAPTER_WEIGHTS_FILE)).catch(() => null);
  const config = await readFile(join(dir, ADAPTER_CONFIG_FILE)).catch(() => null);
  if (!weights || !config)
    throw new UsageError(`--adapter ${arg}: expected a PEFT folder with ${ADAPTER_CONFIG_FILE} and ${ADAPTER_WEIGHTS_FILE}, or init:SEED[:RANK]`);
  return { id: basename(dir), ...importPeftAdapter(cfg, { config: new Uint8Array(config), weights: new Uint8Array(weights), folder: dir }) };
}

/** The trajectory files written under data/ with --data. */
const DATA_FORMATS: ExportFormat[] = ['chat', 'dpo', 'turn-dpo', 'sweet', 'parquet'];

async function* records(file: string): AsyncGenerator<PortableRecord> {
  for await (const ev of decodeTurnwise(readLines(createReadStream(file)))) if (ev.kind === 'record') yield ev.record;
}

export const exportModel: Command = {
  name: 'export-model',
  summary: 'write a Hugging Face folder (safetensors, PEFT adapter, tokenizer, configs, model card) for transformers/TRL/veRL',
  usage: [
    'Usage: npx turnwise export-model --out DIR [--model public/models/policy] [--adapter DIR|FILE|init:SEED[:RANK]]',
    '         [--weights master|engine] [--data FILE.turnwise.jsonl] [--name NAME] [--base-ref REF] [--no-onnx] [--json]',
    '',
    '  --model     a model folder (default public/models/policy); verified by manifest.json when listed there',
    '  --adapter   a PEFT LoRA folder (adapter_config.json + adapter_model.safetensors) or that .safetensors file;',
    '              init:SEED[:RANK] makes a nonzero random adapter to check the pipeline (not a trained one)',
    "  --weights   master: the fp32 weights (default); engine: the 4-bit values the lab's graphs compute with",
    '  --data      a Turnwise JSONL trajectory file; adds data/ with chat, dpo, turn-dpo, sweet JSONL and veRL Parquet',
    "  --name      the model's name in the card (default turnwise-<folder>)",
    '  --base-ref  base_model_name_or_path in adapter_config.json (default: DIR as an absolute path, so PEFT finds the base from any folder)',
    '',
    'recipes/README.md shows how to continue training the export with TRL and veRL.',
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, {
      out: { type: 'string' },
      model: { type: 'string' },
      adapter: { type: 'string' },
      weights: { type: 'string' },
      data: { type: 'string' },
      name: { type: 'string' },
      'base-ref': { type: 'string' },
      'no-onnx': { type: 'boolean' },
    });
    if (!values.out) throw new UsageError('--out DIR is required');
    const weights = values.weights ?? 'master';
    if (weights !== 'master' && weights !== 'engine') throw new UsageError(`--weights must be master or engine, got "${weights}"`);
    const existing = await readdir(values.out).catch(() => null);
    if (existing && existing.length) throw new UsageError(`--out ${values.out} exists and is not empty; choose a new folder`);
    if (existing) await rm(values.out, { recursive: true });
    const modelPath = (values.model ?? 'public/models/policy').replace(/\/$/, '');
    if (!(await stat(modelPath).catch(() => null))?.isDirectory()) throw new UsageError(`--model ${modelPath} is not a folder`);
    const model = await loadFolder(modelPath);
    const adapter = values.adapter ? await loadAdapter(values.adapter, model.config) : undefined;
    const name = values.name ?? `turnwise-${basename(modelPath)}`;
    const command = ['npx turnwise export-model', ...argv].join(' ');
    const files = hfExportFiles({
      model,
      name,
      baseRef: values['base-ref'] ?? resolve(values.out),
      adapter,
      weights,
      includeOnnx: !values['no-onnx'],
      command,
    });

    const partial = `${values.out.replace(/\/$/, '')}.partial`;
    await rm(partial, { recursive: true, force: true });
    try {
      for (const [path, bytes] of Object.entries(files)) {
        await mkdir(dirname(join(partial, path)), { recursive: true });
        await writeFile(join(partial, path), bytes);
      }
      if (values.data) {
        const { report: check } = await validateImport(createReadStream(values.data), {
          format: 'turnwise',
          source: basename(values.data),
          maxErrors: 20,
          now: Date.now(),
        });
        if (!check.ok)
          throw new UsageError(`--data ${values.data}: invalid Turnwise JSONL (${check.errors.map((e) => `line ${e.line}: ${e.message}`).join('; ')})`);
        await mkdir(join(partial, 'data'), { recursive: true });
        for (const f of DATA_FORMATS) {
          const chunks: Uint8Array[] = [];
          for await (const c of encodeExport(f, records(values.data))) chunks.push(c);
          const path = `data/episodes${EXPORT_FORMATS[f].extension}`;
          await writeFile(join(partial, path), Buffer.concat(chunks));
          files[path] = new Uint8Array(0);
        }
      }
      await rename(partial, values.out);
    } catch (e) {
      await rm(partial, { recursive: true, force: true });
      throw e;
    }
    const result = {
      ok: true,
      out: values.out,
      model: modelPath,
      weights,
      adapter: adapter ? { id: adapter.id, rank: adapter.spec.rank, alpha: adapter.spec.alpha, targets: adapter.spec.targets } : null,
      files: Object.keys(files).sort(),
    };
    report(!!values.json, result, () =>
      [
        `${values.out}: ${name} (${weights} weights)${adapter ? ` + adapter ${adapter.id} (r ${adapter.spec.rank}, α ${adapter.spec.alpha})` : ''}`,
        ...result.files.map((f) => `  ${f}`),
      ].join('\n'),
    );
    return 0;
  },
};
