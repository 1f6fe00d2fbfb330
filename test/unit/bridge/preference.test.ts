import { describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  divergence,
  episodePairs,
  noPairsReason,
  pairEpisodes,
  pairTurns,
  turnPairs,
  type PairingSummary,
  type PreferenceRecord,
} from '../../../src/rl/store/formats/preference.ts';
import { encodeExport } from '../../../src/rl/store/formats/index.ts';
import { readSafetensors } from '../../../src/rl/model/safetensors.ts';
import type { EpisodeRecord, MessageRecord } from '../../../src/rl/store/schema.ts';
import { exportModel } from '../../../src/cli/commands/export-model.ts';
import { nodeWriter } from '../../../src/rl/model/folder/nodeIo.ts';
import { forgedFolder } from './fixture.ts';

const turn = (role: MessageRecord['role'], text: string): MessageRecord => ({
  role,
  text,
  tokens: null,
  logprobs: null,
  promptTokens: 0,
  completionTokens: 0,
  reward: 0,
  done: false,
  latencyMs: 0,
  backend: 'test',
  info: {},
  at: 0,
});

/** An episode of task `seed`: prompt, then alternating agent / collaborator texts; `credit` per turn for estimator "sweet". */
function ep(id: string, seed: number, texts: string[], ret: number, credit?: (number | null)[]): EpisodeRecord {
  return {
    type: 'episode',
    id,
    runId: null,
    status: 'complete',
    task: { family: 'guess', split: 'train', seed, options: {}, hidden: { item: 'cat' } },
    model: { policy: 'p', adapter: null, critic: null },
    turns: [turn('system', 'P'), ...texts.map((t, i) => turn(i % 2 === 0 ? 'agent' : 'collaborator', t))],
    outcome: { success: ret > 0, totalReward: ret, turns: Math.ceil(texts.length / 2) },
    credit: credit ? [{ estimator: 'sweet', version: 'c1', params: {}, values: [null, ...credit], at: 0 }] : [],
    createdAt: 0,
    updatedAt: 0,
    finishedAt: 0,
    abortReason: null,
  };
}

// The task prompt (a system record) is the user's request in pairs (preference.ts pairRole).
const sys = { role: 'user', content: 'P' };
const as = (content: string) => ({ role: 'assistant', content });
const us = (content: string) => ({ role: 'user', content });

