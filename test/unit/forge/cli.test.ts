// `turnwise forge` resumed with --init keeps the earlier runs' reports (resumedFrom, oldest first),
// so a shipped model made in several sittings still says how every stage was made.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { forge } from '../../../src/cli/commands/forge.ts';
import { capture } from '../capture.ts';

const dir = mkdtempSync(join(tmpdir(), 'turnwise-forge-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[]): Promise<void> {
  expect((await capture(() => forge.run([...args, '--smoke', '--eval-episodes', '0', '--critic-steps', '1', '--value-steps', '1', '--json']))).code).toBe(0);
}

const report = (d: string) => JSON.parse(readFileSync(join(d, 'forge-report.json'), 'utf8')) as { command: string; phases: { phase: string }[]; resumedFrom?: { command: string; phases: { phase: string }[] }[] };

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
