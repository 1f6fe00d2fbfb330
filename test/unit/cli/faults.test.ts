// CLI faults (issue 22 point 6): an unwritable --out fails at once, before any work (no hang under
// /proc, no training lost); negative numbers get the option's own message, not "argument is
// ambiguous"; usage errors under --json are JSON; `import --check` of a binary file says it is not
// text; a bidi override in a file name is shown escaped.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { joinNegatives } from '../../../src/cli/command.ts';
import { prepareOutDir, shownPath } from '../../../src/cli/output.ts';
import { TrainingLoop } from '../../../src/rl/algos/loop.ts';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { capture } from '../capture.ts';

const run = (args: string[]) => capture(() => main(args));

describe('CLI faults', () => {
  it('refuses an --out under /proc at once, before training starts', async () => {
    // the work it must not have begun: no engine, no model read into it, no generation, no loop
    const work = [
      vi.spyOn(PolicyEngine.prototype, 'init'),
      vi.spyOn(PolicyEngine.prototype, 'loadFrom'),
      vi.spyOn(PolicyEngine.prototype, 'generate'),
      vi.spyOn(TrainingLoop, 'create'),
    ];
    let r: Awaited<ReturnType<typeof run>>;
    try {
      r = await run(['train', '--algo', 'grpo', '--family', 'bandit', '--iterations', '1', '--out', '/proc/x/adapter', '--json']);
      expect(work.map((w) => w.mock.calls.length)).toEqual([0, 0, 0, 0]);
    } finally {
      for (const w of work) w.mockRestore();
    }
    expect(r.code).toBe(2);
    const body = JSON.parse(r.out) as { ok: boolean; error: { kind: string; message: string } };
    expect(body).toMatchObject({ ok: false, error: { kind: 'usage' } });
    expect(body.error.message).toMatch(/^--out \/proc\/x\/adapter: cannot create \/proc\/x/);
  });

  it('refuses an --out whose folder is a file, and makes a new nested one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'turnwise-out-'));
    await writeFile(join(dir, 'f'), 'x');
    await expect(prepareOutDir(join(dir, 'f', 'sub'))).rejects.toThrow(/is a file, not a folder/);
    await expect(prepareOutDir(join(dir, 'a', 'b', 'c'))).resolves.toBeUndefined();
  });

  it("gives negative numbers the option's own message", async () => {
    expect(
      joinNegatives(['--lr', '-1', '--seed', '-3', '--json', '-x'], { lr: { type: 'string' }, seed: { type: 'string' }, json: { type: 'boolean' } }),
    ).toEqual(['--lr=-1', '--seed=-3', '--json', '-x']);
    const lr = await run(['train', '--algo', 'grpo', '--family', 'bandit', '--lr', '-1', '--json']);
    expect(lr.code).toBe(2);
    expect(JSON.parse(lr.out).error.message).toBe('--lr must be in (0, 1), got "-1"');
    const seed = await run(['train', '--algo', 'grpo', '--family', 'bandit', '--seed', '-3', '--json']);
    expect(JSON.parse(seed.out).error.message).toMatch(/^--seed must be an integer in \[0, \d+\], got "-3"$/);
    expect(seed.out).not.toMatch(/ambiguous/);
  });

  it('prints usage errors and unknown commands as JSON under --json', async () => {
    const bad = await run(['train', '--algo', 'nope', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.out)).toMatchObject({ ok: false, command: 'train', error: { kind: 'usage', name: 'UsageError' } });
    const unknown = await run(['frobnicate', '--json']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.out).error.message).toBe('unknown command "frobnicate"');
  });

  it('says a binary file is not text, and shows a bidi override in its name escaped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'turnwise-bin-'));
    const file = join(dir, 'evil\u202egpj.jsonl');
    await writeFile(file, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff, 0xfe]));
    const json = await run(['import', '--check', file, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ ok: false, text: false, error: 'not a text file: it holds NUL bytes' });
    const text = await run(['import', '--check', file]);
    expect(text.code).toBe(1);
    expect(text.out).toContain('evil\\u202egpj.jsonl: INVALID — not a text file');
    expect(text.out).not.toContain('\u202e');
    expect(shownPath('a\u2066b\u0007')).toBe('a\\u2066b\\u0007');
  });
});
