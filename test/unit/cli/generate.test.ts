// `turnwise generate --adapter DIR [--compare]` on a tiny model folder: a PEFT folder written the way
// `turnwise train --out` writes one (bridge/peft.ts exportPeftAdapter). An adapter whose B matrices are
// zero is exactly the base (same tokens, same log-probs); a random one changes the log-probs; --compare
// reports both from one call; a folder without the PEFT files is a usage error naming them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../../src/cli/commands/generate.ts';
import { initCheckAdapter } from '../../../src/cli/commands/export-model.ts';
import { exportPeftAdapter, type LoraAdapter } from '../../../src/rl/bridge/peft.ts';
import { nodeWriter } from '../../../src/rl/model/folder/nodeIo.ts';
import { loraParams } from '../../../src/rl/model/llama/weights.ts';
import type { ModelConfig } from '../../../src/rl/model/llama/config.ts';
import type { Generation } from '../../../src/rl/runtime/engine/types.ts';
import { tinyModels } from '../engine/fixtures.ts';
import { capture } from '../capture.ts';

let dir: string;
let cfg: ModelConfig;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'turnwise-gen-adapter-'));
  const models = await tinyModels(7, 128);
  cfg = models.cfg;
  const write = nodeWriter(dir);
  for (const [p, b] of Object.entries(models.files)) await write(p, b);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeAdapter(name: string, adapter: LoraAdapter): string {
  const out = join(dir, name);
  mkdirSync(out, { recursive: true });
  for (const [file, bytes] of Object.entries(exportPeftAdapter(cfg, adapter, { baseModel: join(dir, 'policy') }))) writeFileSync(join(out, file), bytes);
  return out;
}

type Out = { model: { adapter: { id: string; rank: number } | null }; generations: Generation[]; base?: { generations: Generation[] } };

async function run(args: string[], model: string[] = ['--model', join(dir, 'policy')]): Promise<Out> {
  const { code, out } = await capture(() =>
    generate.run([...args, '--prompt', 'Is it red?', ...model, '--seed', '3', '--max-new-tokens', '5', '--temperature', '0', '--backend', 'wasm', '--json']),
  );
  expect(code).toBe(0);
  return JSON.parse(out) as Out;
}

const maxDiff = (a: number[], b: number[]) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));

describe('turnwise generate --adapter', () => {
  it('applies a PEFT folder: zero B is the base exactly, a random adapter moves the log-probs', async () => {
    const plain = (await run([])).generations[0];
    const random = initCheckAdapter(cfg, 5, 4, 0.5);
    const zero: LoraAdapter = { spec: random.spec, weights: { ...random.weights } };
    for (const p of loraParams(cfg, zero.spec)) zero.weights[p.b.name] = new Float32Array(zero.weights[p.b.name].length);

    const z = await run(['--adapter', writeAdapter('zero', zero)]);
    expect(z.model.adapter).toMatchObject({ id: 'zero', rank: 4 });
    expect(z.generations[0].tokenIds).toEqual(plain.tokenIds);
    expect(maxDiff(z.generations[0].logprobs, plain.logprobs)).toBeLessThan(1e-5);

    // without --model, the adapter's own base (its base_model_name_or_path, as `train --out` writes it; a
    // lesson from the forge's student names the student), not the shipped policy, whose shapes differ
    const own = await run(['--adapter', join(dir, 'zero')], []);
    expect(own.generations[0].tokenIds).toEqual(plain.tokenIds);
    expect(maxDiff(own.generations[0].logprobs, plain.logprobs)).toBeLessThan(1e-5);

    const r = await run(['--adapter', writeAdapter('random', random), '--compare']);
    expect(r.base?.generations[0].tokenIds).toEqual(plain.tokenIds);
    const a = r.generations[0];
    const differs = a.tokenIds.join() !== plain.tokenIds.join() || maxDiff(a.logprobs, plain.logprobs) > 1e-3;
    expect(differs).toBe(true);
  });

  it('names the missing files, and --compare needs an adapter', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty, { recursive: true });
    await expect(generate.run(['--prompt', 'x', '--model', join(dir, 'policy'), '--adapter', empty])).rejects.toThrow(
      /expected a PEFT folder with adapter_config.json and adapter_model.safetensors/,
    );
    await expect(generate.run(['--prompt', 'x', '--compare'])).rejects.toThrow('--compare needs --adapter DIR');
  });
});
