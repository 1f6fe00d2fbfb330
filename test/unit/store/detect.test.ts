// Format detection on import (formats/detect.ts through importer.ts decodeAny): Turnwise JSONL,
// SWEET-RL / ColBench JSONL and a JSON array of either are told apart by their first record, the
// report names what was read, an empty file of any kind is refused, a forced format that does not
// match says so, and the lab's own SWEET-RL export re-imports with its family, split, seed and agent.
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshName, openStore, writeEpisode } from './helpers.ts';
import { collectText, textSource } from '../../../src/rl/store/formats/lines.ts';
import { encodeTurnwise } from '../../../src/rl/store/formats/turnwise.ts';
import { encodeSweet } from '../../../src/rl/store/formats/sweet.ts';
import { validateImport } from '../../../src/rl/store/importer.ts';
import type { EpisodeRecord } from '../../../src/rl/store/schema.ts';
import { main } from '../../../src/cli/main.ts';
import { capture } from '../capture.ts';
import { colbench } from './colbenchFixture.ts';

async function labRecords(): Promise<EpisodeRecord[]> {
  const store = await openStore(freshName('detect'));
  for (let i = 0; i < 2; i++) await writeEpisode(store, { seed: 10 + i, family: 'backend', success: i === 0 });
  const out: EpisodeRecord[] = [];
  for await (const r of store.exportRecords()) if (r.type === 'episode') out.push(r);
  store.close();
  return out;
}

const check = (text: string, format?: 'turnwise' | 'sweet' | 'auto') =>
  validateImport(textSource(text), { source: 'f.jsonl', now: 1000, collect: true, ...(format ? { format } : {}) });

describe('format detection', () => {
  it('reads Turnwise JSONL by its header', async () => {
    const { report } = await check(await collectText(encodeTurnwise(await labRecords())));
    expect(report).toMatchObject({ ok: true, format: 'turnwise', counts: { episodes: 2 } });
    expect(report.detected).toBe('Turnwise JSONL (line 1 has a Turnwise header)');
  });

  it('reads SWEET-RL JSONL by task and dialogue_history', async () => {
    const { report } = await check(`\n${JSON.stringify(colbench(1))}\n${JSON.stringify(colbench(0))}\n`);
    expect(report).toMatchObject({ ok: true, format: 'sweet', counts: { episodes: 2 } });
    expect(report.detected).toBe('SWEET-RL / ColBench JSONL (line 2 has task and dialogue_history)');
  });

  it('reads a JSON array of SWEET-RL records, numbering problems by element', async () => {
    const pretty = JSON.stringify([colbench(1), colbench(0.5)], null, 2);
    const { report, records } = await check(pretty);
    expect(report).toMatchObject({ ok: true, format: 'sweet', counts: { episodes: 2 } });
    expect(report.detected).toContain('a JSON array of 2 SWEET-RL / ColBench records');
    expect(records?.map((r) => r.id)).toEqual(['f.jsonl#1', 'f.jsonl#2']);
    const bad = await check(JSON.stringify([colbench(1), { ...colbench(1), reward: 'high' }]));
    expect(bad.report.errors.map((e) => [e.line, e.path])).toEqual([[2, 'reward']]);
  });

  it('refuses empty files of every kind, and files it cannot place', async () => {
    for (const [text, message] of [
      ['', 'the file is empty: nothing to import'],
      ['\n  \n', 'the file is empty: nothing to import'],
      ['[]', 'the file is an empty JSON array: nothing to import'],
      ['{"hello":1}', 'cannot tell the format of line 1'],
      ['[1, 2]', "cannot tell the format of the array's first element"],
      ['[{"task":', 'the file opens a JSON array but is not one'],
    ] as const) {
      const { report } = await check(text);
      expect(report.ok, JSON.stringify(text)).toBe(false);
      expect(report.format).toBeNull();
      expect(report.errors[0].message).toContain(message);
    }
    // an empty file given as SWEET-RL is no longer "ok, 0 episodes"
    const sweet = await check('', 'sweet');
    expect(sweet.report.ok).toBe(false);
    expect(sweet.report.errors[0].message).toBe('the file holds no SWEET-RL records (it is empty)');
  });

  it('names the lab\'s export-only formats instead of "cannot tell the format"', async () => {
    const chat = await check('{"messages":[{"role":"system","content":"Guess the animal."}],"id":"e1","reward":1}');
    expect(chat.report.errors[0].message).toBe(
      "line 1 is chat-messages JSONL (for TRL), a format the lab exports but cannot import back: it leaves out the task and each turn's reward. Import the Turnwise JSONL export of the same episodes instead",
    );
    const pairs = await check('{"prompt":[],"chosen":[{"role":"assistant","content":"a"}],"rejected":[{"role":"assistant","content":"b"}]}');
    expect(pairs.report.errors[0].message).toMatch(/^line 1 is preference pairs \(for DPO\), a format the lab exports but cannot import back/);
  });

  it('says so when a forced format does not match a JSON array', async () => {
    const { report } = await check(JSON.stringify([colbench(1)]), 'turnwise');
    expect(report.ok).toBe(false);
    expect(report.errors[0].message).toMatch(/^--format turnwise was given, but the file is a JSON array of 1 SWEET-RL/);
  });
});

describe("re-importing the lab's SWEET-RL export", () => {
  it('keeps family, split, seed, options, agent and success', async () => {
    const mine = await labRecords();
    const { report, records } = await check(await collectText(encodeSweet(mine)));
    expect(report.format).toBe('sweet');
    const back = records as EpisodeRecord[];
    expect(back.map((r) => r.task)).toEqual(mine.map((r) => r.task));
    expect(back.map((r) => r.model)).toEqual(mine.map((r) => r.model));
    expect(back.map((r) => r.outcome?.success)).toEqual(mine.map((r) => r.outcome?.success));
    expect(back.map((r) => r.turns.map((t) => [t.role, t.text]))).toEqual(mine.map((r) => r.turns.map((t) => [t.role, t.text])));
  });
});

describe('turnwise import --check names the format', () => {
  const dir = mkdtempSync(join(tmpdir(), 'turnwise-detect-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('for SWEET-RL JSONL without --format, and refuses an empty one', async () => {
    const file = join(dir, 'colbench.jsonl');
    writeFileSync(file, `${JSON.stringify(colbench(1))}\n`);
    const r = await capture(() => main(['import', '--check', file]));
    expect(r.code).toBe(0);
    expect(r.out).toContain('SWEET-RL / ColBench JSONL (line 1 has task and dialogue_history)');
    expect(r.out).toContain('OK — 1 lines, 0 runs, 1 episodes');
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const e = await capture(() => main(['import', '--check', empty, '--format', 'sweet', '--json']));
    expect(e.code).toBe(1);
    expect(JSON.parse(e.out)).toMatchObject({ ok: false, counts: { episodes: 0 } });
  });
});
