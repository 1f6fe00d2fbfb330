// Every JSONL the lab writes — Turnwise JSONL (with and without credit), chat, dpo, turn-dpo and
// SWEET-RL records — has one Arrow type per column and nested field across its lines, so that
// `datasets.load_dataset('json', …)` (pyarrow's JSON reader) loads it. Checked here without Python by a
// small model of pyarrow's JSON type inference (https://arrow.apache.org/docs/python/json.html
// "Automatic Type Inference"): null converts to the null type and falls back to any other type (so a
// missing or null field unifies with anything); an integer is int64 and falls back to float64 when a
// non-integer appears (ints and floats unify); booleans, numbers and strings do not unify with each
// other or with lists and objects; a list's elements are inferred recursively (an empty list is
// list<null>, which unifies with any list); an object is a struct whose fields are the union of the
// rows' keys. One more rule from pyarrow's bugs: no `null` inside a list. pyarrow 25 loses the nulls a
// list holds before its first typed element in a block (apache/arrow#51305, huggingface/datasets#5531:
// "Struct child array #3 invalid: Length spanned by list offsets (2136) larger than values array"),
// which is how the credited Turnwise JSONL failed (issue 48.7: credit values were null on every
// non-agent message; version 3 lines list only the messages with a value). The model fails where
// pyarrow fails for us and is checked on hand-made rows first. test/unit/cli/recipes.test.ts loads
// the export folder's files with `datasets` itself where Python has it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { FAMILY_NAMES } from '../../../src/rl/envs/registry.ts';
import { capture } from '../capture.ts';

type Scalar = 'null' | 'bool' | 'int' | 'float' | 'string';
type Shape = { k: Scalar } | { k: 'list'; of: Shape | null } | { k: 'struct'; fields: Map<string, Shape> };

function shapeOf(x: unknown, at: string): Shape {
  if (x === null) return { k: 'null' };
  if (typeof x === 'boolean') return { k: 'bool' };
  if (typeof x === 'number') return { k: Number.isInteger(x) ? 'int' : 'float' };
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
  // int64 falls back to float64
  if ((a.k === 'int' || a.k === 'float') && (b.k === 'int' || b.k === 'float')) return { k: a.k === 'float' || b.k === 'float' ? 'float' : 'int' };
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

const rowsOf = (path: string): unknown[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);

describe('the shape model', () => {
  it('fails where pyarrow fails and passes where it reads', () => {
    expect(() => tableShape([{ hidden: { a: 1 } }, { hidden: { a: 'x' } }])).toThrow('row.hidden.a: int in one row, string in another');
    expect(() => tableShape([{ credit: { mc: [null, 0.5] } }])).toThrow('null inside a list');
    expect(() => tableShape([{ credit: [{ values: [0.5, null] }] }])).toThrow('row 1.credit[].values[1]: null inside a list');
    expect(() => tableShape([{ a: [1] }, { a: 1 }])).toThrow('row.a: list in one row, int in another');
    expect(() => tableShape([{ a: true }, { a: 0 }])).toThrow('row.a: bool in one row, int in another');
    // null and missing fields, ints beside floats, an empty list beside a numeric one, structs with other keys: one type each
    expect(() => tableShape([{ r: 1, s: { a: 1 }, l: [] }, { r: null, s: { b: 'x' }, l: [0.5, 2] }, { r: 0.5 }])).not.toThrow();
    expect(tableShape([{ r: 1 }, { r: 0.5 }])).toEqual({ k: 'struct', fields: new Map([['r', { k: 'float' }]]) });
  });
});

describe('every JSONL the lab writes has one type per column across all families', () => {
  let credited = '';
  let played = '';

  beforeAll(async () => {
    played = join(dir, 'all.jsonl');
    credited = join(dir, 'all-credit.jsonl');
    // passkt (K = 2 episodes per task) so that the preference formats have pairs, and 30 tasks of a
    // random agent per family so that the tasks' hidden information varies (a backend test expects a
    // number in one task, a string or a boolean in another); one file per family and agent, then joined
    const files: string[] = [];
    for (const family of FAMILY_NAMES) {
      const f = join(dir, `${family}.jsonl`);
      await cli(['passkt', '--family', family, '--agent', 'noisy', '--n', '2', '--tasks', '2', '--options', '{}', '--out', f]);
      const g = join(dir, `${family}-random.jsonl`);
      await cli(['passkt', '--family', family, '--agent', 'random', '--n', '1', '--tasks', '30', '--seed', '7', '--options', '{}', '--out', g]);
      files.push(f, g);
    }
    const [head, ...rest] = files.map((f) => readFileSync(f, 'utf8').split('\n'));
    writeFileSync(played, [...head, ...rest.flatMap((l) => l.slice(1))].filter((l) => l !== '').join('\n') + '\n');
    await cli(['credit', '--in', played, '--estimators', 'mc,grpo', '--out', credited]);
  }, 240_000);

  it('Turnwise JSONL with and without credit (credit --out, export --format jsonl): no nulls inside lists, hidden information as text', async () => {
    const exported = join(dir, 'all.export.jsonl');
    await cli(['export', '--in', credited, '--format', 'jsonl', '--out', exported]);
    for (const file of [played, credited, exported]) {
      const rows = rowsOf(file);
      expect(() => tableShape(rows), file).not.toThrow();
    }
    // the credit is there, once per estimator, with values for the agent messages only
    const eps = rowsOf(credited).filter((r) => (r as { type?: string }).type === 'episode') as {
      turns: { role: string }[];
      credit: { estimator: string; turns: number[]; values: number[] }[];
    }[];
    expect(eps.every((e) => e.credit.map((c) => c.estimator).join() === 'mc,grpo')).toBe(true);
    for (const e of eps) for (const c of e.credit) expect(c.turns.every((i) => e.turns[i].role === 'agent')).toBe(true);
    // the hidden information as objects (as version 2 wrote it) gives some path two types: the data can tell
    const asObjects = rowsOf(played).map((r) =>
      (r as { type?: string }).type === 'episode'
        ? { ...(r as object), task: { ...(r as { task: object }).task, hidden: JSON.parse((r as { task: { hidden: string } }).task.hidden) as unknown } }
        : r,
    );
    expect(() => tableShape(asObjects)).toThrow(/hidden.* in one row, .* in another/);
  });

  it('chat, dpo, turn-dpo and SWEET-RL records, with credit', async () => {
    for (const format of ['chat', 'dpo', 'turn-dpo', 'sweet'] as const) {
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
