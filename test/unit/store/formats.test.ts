// Export formats: our JSONL (byte-identical export → import → export through the store, a golden
// line), TRL chat messages, SWEET-RL records both ways, veRL Parquet read back with hyparquet, and
// the line reader's handling of CRLF, BOM, split UTF-8 and over-long lines.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { parquetReadObjects } from 'hyparquet';
import { agentTurn, collaboratorTurn, freshName, model, openStore, task, writeEpisode } from './helpers.ts';
import { collectText, readLines, textSource, type LineEvent } from '../../../src/rl/store/formats/lines.ts';
import { decodeTurnwise, encodeTurnwise } from '../../../src/rl/store/formats/turnwise.ts';
import { encodeChatJsonl, toChatRecord } from '../../../src/rl/store/formats/chat.ts';
import { decodeSweet, encodeSweet, toSweetRecord } from '../../../src/rl/store/formats/sweet.ts';
import { encodeExport } from '../../../src/rl/store/formats/index.ts';
import { importFile } from '../../../src/rl/store/importer.ts';
import type { EpisodeRecord, PortableRecord } from '../../../src/rl/store/schema.ts';
import type { TrajectoryStore } from '../../../src/rl/store/store.ts';

async function exportText(store: TrajectoryStore): Promise<string> {
  return collectText(encodeTurnwise(store.exportRecords()));
}

async function fillStore(store: TrajectoryStore): Promise<void> {
  const run = await store.createRun({
    name: 'grpo sweep',
    models: { policy: 'p', critic: 'c' },
    algorithm: 'grpo',
    settings: { lr: 1e-4, groups: [8, 16] },
    seed: 3,
  });
  const a = await writeEpisode(store, { runId: run.id, seed: 1 });
  await store.putCredit(a, { estimator: 'gae', version: 'critic-1', params: { gamma: 0.9 }, values: [NaN, 0.1, NaN, -0.3, NaN, 1 / 3] });
  await store.putCredit(a, { estimator: 'mc', version: 'none', values: [0, 1, 0, 1, 0, 1] });
  await writeEpisode(store, { seed: 2, family: 'bandit', success: false, pairs: 1 });
  const open = await store.beginEpisode({
    task: { family: 'backend', split: 'test', seed: -9, options: { maxTurns: 4 }, hidden: { reference: 'f(x) = x * 2', 'ü"\\': ['\u2028', '\ud83d\ude00'] } },
    model,
  });
  await store.appendTurn(open.id, { ...agentTurn(0), text: 'unicode: ☃ 😀 "quoted" \\ \n newline', logprobs: [-1e-8, -123.456789, -0] });
}

describe('Turnwise JSONL', () => {
  it('is byte-identical after export → import → export', async () => {
    const source = await openStore();
    await fillStore(source);
    const first = await exportText(source);
    const target = await openStore(freshName(), { newId: () => crypto.randomUUID() });
    const { report, result } = await importFile(target, textSource(first, 100), { format: 'turnwise', source: 'first.jsonl' });
    expect(report).toMatchObject({ ok: true, errors: [], counts: { runs: 1, episodes: 3, turns: 11 } });
    expect(result).toEqual({ runs: 1, episodes: 3, turns: 11, skipped: 0 });
    const second = await exportText(target);
    expect(second).toBe(first);
    // Decoding the file and encoding it again (what `turnwise export --format jsonl` does) is the identity too.
    const decoded: PortableRecord[] = [];
    for await (const ev of decodeTurnwise(readLines(textSource(first)))) if (ev.kind === 'record') decoded.push(ev.record);
    expect(await collectText(encodeTurnwise(decoded))).toBe(first);
    // Importing the same file again skips every record.
    expect((await importFile(target, textSource(first), { format: 'turnwise', source: 'again' })).result).toEqual({
      runs: 0,
      episodes: 0,
      turns: 0,
      skipped: 4,
    });
    expect((await target.listEpisodes()).items[0].imported).toMatchObject({ source: 'first.jsonl' });
    source.close();
    target.close();
  });

  it('writes the documented header and line shape (golden)', async () => {
    const store = await openStore('golden-db');
    const ep = await store.beginEpisode({
      task: { family: 'bandit', split: 'train', seed: 0, hidden: { arms: [0.2, 0.8] } },
      model: { policy: 'p', adapter: null, critic: null },
    });
    await store.appendTurn(ep.id, {
      role: 'agent',
      text: '<answer>1</answer>',
      tokens: [5],
      logprobs: [-0.5],
      promptTokens: 9,
      completionTokens: 1,
      reward: 1,
      done: true,
      latencyMs: 2,
      backend: 'wasm',
    });
    await store.finishEpisode(ep.id, { success: true, totalReward: 1, turns: 1 });
    await store.putCriticScores(ep.id, {
      version: 'critic',
      values: [0.25, 0],
      tokenOffsets: [0, 1],
      tokens: [5],
      tokenText: ['<answer>'],
      tokenValues: [0.5],
      criticLogprobs: [-0.25],
      refLogprobs: [-0.5],
    });
    const text = await exportText(store);
    expect(text).toBe(
      '{"format":"turnwise.trajectories","version":3}\n' +
        '{"type":"episode","id":"golden-db-2","runId":null,"status":"complete","task":{"family":"bandit","split":"train","seed":0,"options":{},"hidden":"{\\"arms\\":[0.2,0.8]}"},' +
        '"model":{"policy":"p","adapter":null,"critic":null},"turns":[{"role":"agent","text":"<answer>1</answer>","tokens":[5],"logprobs":[-0.5],' +
        '"promptTokens":9,"completionTokens":1,"reward":1,"done":true,"latencyMs":2,"backend":"wasm","info":{},"at":1700000002000}],' +
        '"outcome":{"success":true,"totalReward":1,"turns":1},"credit":[],' +
        '"criticScores":{"version":"critic","values":[0.25,0],"tokenOffsets":[0,1],"tokens":[5],"tokenText":["<answer>"],"tokenValues":[0.5],"criticLogprobs":[-0.25],"refLogprobs":[-0.5],"at":1700000004000},' +
        '"createdAt":1700000001000,"updatedAt":1700000003000,"finishedAt":1700000003000,"abortReason":null}\n',
    );
    store.close();
  });
});

