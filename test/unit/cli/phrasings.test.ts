// `--phrasings FILE.json` on eval, passkt and credit-report (issue 18): the simulated collaborator
// words its answers from the file, and a bad file fails before any work with exit code 2 and a message
// naming the file and the field.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { capture } from '../capture.ts';

const HELD_OUT = new URL('../../fixtures/phrasings-heldout.json', import.meta.url).pathname;
const heldOut = JSON.parse(readFileSync(HELD_OUT, 'utf8')) as { guess: Record<string, string[]>; backend: Record<string, string[]> };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'turnwise-phrasings-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Runs `turnwise …` with --json: exit code and the parsed stdout. */
async function run(args: string[]): Promise<{ code: number; json: { ok?: boolean; error?: { kind: string; message: string } } & Record<string, unknown> }> {
  const { code, out } = await capture(() => main([...args, '--json']));
  return { code, json: JSON.parse(out) as { ok?: boolean; error?: { kind: string; message: string } } };
}

/** The collaborator replies of the episodes an --out file holds. */
function replies(path: string): string[] {
  const lines = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; turns?: { role: string; text: string }[] });
  return lines.flatMap((l) => (l.type === 'episode' ? (l.turns ?? []).filter((t) => t.role === 'collaborator').map((t) => t.text) : []));
}

describe('--phrasings', () => {
  it('refuses a bad file on eval, passkt and credit-report before any work, with exit code 2 and the field named', async () => {
    const cases: [string, RegExp][] = [
      [file('not.json', '{"guess": [1, 2'), /: not JSON \(/],
      [file('shape.json', '{"guess": {"yes": ["Yes."], "no": "No."}}'), /: guess\.no must be a non-empty list of strings$/],
      [
        file('template.json', '{"backend": {"statement": ["The {name} is ready."], "unknown": ["No idea."], "unsure": ["Not sure."]}}'),
        /: backend\.statement\[0\] "The \{name\} is ready\." must contain \{value\} exactly once$/,
      ],
      [join(dir, 'missing.json'), /: cannot read the file \(ENOENT\)$/],
    ];
    for (const [path, message] of cases) {
      // --models points nowhere: had any model been opened first, the error would be about the models
      for (const command of [
        ['eval', '--family', 'guess', '--agent', 'policy'],
        ['passkt', '--family', 'guess'],
        ['credit-report', '--family', 'guess'],
      ]) {
        const { code, json } = await run([...command, '--models', join(dir, 'no-models'), '--phrasings', path]);
        expect(code, `${command[0]} ${path}`).toBe(2);
        expect(json.error?.kind).toBe('usage');
        expect(json.error?.message).toMatch(new RegExp(`^--phrasings ${path.replace(/[.]/g, '\\.')}${message.source}`));
      }
    }
  });

  it("eval and passkt play with the file's phrasings, and credit-report takes them", async () => {
    const said = new Set([...Object.values(heldOut.guess), ...Object.values(heldOut.backend)].flat());
    const evalOut = join(dir, 'eval.jsonl');
    const e = await run(['eval', '--family', 'guess', '--agent', 'expert', '--episodes', '6', '--phrasings', HELD_OUT, '--out', evalOut]);
    expect(e.code).toBe(0);
    expect(e.json).toMatchObject({ family: 'guess', successRate: 1 });
    const evalReplies = replies(evalOut).map((r) => r.split(' Remaining:')[0]);
    expect(evalReplies.length).toBeGreaterThan(6);
    for (const r of evalReplies) if (!/^(Correct|Wrong|No turns left)/.test(r)) expect(said.has(r), r).toBe(true);

    const passOut = join(dir, 'passkt.jsonl');
    const p = await run(['passkt', '--family', 'backend', '--agent', 'expert', '--tasks', '3', '--n', '2', '--phrasings', HELD_OUT, '--out', passOut]);
    expect(p.code).toBe(0);
    expect(p.json).toMatchObject({ successRate: 1, phrasings: HELD_OUT });
    const statements = replies(passOut).filter((r) => !/tests passed/.test(r));
    expect(statements.length).toBeGreaterThan(0);
    // each reply is a held-out statement filled in (the canonical "The X is V." never appears)
    for (const r of statements) expect(r, r).not.toMatch(/^(The \w+ is|The \w+ should be|Use .* for the)/);

    const c = await run([
      'credit-report',
      '--family',
      'guess',
      '--agent',
      'noisy',
      '--episodes',
      '4',
      '--k',
      '2',
      '--m',
      '1',
      '--estimators',
      'mc,grpo',
      '--phrasings',
      HELD_OUT,
    ]);
    expect(c.code).toBe(0);
    expect(c.json).toMatchObject({ episodes: 4, phrasings: HELD_OUT });
  });
});
