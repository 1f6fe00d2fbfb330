// `turnwise generate` end to end on a tiny model folder written to a temp dir: verified load through
// the parent's manifest, --json output, seeded reproducibility, usage errors.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../../src/cli/commands/generate.ts';
import { nodeWriter } from '../../../src/rl/model/folder/nodeIo.ts';
import type { GenerateResult } from '../../../src/rl/runtime/engine/types.ts';
import { tinyModels } from './fixtures.ts';
import { capture } from '../capture.ts';

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'turnwise-generate-'));
  const write = nodeWriter(dir);
  for (const [p, b] of Object.entries((await tinyModels(7, 128)).files)) await write(p, b);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[]): Promise<GenerateResult & { model: { verified: boolean } }> {
  const { code, out } = await capture(() => generate.run(args));
  expect(code).toBe(0);
  return JSON.parse(out);
}

describe('turnwise generate', () => {
  it('generates with a seed, reproducibly, from a verified folder', async () => {
    const args = ['--prompt', 'Is it red?', '--model', join(dir, 'policy'), '--seed', '4', '--max-new-tokens', '6', '--json', '--backend', 'wasm'];
    const a = await run(args);
    expect(a.model.verified).toBe(true);
    expect(a.generations[0].completionTokens).toBeLessThanOrEqual(6);
    expect(a.generations[0].logprobs).toHaveLength(a.generations[0].tokenIds.length);
    expect((await run(args)).generations[0].tokenIds).toEqual(a.generations[0].tokenIds);
    const k = await run([...args, '--n', '3', '--temperature', '0.7', '--top-p', '0.9']);
    expect(k.generations).toHaveLength(3);
  });

  it('reports usage errors', async () => {
    await expect(generate.run(['--model', join(dir, 'policy')])).rejects.toMatchObject({ name: 'UsageError', message: '--prompt is required' });
    await expect(generate.run(['--prompt', 'x', '--model', join(dir, 'nothing')])).rejects.toThrow(/no model at .*nothing \(config.json is missing\)/);
    await expect(generate.run(['--prompt', 'x', '--model', join(dir, 'policy'), '--backend', 'gpu'])).rejects.toThrow(
      '--backend must be node or wasm, got "gpu"',
    );
    await expect(generate.run(['--prompt', 'x', '--model', join(dir, 'policy'), '--top-p', '3', '--backend', 'wasm'])).rejects.toMatchObject({
      name: 'SamplingParamsError',
    });
  });
});