const tinyEpisode = (): EpisodeRecord => ({
  type: 'episode',
  id: 'e1',
  runId: null,
  status: 'complete',
  task: { family: 'backend', split: 'test', seed: 4, options: { tests: 3 }, hidden: { reference: 'double' } },
  model,
  turns: [
    {
      role: 'system',
      text: 'Write f.',
      tokens: null,
      logprobs: null,
      promptTokens: 0,
      completionTokens: 0,
      reward: 0,
      done: false,
      latencyMs: 0,
      backend: 'env',
      info: {},
      at: 1,
    },
    {
      role: 'agent',
      text: 'What does f do?',
      tokens: null,
      logprobs: null,
      promptTokens: 5,
      completionTokens: 4,
      reward: 0,
      done: false,
      latencyMs: 3,
      backend: 'wasm',
      info: {},
      at: 2,
    },
    {
      role: 'collaborator',
      text: 'It doubles.',
      tokens: null,
      logprobs: null,
      promptTokens: 0,
      completionTokens: 0,
      reward: 0,
      done: false,
      latencyMs: 0,
      backend: 'simulator',
      info: {},
      at: 3,
    },
    {
      role: 'agent',
      text: 'I WANT TO ANSWER: f(x) = 2 * x',
      tokens: null,
      logprobs: null,
      promptTokens: 9,
      completionTokens: 8,
      reward: 0.75,
      done: true,
      latencyMs: 3,
      backend: 'wasm',
      info: {},
      at: 4,
    },
  ],
  outcome: { success: false, totalReward: 0.75, turns: 2 },
  credit: [{ estimator: 'sweet', version: 'critic-2', params: { beta: 0.1, centre: 8 }, values: [null, 0.5, null, 0.25], at: 5 }],
  createdAt: 1,
  updatedAt: 5,
  finishedAt: 5,
  abortReason: null,
});

describe('chat messages (TRL)', () => {
  it('maps roles and carries reward and per-message credit', async () => {
    expect(toChatRecord(tinyEpisode())).toEqual({
      messages: [
        { role: 'system', content: 'Write f.' },
        { role: 'assistant', content: 'What does f do?' },
        { role: 'user', content: 'It doubles.' },
        { role: 'assistant', content: 'I WANT TO ANSWER: f(x) = 2 * x' },
      ],
      id: 'e1',
      task: { family: 'backend', split: 'test', seed: 4, options: '{"tests":3}' },
      hidden: '{"reference":"double"}',
      reward: 0.75,
      success: false,
      turn_rewards: [0, 0, 0, 0.75],
      // nulls (no value on the prompt and the reply) are left out with their message index
      // parameters as JSON text: SWEET-RL's β and the K it was centred over
      credit: [{ name: 'sweet@critic-2', params: '{"beta":0.1,"centre":8}', messages: [1, 3], values: [0.5, 0.25] }],
    });
    const run = {
      type: 'run' as const,
      id: 'r',
      name: '',
      createdAt: 0,
      models: { policy: 'p', critic: null },
      adapterId: null,
      algorithm: '',
      settings: {},
      seed: 0,
      notes: '',
    };
    const lines = (await collectText(encodeChatJsonl([run, tinyEpisode()]))).split('\n');
    expect(lines).toHaveLength(2); // one record and the final newline; the run is skipped
  });
});

