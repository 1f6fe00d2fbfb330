// `turnwise forge` resumed with --init keeps the earlier runs' reports (resumedFrom, oldest first),
// so a shipped model made in several sittings still says how every stage was made; --arch sizes a
// model made from scratch (measuring what d and layers buy); a forge interrupted after a stage goes on
// with --resume and writes the very policy an uninterrupted forge writes, and the student (--student K) with it.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { forge } from '../../../src/cli/commands/forge.ts';
import { main } from '../../../src/cli/main.ts';
import { PROGRESS_DIR, progressCheckpoint } from '../../../src/cli/forgeProgress.ts';
import { runForge } from '../../../src/rl/forge/forge.ts';
import { SMOKE_FORGE } from '../../../src/rl/forge/presets.ts';
import type { ForgeConfig } from '../../../src/rl/forge/config.ts';
import { nodeWriter } from '../../../src/rl/model/folder/nodeIo.ts';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { capture } from '../capture.ts';

const dir = mkdtempSync(join(tmpdir(), 'turnwise-forge-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[]): Promise<void> {
  expect((await capture(() => forge.run([...args, '--smoke', '--eval-episodes', '0', '--critic-steps', '1', '--value-steps', '1', '--json']))).code).toBe(0);
}

/** The configuration the CLI builds for `run(['--steps', '4', ...])`, forged into `out` and stopped by its own checkpoint hook after stage 1 of 2. */
async function interruptAfterStage1(out: string, config: ForgeConfig, command: string): Promise<void> {
  const keep = progressCheckpoint(out, { command, config, seconds: 0, phases: [] });
  const interrupted = runForge(config, {
    write: nodeWriter(out),
    runtime: await OrtRuntime.create('node'),
    log: () => {},
    command,
    checkpoint: async (k, policy, phases, student) => {
      await keep(k, policy, phases, student);
      throw new Error(`stopped after stage ${k}`);
    },
  });
  await expect(interrupted).rejects.toThrow('stopped after stage 1');
}

const report = (d: string) =>
  JSON.parse(readFileSync(join(d, 'forge-report.json'), 'utf8')) as {
    command: string;
    phases: { phase: string }[];
    resumedFrom?: { command: string; phases: { phase: string }[] }[];
  };

it('a resumed forge carries the chain of runs it continues', { timeout: 120_000 }, async () => {
  const [a, b, c] = ['a', 'b', 'c'].map((x) => join(dir, x));
  await run(['--out', a, '--steps', '4']);
  expect(report(a).resumedFrom).toBeUndefined();
  await run(['--out', b, '--steps', '4', '--init', a, '--stages-done', '1']);
  await run(['--out', c, '--steps', '4', '--init', b, '--stages-done', '2']);
  const r = report(c);
  expect(r.phases.map((p) => p.phase)).toEqual(['critic', 'critic bradley-terry', 'value']);
  expect(r.resumedFrom?.map((x) => x.command)).toEqual([
    `npx turnwise forge --out ${a} --steps 4 --smoke --eval-episodes 0 --critic-steps 1 --value-steps 1`,
    `npx turnwise forge --out ${b} --steps 4 --init ${a} --stages-done 1 --smoke --eval-episodes 0 --critic-steps 1 --value-steps 1`,
  ]);
  expect(r.resumedFrom?.[0].phases.map((p) => p.phase)).toEqual(['policy', 'policy stage 2', 'critic', 'critic bradley-terry', 'value']);
});

it('--arch sizes a forge from scratch and refuses unknown fields and --init', { timeout: 120_000 }, async () => {
  const out = join(dir, 'arch');
  await run(['--out', out, '--steps', '2', '--arch', '{"dModel":64,"nLayers":2}']);
  const config = JSON.parse(readFileSync(join(out, 'policy', 'config.json'), 'utf8')) as { hidden_size: number; num_hidden_layers: number };
  expect([config.hidden_size, config.num_hidden_layers]).toEqual([64, 2]);
  const usage = async (args: string[]) =>
    JSON.parse((await capture(() => main(['forge', ...args, '--smoke', '--json']))).out) as { error: { kind: string; message: string } };
  expect((await usage(['--arch', '{"width":64}'])).error).toMatchObject({
    kind: 'usage',
    message: '--arch: unknown field "width" (expected dModel, nLayers, nHeads, dFf)',
  });
  expect((await usage(['--arch', '{"dModel":64}', '--init', out])).error.message).toBe('--arch sizes a new model; --init continues a policy of its own size');
  expect((await usage(['--arch', '{"dModel":48}', '--out', join(dir, 'odd')])).error.message).toMatch(/must be multiples of 32/);
});

it('a forge interrupted after a stage goes on with --resume and writes what the whole forge writes', { timeout: 120_000 }, async () => {
  const [whole, cut] = ['whole', 'cut'].map((x) => join(dir, x));
  await run(['--out', whole, '--steps', '4']);
  expect(existsSync(join(whole, PROGRESS_DIR))).toBe(false);
  const command = 'npx turnwise forge --out cut (interrupted)';
  await interruptAfterStage1(cut, { ...SMOKE_FORGE, steps: 4, evalEpisodes: 0, criticSteps: 1, valueSteps: 1 }, command);
  expect(JSON.parse(readFileSync(join(cut, PROGRESS_DIR, 'progress.json'), 'utf8'))).toMatchObject({ stagesDone: 1, command });

  const resumed = await capture(() => forge.run(['--resume', cut, '--json']));
  expect(resumed.code).toBe(0);
  expect(existsSync(join(cut, PROGRESS_DIR))).toBe(false);
  const bytes = (d: string, f: string) => readFileSync(join(d, f));
  expect(bytes(cut, 'policy/model.safetensors').equals(bytes(whole, 'policy/model.safetensors'))).toBe(true);
  expect(report(cut).phases.map((p) => p.phase)).toEqual(report(whole).phases.map((p) => p.phase));
  const manifest = JSON.parse(readFileSync(join(cut, 'manifest.json'), 'utf8')) as { forge: { command: string; wallSeconds: number } };
  expect(manifest.forge.command).toBe(command);
  expect(manifest.forge.wallSeconds).toBeGreaterThanOrEqual(0);

  const usage = async (args: string[]) => JSON.parse((await capture(() => main(['forge', ...args, '--json']))).out) as { error: { message: string } };
  expect((await usage(['--resume', cut])).error.message).toMatch(/forge-progress\/progress.json is missing/);
  expect((await usage(['--resume', cut, '--steps', '9'])).error.message).toBe("--resume goes on with the interrupted forge's own configuration; drop --steps");
});

it("--student K ships stage K's policy beside the final one, and a forge resumed past stage K still writes it", { timeout: 120_000 }, async () => {
  const [whole, cut] = ['student-whole', 'student-cut'].map((x) => join(dir, x));
  await run(['--out', whole, '--steps', '4', '--student', '1']);
  const manifest = (d: string) => JSON.parse(readFileSync(join(d, 'manifest.json'), 'utf8')) as { models: Record<string, { folder: string }> };
  expect(Object.keys(manifest(whole).models).sort()).toEqual(['critic', 'policy', 'student']);
  const bytes = (d: string, f: string) => readFileSync(join(d, f));
  // less trained: the first stage's policy, not the last one's
  expect(bytes(whole, 'student/model.safetensors').equals(bytes(whole, 'policy/model.safetensors'))).toBe(false);
  const meta = JSON.parse(readFileSync(join(whole, 'student/config.json'), 'utf8')) as { turnwise: { role: string; student: { stage: number } } };
  expect(meta.turnwise).toMatchObject({ role: 'policy', student: { stage: 1 } });

  const config = { ...SMOKE_FORGE, steps: 4, evalEpisodes: 0, criticSteps: 1, valueSteps: 1, student: 1 };
  await interruptAfterStage1(cut, config, 'npx turnwise forge --out student-cut --student 1 (interrupted)');
  expect((await capture(() => forge.run(['--resume', cut, '--json']))).code).toBe(0);
  for (const f of ['student/model.safetensors', 'policy/model.safetensors']) expect(bytes(cut, f).equals(bytes(whole, f))).toBe(true);

  const usage = async (args: string[]) => JSON.parse((await capture(() => main(['forge', ...args, '--json']))).out) as { error: { message: string } };
  expect((await usage(['--smoke', '--student', '2', '--out', join(dir, 'never')])).error.message).toMatch(/student must be a policy stage in \[1, 1\]/);
});
