// The JSONL exports that `datasets.load_dataset('json', …)` reads (chat, dpo, turn-dpo) have one Arrow
// type per column across every family: checked here without Python by a small model of pyarrow's JSON
// type inference (numbers unify, a struct's fields are the union of the rows' keys, a missing or null
// column value is a null) that fails where pyarrow fails for us — two rows giving one field different
// kinds (the families' `hidden` objects), and `null` inside a list (the old per-message credit lists,
// pyarrow: "Length spanned by list offsets … larger than values array"). test/unit/cli/recipes.test.ts
// loads the same files with `datasets` itself where Python has it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { FAMILY_NAMES } from '../../../src/rl/envs/types.ts';
import { capture } from '../capture.ts';

type Shape = { k: 'null' | 'bool' | 'number' | 'string' } | { k: 'list'; of: Shape | null } | { k: 'struct'; fields: Map<string, Shape> };

function shapeOf(x: unknown, at: string): Shape {
  if (x === null) return { k: 'null' };
  if (typeof x === 'boolean') return { k: 'bool' };
  if (typeof x === 'number') return { k: 'number' };
  if (typeof x === 'string') return { k: 'string' };
  if (Array.isArray(x)) {
    let of: Shape | null = null;
    x.forEach((y, i) => {
      if (y === null) throw new Error(`${at}[${i}]: null inside a list`);
      of = of ? merge(of, shapeOf(y, `${at}[]`), `${at}[]`) : shapeOf(y, `${at}[]`);
    });
    return { k: 'list', of };
  }
  return { k: 'struct', fields: new Map(Object.entries(x as object).map(([k, v]) => [k, shapeOf(v, `${at}.${k}`)])) };
}

function merge(a: Shape, b: Shape, at: string): Shape {
  if (a.k === 'null') return b;
  if (b.k === 'null') return a;
  if (a.k !== b.k) throw new Error(`${at}: ${a.k} in one row, ${b.k} in another`);
  if (a.k === 'list' && b.k === 'list') return { k: 'list', of: a.of && b.of ? merge(a.of, b.of, `${at}[]`) : (a.of ?? b.of) };
  if (a.k === 'struct' && b.k === 'struct') {
    const fields = new Map(a.fields);
    for (const [k, v] of b.fields) fields.set(k, fields.has(k) ? merge(fields.get(k) as Shape, v, `${at}.${k}`) : v);
    return { k: 'struct', fields };
  }
  return a;
}

/** Merges the shapes of every row; throws where pyarrow would find no one type. */
const tableShape = (rows: unknown[]): Shape => rows.map((r, i) => shapeOf(r, `row ${i + 1}`)).reduce((a, b) => merge(a, b, 'row'));

const dir = mkdtempSync(join(tmpdir(), 'turnwise-arrow-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]): Promise<void> {
  const { code } = await capture(() => main([...args, '--json']));
  expect(code, args.join(' ')).toBe(0);
}

const rowsOf = (path: string): unknown[] => readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown);

describe('the shape model', () => {
  it('fails where pyarrow fails and passes where it reads', () => {
    expect(() => tableShape([{ hidden: { a: 1 } }, { hidden: { a: 'x' } }])).toThrow('row.hidden.a: number in one row, string in another');
    expect(() => tableShape([{ credit: { mc: [null, 0.5] } }])).toThrow('null inside a list');
    expect(() => tableShape([{ r: 1, s: { a: 1 } }, { r: null, s: { b: 'x' } }, { r: 0.5 }])).not.toThrow();
  });
});

describe('exports have one type per column across all families', () => {
  it('chat, dpo and turn-dpo of every family, with credit', async () => {
    const played = join(dir, 'all.jsonl');
    const credited = join(dir, 'all-credit.jsonl');
    // passkt (K = 2 episodes per task) so that the preference formats have pairs; one file per family, then joined
    const files: string[] = [];
    for (const family of FAMILY_NAMES) {
      const f = join(dir, `${family}.jsonl`);
      await cli(['passkt', '--family', family, '--agent', 'noisy', '--n', '2', '--tasks', '2', '--options', '{}', '--out', f]);
      files.push(f);
    }
    const [head, ...rest] = files.map((f) => readFileSync(f, 'utf8').split('\n'));
    writeFileSync(played, [...head, ...rest.flatMap((l) => l.slice(1))].filter((l) => l !== '').join('\n') + '\n');
    await cli(['credit', '--in', played, '--estimators', 'mc,grpo', '--out', credited]);
    for (const format of ['chat', 'dpo', 'turn-dpo'] as const) {
      const out = join(dir, `all.${format}.jsonl`);
      await cli(['export', '--in', credited, '--format', format, '--out', out]);
      const rows = rowsOf(out);
      expect(rows.length, format).toBeGreaterThan(0);
      expect(() => tableShape(rows), format).not.toThrow();
    }
    const chat = rowsOf(join(dir, 'all.chat.jsonl')) as { task: { family: string } }[];
    expect(new Set(chat.map((r) => r.task.family))).toEqual(new Set(FAMILY_NAMES));
  });
});
