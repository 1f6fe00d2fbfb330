// `turnwise generate`: one prompt through the inference engine (src/rl/runtime/policyEngine.ts) in
// Node, the same code the lab's policy worker runs: load (sha256-verified when the folder sits in a
// models root with manifest.json), KV-cache generation with seeded sampling, per-token log-probs.
// --adapter DIR applies a PEFT LoRA adapter (what `turnwise train --out` writes, or one trained with
// PEFT on the exported model) through the engine's adapter inputs; --compare runs the same request
// on the base as well, with the same seed, so the adapter's effect shows side by side.
import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError, intOption, parseOptions, report, type Command } from '../command.ts';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, importPeftAdapter, type LoraAdapter } from '../../rl/bridge/peft.ts';
import { fromHfConfig } from '../../rl/model/llama/config.ts';
import { modelsDir } from '../paths.ts';
import { nodeReader } from '../../rl/model/folder/nodeIo.ts';
import { parseManifest } from '../../rl/model/manifest.ts';
import { PolicyEngine } from '../../rl/runtime/policyEngine.ts';
import type { ReaderSource } from '../../rl/runtime/engine/loader.ts';
import type { Prompt } from '../../rl/runtime/engine/types.ts';

/** The model folder an adapter names as its base (PEFT's base_model_name_or_path), when one is there; undefined otherwise. */
function adapterBaseDir(adapterDir: string | undefined): string | undefined {
  const file = adapterDir ? join(adapterDir, ADAPTER_CONFIG_FILE) : '';
  if (!adapterDir || !existsSync(file)) return undefined;
  const base = (JSON.parse(readFileSync(file, 'utf8')) as { base_model_name_or_path?: unknown }).base_model_name_or_path;
  return typeof base === 'string' && existsSync(join(base, 'config.json')) ? base : undefined;
}

/** A model folder as a loader source: verified through its parent's manifest.json when that lists it. */
export function folderSource(dir: string): ReaderSource {
  const full = resolve(dir);
  if (!existsSync(join(full, 'config.json'))) throw new UsageError(`no model at ${full} (config.json is missing): run \`npm run forge\` or pass --model DIR`);
  const root = dirname(full);
  const name = basename(full);
  const manifest = join(root, 'manifest.json');
  if (existsSync(manifest)) {
    const m = parseManifest(readFileSync(manifest, 'utf8'), manifest);
    const entry = Object.entries(m.models).find(([, v]) => v.folder.replace(/\/$/, '') === name);
    if (entry) return { kind: 'reader', read: nodeReader(root), name: entry[0], manifest: true };
  }
  return { kind: 'reader', read: nodeReader(full), folder: '', manifest: false };
}

/** Reads a PEFT adapter folder (or its adapter_model.safetensors) for the base whose config.json is in `modelDir`. */
export async function readPeftAdapter(arg: string, modelDir: string): Promise<LoraAdapter & { id: string }> {
  const dir = (await stat(arg).catch(() => null))?.isDirectory() ? arg : dirname(arg);
  const weights = await readFile(join(dir, ADAPTER_WEIGHTS_FILE)).catch(() => null);
  const config = await readFile(join(dir, ADAPTER_CONFIG_FILE)).catch(() => null);
  if (!weights || !config)
    throw new UsageError(
      `--adapter ${arg}: expected a PEFT folder with ${ADAPTER_CONFIG_FILE} and ${ADAPTER_WEIGHTS_FILE} (as \`turnwise train --out DIR\` writes)`,
    );
  // The adapter's shapes are checked against the base it is applied to, so read that base's config first.
  const base = fromHfConfig(JSON.parse(readFileSync(join(resolve(modelDir), 'config.json'), 'utf8')) as unknown, join(modelDir, 'config.json')).config;
  return { id: basename(resolve(dir)), ...importPeftAdapter(base, { config: new Uint8Array(config), weights: new Uint8Array(weights), folder: dir }) };
}

function num(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${value}"`);
  return n;
}