describe('preference pairs', () => {
  it('divergence backs up to a shared point where both continue with an agent turn', () => {
    expect(divergence([sys, as('a'), us('x'), as('b')] as never, [sys, as('a'), us('y'), as('c')] as never)).toBe(1);
    expect(divergence([sys, as('a')] as never, [sys, as('b')] as never)).toBe(1);
  });

  it('episode-level: top half paired with bottom half per task, prompt = shared prefix', () => {
    const eps = [
      ep('w', 1, ['mammal?', 'Yes.', 'guess: cat', 'Correct!'], 1),
      ep('l', 1, ['mammal?', 'Yes.', 'guess: cow', 'Wrong.'], 0),
      ep('m', 1, ['guess: cow', 'Wrong.'], 0.5),
      ep('t', 2, ['guess: cat', 'Correct!'], 1), // alone in its task: no pair
    ];
    const pairs = episodePairs(eps);
    expect(pairs).toHaveLength(1);
    // ranked w (1), m (0.5), l (0): half = 1 → w vs l
    expect(pairs[0]).toMatchObject<Partial<PreferenceRecord>>({
      prompt: [sys, as('mammal?'), us('Yes.')] as never,
      chosen: [as('guess: cat'), us('Correct!')] as never,
      rejected: [as('guess: cow'), us('Wrong.')] as never,
      level: 'episode',
      turn: 1,
      score_chosen: 1,
      score_rejected: 0,
      chosen_episode: 'w',
      rejected_episode: 'l',
      hidden: '{"item":"cat"}',
      system_prompt: true, // prompt[0] is the lab's system record, given the user role here
    });
    expect(episodePairs(eps, { minMargin: 1 })).toHaveLength(0);
  });

  it('turn-level: replies to the same history, identical replies averaged, ranked by return or by a credit estimator', () => {
    const eps = [
      ep('a', 1, ['mammal?', 'Yes.', 'guess: cat', 'Correct!'], 1, [0.2, 0, 0.9, 0]),
      ep('b', 1, ['mammal?', 'Yes.', 'guess: cow', 'Wrong.'], 0, [0.2, 0, -0.5, 0]),
      ep('c', 1, ['fly?', 'No.', 'guess: cat', 'Correct!'], 1, [0.4, 0, 0.9, 0]),
    ];
    // by return: turn 0 has replies mammal? (mean of 1 and 0 = 0.5) and fly? (1) → fly? ≻ mammal?;
    // turn 1 after [mammal?, Yes.]: guess: cat (1) ≻ guess: cow (0); after [fly?, No.]: one reply, no pair
    const byReturn = turnPairs(eps);
    expect(byReturn.map((p) => [p.turn, p.chosen[0].content, p.rejected[0].content, p.score_chosen, p.score_rejected])).toEqual([
      [0, 'fly?', 'mammal?', 1, 0.5],
      [1, 'guess: cat', 'guess: cow', 1, 0],
    ]);
    expect(byReturn[1].prompt).toEqual([sys, as('mammal?'), us('Yes.')]);
    const byCredit = turnPairs(eps, { credit: 'sweet' });
    expect(byCredit.map((p) => [p.chosen[0].content, p.score_chosen, p.score_rejected])).toEqual([
      ['fly?', 0.4, 0.2],
      ['guess: cat', 0.9, -0.5],
    ]);
    expect(turnPairs(eps, { credit: 'sweet@other' })).toEqual([]);
  });

  it('are registered export formats (one JSON object per line)', async () => {
    const eps = [ep('w', 1, ['a', 'x'], 1), ep('l', 1, ['b', 'x'], 0)];
    for (const f of ['dpo', 'turn-dpo'] as const) {
      const dec = new TextDecoder();
      const parts: string[] = [];
      for await (const c of encodeExport(f, eps)) parts.push(dec.decode(c));
      const lines = parts
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as PreferenceRecord);
      expect(lines).toHaveLength(1);
      expect(lines[0].chosen[0]).toEqual(as('a'));
      // a first-turn pair's prompt is the task prompt alone; TRL refuses a prompt ending in a system message
      expect(lines[0].prompt).toEqual([sys]);
      expect(lines[0].system_prompt).toBe(true);
    }
  });
});

describe('when no pair forms', () => {
  // What exporting Play's episodes gave before (issue 20): 0 bytes and "Exported 20 episodes". Play
  // gives each episode a new task, so there is nothing to pair; the summary says so.
  const play = [ep('a', 1, ['guess: cat', 'Correct!'], 1), ep('b', 2, ['guess: cow', 'Wrong.'], 0), ep('c', 3, ['mammal?', 'Yes.'], 0.5)];

  it('says every task was played once', () => {
    const { pairs, summary } = pairEpisodes(play);
    expect(pairs).toEqual([]);
    expect(summary).toEqual<PairingSummary>({ level: 'episode', episodes: 3, finished: 3, tasks: 3, candidates: 0, scoredTurns: 0, credit: null, pairs: 0 });
    expect(noPairsReason(summary)).toBe(
      'the 3 finished episodes are of 3 different tasks, each played once: a pair needs two finished episodes of the same task (family, split, seed and options)',
    );
    const turns = pairTurns(play).summary;
    expect(turns).toMatchObject({ level: 'turn', finished: 3, tasks: 3, candidates: 0, scoredTurns: 3, pairs: 0 });
    expect(noPairsReason(turns)).toMatch(
      /^the 3 finished episodes are of 3 different tasks, each played once, and no two episodes answer the same task and history with different replies/,
    );
  });

  it('says when the episodes are unfinished, tied, or lack the credit asked for', () => {
    const unfinished = play.map((e) => ({ ...e, status: 'interrupted' as const, outcome: null }));
    expect(noPairsReason(pairEpisodes(unfinished).summary)).toBe(
      'none of the 3 episodes is finished (complete, with an outcome), and only finished episodes are paired',
    );
    const tied = [ep('a', 1, ['guess: cat', 'Correct!'], 1), ep('b', 1, ['mammal?', 'Yes.', 'guess: cat', 'Correct!'], 1)];
    expect(noPairsReason(pairEpisodes(tied).summary)).toMatch(/^the 1 task played more than once scored the same in every episode/);
    expect(noPairsReason(pairTurns(tied).summary)).toMatch(/^the 1 history answered with different replies scored the same/);
    expect(noPairsReason(pairTurns(tied, { credit: 'sweet' }).summary)).toBe('the 2 finished episodes carry no stored "sweet" credit to rank replies by');
    expect(noPairsReason(pairEpisodes([]).summary)).toBe('there are no episodes to pair');
    expect(noPairsReason(pairEpisodes(play.slice(0, 1)).summary)).toBe(
      'the one finished episode is of one task, played once: a pair needs two finished episodes of the same task (family, split, seed and options)',
    );
    expect(noPairsReason(pairEpisodes([ep('w', 1, ['a', 'x'], 1), ep('l', 1, ['b', 'x'], 0)]).summary)).toBeNull();
  });

  it('reaches encodeExport callers before the (empty) output', async () => {
    for (const f of ['dpo', 'turn-dpo'] as const) {
      const seen: PairingSummary[] = [];
      const chunks: Uint8Array[] = [];
      for await (const c of encodeExport(f, play, { onPairing: (s) => seen.push(s) })) chunks.push(c);
      expect(chunks).toEqual([]);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ episodes: 3, pairs: 0 });
    }
  });
});

