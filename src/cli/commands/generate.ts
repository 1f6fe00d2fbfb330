// `turnwise generate`: one prompt through the inference engine (src/rl/runtime/policyEngine.ts) in
// Node, the same code the lab's policy worker runs: load (sha256-verified when the folder sits in a
// models root with manifest.json), KV-cache generation with seeded sampling, per-token log-probs.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError, intOption, parseOptions, report, type Command } from '../command.ts';
import { modelsDir } from '../paths.ts';
import { nodeReader } from '../../rl/model/folder/nodeIo.ts';
import { parseManifest } from '../../rl/model/manifest.ts';
import { PolicyEngine } from '../../rl/runtime/policyEngine.ts';
import type { ReaderSource } from '../../rl/runtime/engine/loader.ts';
import type { Prompt } from '../../rl/runtime/engine/types.ts';

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
    'Usage: npx turnwise generate --prompt TEXT [--model DIR] [--raw] [--temperature T] [--top-p P] [--top-k K]',
    '         [--max-new-tokens N] [--stop S]... [--seed S] [--n K] [--backend node|wasm] [--json]',
    '',
    'The prompt is the task prompt of a chat (system message, then the agent replies), as the policy',
    'was trained; --raw feeds the text as it is after <|bos|>. --model defaults to public/models/policy.',
    'Temperature 0 is greedy. --n K samples K replies of the prompt in one batch.',
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
    });
    if (values.prompt === undefined) throw new UsageError('--prompt is required');
    const backend = values.backend ?? 'node';
    if (backend !== 'node' && backend !== 'wasm') throw new UsageError(`--backend must be node or wasm, got "${backend}"`);
    const source = folderSource(values.model ?? join(modelsDir(), 'policy'));
    const prompt: Prompt = values.raw ? { text: values.prompt } : { messages: [{ role: 'system', content: values.prompt }], window: {} };
    const engine = new PolicyEngine();
    try {
      const info = await engine.init(backend);
      const model = await engine.loadFrom('policy', source, { adapterSlot: null });
      const json = !!values.json;
      const n = intOption(values.n, 'n', 1, 1, 1024);
      const stream = !json && n === 1 && process.stdout.isTTY;
      const result = await engine.generate(
        {
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
        },
        stream ? (e) => process.stdout.write(e.delta) : undefined,
      );
      const summary = { model: { name: model.name, params: model.params, verified: model.verified, precision: model.precision }, ...result, backendInfo: info };
      report(json, summary, () => {
        const lines = result.generations.map((g) => (stream ? '' : n > 1 ? `[${g.sample}] ${g.text}` : g.text));
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