export const generate: Command = {
  name: 'generate',
  summary: 'generate a reply with the policy (KV cache, seeded sampling, per-token log-probs)',
  usage: [
    'Usage: npx turnwise generate --prompt TEXT [--model DIR] [--adapter DIR [--compare]] [--raw] [--temperature T] [--top-p P] [--top-k K]',
    '         [--max-new-tokens N] [--stop S]... [--seed S] [--n K] [--backend node|wasm] [--json]',
    '',
    'The prompt is the task prompt of a chat (system message, then the agent replies), as the policy',
    "was trained; --raw feeds the text as it is after <|bos|>. --model defaults to the adapter's base when that is a model",
    "folder here (`train --out` names it: a lesson that starts from the forge's student trains public/models/student), else public/models/policy.",
    'Temperature 0 is greedy. --n K samples K replies of the prompt in one batch.',
    '--adapter DIR: a PEFT LoRA folder (adapter_config.json + adapter_model.safetensors, e.g. from',
    '`turnwise train --out DIR`) applied to --model; --compare also generates with the base (same seed).',
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, {
      prompt: { type: 'string' },
      model: { type: 'string' },
      raw: { type: 'boolean' },
      temperature: { type: 'string' },
      'top-p': { type: 'string' },
      'top-k': { type: 'string' },
      'max-new-tokens': { type: 'string' },
      stop: { type: 'string', multiple: true },
      seed: { type: 'string' },
      n: { type: 'string' },
      backend: { type: 'string' },
      adapter: { type: 'string' },
      compare: { type: 'boolean' },
    });
    if (values.prompt === undefined) throw new UsageError('--prompt is required');
    if (values.compare && !values.adapter) throw new UsageError('--compare needs --adapter DIR');
    const backend = values.backend ?? 'node';
    if (backend !== 'node' && backend !== 'wasm') throw new UsageError(`--backend must be node or wasm, got "${backend}"`);
    const modelDir = values.model ?? adapterBaseDir(values.adapter) ?? join(modelsDir(), 'policy');
    const source = folderSource(modelDir);
    const adapter = values.adapter ? await readPeftAdapter(values.adapter, modelDir) : undefined;
    const prompt: Prompt = values.raw ? { text: values.prompt } : { messages: [{ role: 'system', content: values.prompt }], window: {} };
    const engine = new PolicyEngine();
    try {
      const info = await engine.init(backend);
      // The graphs' adapter inputs take the adapter's own shape (no slot at all without one).
      const model = await engine.loadFrom('policy', source, { adapterSlot: adapter ? adapter.spec : null });
      if (adapter) await engine.setAdapter(adapter.id, { spec: adapter.spec, weights: adapter.weights }, { model: 'policy' });
      const json = !!values.json;
      const n = intOption(values.n, 'n', 1, 1, 1024);
      const stream = !json && n === 1 && !values.compare && process.stdout.isTTY;
      const request = {
        prompts: [prompt],
        n,
        sampling: {
          temperature: num(values.temperature, 'temperature'),
          topP: num(values['top-p'], 'top-p'),
          topK: intOption(values['top-k'], 'top-k', 0),
          maxNewTokens: intOption(values['max-new-tokens'], 'max-new-tokens', 64, 1),
          stop: values.stop ?? [],
          seed: intOption(values.seed, 'seed', 0, Number.MIN_SAFE_INTEGER),
        },
      };
      const result = await engine.generate(request, stream ? (e) => process.stdout.write(e.delta) : undefined);
      const base = values.compare ? await engine.generate({ ...request, adapter: null }) : undefined;
      const summary = {
        model: {
          name: model.name,
          params: model.params,
          verified: model.verified,
          precision: model.precision,
          adapter: adapter ? { id: adapter.id, rank: adapter.spec.rank, alpha: adapter.spec.alpha, targets: adapter.spec.targets } : null,
        },
        ...result,
        ...(base ? { base: { generations: base.generations } } : {}),
        backendInfo: info,
      };
      report(json, summary, () => {
        const label = (who: string) => (base ? `${who}: ` : '');
        const lines = result.generations.map((g) => (stream ? '' : `${label(`adapter ${adapter?.id}`)}${n > 1 ? `[${g.sample}] ` : ''}${g.text}`));
        if (base) lines.push(...base.generations.map((g) => `${label('base')}${n > 1 ? `[${g.sample}] ` : ''}${g.text}`));
        const g = result.generations[0];
        const t = result.timing;
        lines.push(
          `— ${info.kind}; prompt ${g.promptTokens} tokens, ${result.generations.map((x) => x.completionTokens).join('+')} generated (${g.finishReason}); ` +
            `first token ${t.firstTokenMs.toFixed(1)} ms, prefill ${t.prefillMs.toFixed(1)} ms, decode ${t.decodeMs.toFixed(1)} ms over ${t.decodeSteps} steps`,
        );
        return lines.join('\n');
      });
      return 0;
    } finally {
      await engine.dispose();
    }
  },
};
