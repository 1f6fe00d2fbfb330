// `turnwise export` and `turnwise import --check` over files: the same validation and encoders as the
// lab, a JSON report with line numbers, no output file when the input is invalid.
import 'fake-indexeddb/auto';
import { mkdtemp, readFile, writeFile, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parquetReadObjects } from 'hyparquet';
import { main } from '../../../src/cli/main.ts';
import { openStore, writeEpisode } from './helpers.ts';
import { encodeTurnwise } from '../../../src/rl/store/formats/index.ts';
import { collectText } from '../../../src/rl/store/formats/lines.ts';
import { capture } from '../capture.ts';

let dir = '';
let good = '';

const run = (args: string[]) => capture(() => main(args));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'turnwise-cli-'));
  const store = await openStore();
  for (let i = 0; i < 3; i++) await writeEpisode(store, { seed: i, success: i !== 1 });
  good = join(dir, 'good.jsonl');
  await writeFile(good, await collectText(encodeTurnwise(store.exportRecords())));
  store.close();
});

afterEach(() => vi.restoreAllMocks());

describe('turnwise import --check', () => {
  it('reports a valid file', async () => {
    const { code, out } = await run(['import', '--check', good, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ file: good, ok: true, lines: 4, counts: { runs: 0, episodes: 3, turns: 18 }, errors: [] });
  });

  it('reports problems with line numbers and exits 1', async () => {
    const lines = (await readFile(good, 'utf8')).trimEnd().split('\n');
    lines[2] = lines[2].replace('"split":"train"', '"split":7');
    const bad = join(dir, 'bad.jsonl');
    await writeFile(bad, `${lines.join('\n')}\nnot json\n`);
    const { code, out } = await run(['import', '--check', bad, '--json']);
    expect(code).toBe(1);
    const report = JSON.parse(out);
    expect(report.ok).toBe(false);
    expect(report.errors.map((e: { line: number; path: string }) => [e.line, e.path])).toEqual([
      [3, 'task.split'],
      [5, ''],
    ]);
    const text = await run(['import', '--check', bad]);
    expect(text.out).toContain('line 3 task.split: Invalid type');
  });

  it('refuses to import without --check', async () => {
    expect((await run(['import', good])).code).toBe(2);
  });
});

describe('turnwise export', () => {
  it('re-encodes our JSONL byte-identically and writes every format', async () => {
    const same = join(dir, 'same.jsonl');
    expect((await run(['export', '--in', good, '--format', 'jsonl', '--out', same])).code).toBe(0);
    expect(await readFile(same, 'utf8')).toBe(await readFile(good, 'utf8'));

    const chat = join(dir, 'out.chat.jsonl');
    const r = await run(['export', '--in', good, '--format', 'chat', '--out', chat, '--json']);
    expect(JSON.parse(r.out)).toMatchObject({ ok: true, records: 3, episodes: 3 });
    const first = JSON.parse((await readFile(chat, 'utf8')).split('\n')[0]);
    expect(first.messages[0]).toEqual({ role: 'system', content: 'Guess the item. Ask yes/no questions.' });

    const sweet = join(dir, 'out.sweet.jsonl');
    await run(['export', '--in', good, '--format', 'sweet', '--out', sweet]);
    const sweetBack = join(dir, 'back.chat.jsonl');
    expect((await run(['export', '--in', sweet, '--from', 'sweet', '--format', 'chat', '--out', sweetBack])).code).toBe(0);
    expect((await readFile(sweetBack, 'utf8')).split('\n')).toHaveLength(4);

    const pq = join(dir, 'out.parquet');
    await run(['export', '--in', good, '--format', 'parquet', '--out', pq]);
    const bytes = await readFile(pq);
    const rows = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer });
    expect(rows.map((row) => (row.extra_info as { success: boolean }).success)).toEqual([true, false, true]);
  });

  it('writes nothing when the input is invalid', async () => {
    const bad = join(dir, 'broken.jsonl');
    await writeFile(bad, (await readFile(good, 'utf8')).slice(0, -40));
    const out = join(dir, 'never.parquet');
    const r = await run(['export', '--in', bad, '--format', 'parquet', '--out', out, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).errors[0].line).toBe(4);
    await expect(access(out)).rejects.toThrow();
    await expect(access(`${out}.partial`)).rejects.toThrow();
  });
});