describe('SWEET-RL records', () => {
  it('exports task, dialogue_history, answer and reward', () => {
    expect(toSweetRecord(tinyEpisode())).toEqual({
      task: { problem_description: 'Write f.', ground_truth: '{"reference":"double"}', family: 'backend', split: 'test', seed: 4 },
      dialogue_history: [
        { role: 'system', content: 'Write f.' },
        { role: 'assistant', content: 'What does f do?' },
        { role: 'user', content: 'It doubles.' },
        { role: 'assistant', content: 'I WANT TO ANSWER: f(x) = 2 * x' },
      ],
      answer: ' f(x) = 2 * x',
      reward: 0.75,
      turnwise: {
        id: tinyEpisode().id,
        family: 'backend',
        split: 'test',
        seed: 4,
        options: { tests: 3 },
        model,
        success: false,
        reply: 'collaborator',
        groundTruth: 'json',
      },
    });
  });

  it("keeps the episode id through export and import, so re-importing the lab's own file adds no copies", async () => {
    const store = await openStore();
    const ids = [await writeEpisode(store, { seed: 1 }), await writeEpisode(store, { seed: 2 })];
    const records = await store.getEpisodes(ids);
    const text = await collectText(encodeSweet(records.map((r) => ({ ...r!, type: 'episode' as const }))));
    const { report, result } = await importFile(store, textSource(text), { source: 'sweet.jsonl' });
    expect(report.ok).toBe(true);
    expect(result).toMatchObject({ episodes: 0, skipped: 2 });
    expect(await store.countEpisodes()).toBe(2);
    // a file written before the id was carried keeps the "<file>#<line>" ids
    const old = text
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const r = JSON.parse(l);
        delete r.turnwise.id;
        return JSON.stringify(r);
      })
      .join('\n');
    const again = await importFile(store, textSource(old), { source: 'old.jsonl' });
    expect(again.result).toMatchObject({ episodes: 2, skipped: 0 });
    expect(
      (await store.listEpisodes({}, { limit: 10 })).items
        .map((e) => e.id)
        .filter((id) => id.startsWith('old.jsonl#'))
        .sort(),
    ).toEqual(['old.jsonl#1', 'old.jsonl#2']);
    store.close();
  });

  it('imports ColBench lines as episodes and exports them back to the same record', async () => {
    const colbench = {
      task: { problem_description: 'Write a function that doubles.', ground_truth: 'def f(x):\n    return 2 * x', test_cases: { t1: 'f(1) == 2' } },
      dialogue_history: [
        { role: 'user', content: 'Write a function that doubles.' },
        { role: 'assistant', content: 'Integers only?', input: 'prompt text', output: 'OUTPUT: Integers only?' },
        { role: 'user', content: 'Yes.' },
        { role: 'assistant', content: 'I WANT TO ANSWER: def f(x): return 2 * x' },
      ],
      answer: ' def f(x): return 2 * x',
      reward: 1,
    };
    const text = `${JSON.stringify(colbench)}\n\n${JSON.stringify({ ...colbench, reward: 0.5 })}\n`;
    const events = [];
    for await (const ev of decodeSweet(readLines(textSource(text)), { idPrefix: 'cb.jsonl', now: 1000 })) events.push(ev);
    expect(events.map((e) => e.kind)).toEqual(['record', 'record']);
    const ep = (events[0] as { record: EpisodeRecord }).record;
    expect(ep).toMatchObject({
      id: 'cb.jsonl#1',
      task: { family: 'colbench', split: 'train', seed: 1, hidden: colbench.task },
      outcome: { success: true, totalReward: 1, turns: 2 },
    });
    expect(ep.turns.map((t) => [t.role, t.reward, t.done])).toEqual([
      ['collaborator', 0, false],
      ['agent', 0, false],
      ['collaborator', 0, false],
      ['agent', 1, true],
    ]);
    expect(ep.turns[1].info).toEqual({ input: 'prompt text', output: 'OUTPUT: Integers only?' });
    expect((events[1] as { record: EpisodeRecord }).record).toMatchObject({ id: 'cb.jsonl#3', outcome: { success: false, totalReward: 0.5 } });
    const back = JSON.parse((await collectText(encodeSweet([ep]))).trim());
    expect(back).toEqual({
      task: colbench.task,
      dialogue_history: colbench.dialogue_history.map(({ role, content }) => ({ role, content })),
      answer: colbench.answer,
      reward: 1,
      turnwise: {
        id: 'cb.jsonl#1',
        family: 'colbench',
        split: 'train',
        seed: 1,
        options: {},
        model: { policy: 'unknown', adapter: null, critic: null },
        success: true,
        reply: 'collaborator',
      },
    });
  });
});