describe('turnwise export-model', () => {
  it('writes the folder (with data/ from --data) in one command and refuses a non-empty --out', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tw-export-'));
    try {
      const mem = await forgedFolder();
      const w = nodeWriter(join(dir, 'models'));
      for (const [p, b] of mem.files) await w(p, b);
      const data = join(dir, 'eps.turnwise.jsonl');
      const eps = [ep('w', 1, ['a', 'x'], 1), ep('l', 1, ['b', 'x'], 0)];
      await writeFile(data, [JSON.stringify({ format: 'turnwise.trajectories', version: 1 }), ...eps.map((e) => JSON.stringify(e))].join('\n') + '\n');
      const out = join(dir, 'out');
      const write = process.stdout.write;
      process.stdout.write = () => true;
      try {
        expect(await exportModel.run(['--model', join(dir, 'models', 'policy'), '--adapter', 'init:3:2', '--data', data, '--out', out, '--json'])).toBe(0);
      } finally {
        process.stdout.write = write;
      }
      expect((await readdir(out)).sort()).toEqual([
        'README.md',
        'adapter',
        'config.json',
        'data',
        'generation_config.json',
        'model.safetensors',
        'onnx',
        'special_tokens_map.json',
        'tokenizer.json',
        'tokenizer_config.json',
        'turnwise_check.json',
      ]);
      expect((await readdir(join(out, 'data'))).sort()).toEqual([
        'episodes.chat.jsonl',
        'episodes.dpo.jsonl',
        'episodes.parquet',
        'episodes.sweet.jsonl',
        'episodes.turn-dpo.jsonl',
      ]);
      expect(JSON.parse(await readFile(join(out, 'adapter', 'adapter_config.json'), 'utf8'))).toMatchObject({
        r: 2,
        lora_alpha: 4,
        base_model_name_or_path: out,
      });
      // the exported adapter folder is itself a valid --adapter
      const again = join(dir, 'again');
      process.stdout.write = () => true;
      try {
        expect(await exportModel.run(['--model', out, '--adapter', join(out, 'adapter'), '--out', again])).toBe(0);
      } finally {
        process.stdout.write = write;
      }
      const tensors = async (d: string) => readSafetensors(new Uint8Array(await readFile(join(d, 'adapter', 'adapter_model.safetensors')))).tensors;
      const [a, b] = [await tensors(out), await tensors(again)];
      expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
      for (const k of Object.keys(a))
        expect(Buffer.from((b[k].data as Float32Array).buffer).equals(Buffer.from((a[k].data as Float32Array).buffer))).toBe(true);
      await expect(exportModel.run(['--model', out, '--out', out])).rejects.toThrow('exists and is not empty');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