describe('veRL Parquet', () => {
  it('writes the veRL columns, read back by hyparquet', async () => {
    const eps = [tinyEpisode(), { ...tinyEpisode(), id: 'e2', outcome: null, status: 'interrupted' as const }];
    const chunks: Uint8Array[] = [];
    for await (const c of encodeExport('parquet', eps)) chunks.push(c);
    expect(chunks).toHaveLength(1);
    const bytes = chunks[0];
    const rows = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer });
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual({
      data_source: 'turnwise/backend',
      prompt: [{ role: 'system', content: 'Write f.' }],
      ability: 'backend',
      reward_model: { style: 'rule', ground_truth: '{"reference":"double"}' },
      extra_info: {
        split: 'test',
        index: 0n,
        episode_id: 'e1',
        family: 'backend',
        seed: 4n,
        reward: 0.75,
        success: false,
        turns: 2,
        options: JSON.stringify(tinyEpisode().task.options),
      },
      messages: toChatRecord(tinyEpisode()).messages,
    });
    expect(rows[1].extra_info).toMatchObject({ index: 1n, episode_id: 'e2', reward: null, success: null, turns: 2 });
  });

  it('writes several row groups for many episodes', async () => {
    const many = Array.from({ length: 2500 }, (_, i) => ({ ...tinyEpisode(), id: `e${i}` }));
    const chunks: Uint8Array[] = [];
    let progressCalls = 0;
    for await (const c of encodeExport('parquet', many, { onProgress: () => progressCalls++ })) chunks.push(c);
    expect(progressCalls).toBe(3);
    const rows = await parquetReadObjects({ file: chunks[0].slice().buffer, columns: ['extra_info'] });
    expect(rows.map((r) => (r.extra_info as { episode_id: string }).episode_id)).toEqual(many.map((e) => e.id));
  });
});

describe('readLines', () => {
  async function lines(chunks: Uint8Array[], maxLineBytes?: number): Promise<LineEvent[]> {
    const out: LineEvent[] = [];
    for await (const ev of readLines(chunks, { maxLineBytes })) out.push(ev);
    return out;
  }
  const bytes = (s: string) => new TextEncoder().encode(s);

  it('splits at LF, drops CR and a leading BOM, and keeps multi-byte characters split across chunks', async () => {
    const all = bytes('\ufeffa\r\nsnow ☃\n\nlast');
    const cut = all.indexOf(0xe2) + 1; // inside the snowman's three bytes
    expect(await lines([all.slice(0, cut), all.slice(cut)])).toEqual([
      { kind: 'line', line: 1, text: 'a' },
      { kind: 'line', line: 2, text: 'snow ☃' },
      { kind: 'line', line: 3, text: '' },
      { kind: 'line', line: 4, text: 'last' },
    ]);
  });

  it('reports invalid UTF-8 and over-long lines by number and goes on', async () => {
    const bad = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a]);
    expect(await lines([bad, bytes('x'.repeat(50) + '\nok\n')], 10)).toEqual([
      { kind: 'error', line: 1, message: 'line is not valid UTF-8' },
      { kind: 'error', line: 2, message: 'line is longer than 10 bytes' },
      { kind: 'line', line: 3, text: 'ok' },
    ]);
  });
});

it('exports from the store in a fresh database name too (no shared state)', async () => {
  const store = await openStore(freshName());
  const ep = await store.beginEpisode({ task: task(1), model });
  await store.appendTurn(ep.id, collaboratorTurn(0));
  expect((await exportText(store)).split('\n')).toHaveLength(3);
  store.close();
});
