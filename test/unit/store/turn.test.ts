// The one turn shape (src/rl/store/turn.ts) end to end: turns a rollout plays (scripted, with a
// person's replies, and with a policy's tokens and log-probs) satisfy TurnSchema, and come back equal
// after rollout → IndexedDB (storeSink) → Turnwise JSONL export → import into another store → turnsOf.
// Also: messagesOf/turnsOf invert each other, turnsOf refuses records the lab did not write, and a
// committed format-version-1 file still imports, reads back as turns and re-exports byte for byte.
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createAgent, type FamilyName } from '../../../src/rl/envs/registry.ts';
import { scriptedBatchAgent, type BatchAgent } from '../../../src/rl/rollout/agents.ts';
import { rollout, taskSpecs, type RolloutEpisode } from '../../../src/rl/rollout/rollout.ts';
import { storeSink } from '../../../src/rl/rollout/sink.ts';
import { collectText, textSource } from '../../../src/rl/store/formats/lines.ts';
import { encodeTurnwise } from '../../../src/rl/store/formats/turnwise.ts';
import { importFile } from '../../../src/rl/store/importer.ts';
import { TurnSchema } from '../../../src/rl/envs/turn.ts';
import { messagesOf, perRecord, TurnShapeError, turnsOf } from '../../../src/rl/store/turn.ts';
import { openStore } from './helpers.ts';

/** A scripted agent that reports tokens and log-probs as a policy would (values exact in float32). */
function tokenAgent(family: FamilyName): BatchAgent {
  const inner = scriptedBatchAgent('noisy(0.3)', (seed) => createAgent('noisy', family, { seed }));
  return {
    name: 'policy(fake)',
    async act(requests) {
      const out = await inner.act(requests);
      return out.map((r) => {
        const tokens = Array.from(r.text.slice(0, 12), (c) => c.charCodeAt(0));
        return {
          text: r.text,
          agent: { tokens, logprobs: tokens.map((_, i) => -(i + 1) / 4), promptTokens: 40, completionTokens: tokens.length, latencyMs: 2.5, backend: 'wasm' },
        };
      });
    },
    release: (slot) => inner.release?.(slot),
  };
}

const cases: { family: FamilyName; agent: BatchAgent; person: boolean }[] = [
  { family: 'guess', agent: tokenAgent('guess'), person: true },
  { family: 'backend', agent: scriptedBatchAgent('noisy(0.3)', (seed) => createAgent('noisy', 'backend', { seed })), person: false },
  { family: 'frozenlake', agent: tokenAgent('frozenlake'), person: false },
];

describe('one turn shape', () => {
  it.each(cases)('$family: rollout → store → JSONL export → import gives the same turns', async ({ family, agent, person }) => {
    const store = await openStore();
    const sink = storeSink(store, { policy: 'policy', adapter: 'run-1/policy', critic: null }, { runId: 'run-1' });
    // a person who answers in their own words every other time (the reply is kept beside the observation)
    let asked = 0;
    const collaborator = person ? (q: { suggestion: string }) => (asked++ % 2 ? `${q.suggestion} (typed)` : q.suggestion) : undefined;
    const r = await rollout({ tasks: taskSpecs(family, 'test', 2, 7), k: 2, seed: 5 }, agent, {
      onEvent: sink.onEvent,
      ...(collaborator ? { collaborator } : {}),
    });
    for (const e of r.episodes) for (const t of e.turns) expect(v.safeParse(TurnSchema, t).success).toBe(true);
    if (person) expect(r.episodes.some((e) => e.turns.some((t) => t.replySource === 'person'))).toBe(true);

    const text = await collectText(encodeTurnwise(store.exportRecords({ runId: 'run-1' })));
    const other = await openStore();
    const { report } = await importFile(other, textSource(text), { format: 'turnwise', source: 'round-trip.jsonl' });
    expect(report.errors).toEqual([]);
    const check = (e: RolloutEpisode, stored: Awaited<ReturnType<typeof other.getEpisode>>) => {
      expect(stored).not.toBeNull();
      const back = turnsOf(stored?.turns ?? []);
      expect(back.prompt).toBe(e.task.prompt);
      expect(back.turns).toEqual(e.turns);
      expect(stored?.runId).toBe('run-1');
      expect(stored?.model.adapter).toBe('run-1/policy');
    };
    expect(sink.ids.size).toBe(r.episodes.length);
    for (const [slot, id] of sink.ids) check(r.episodes[slot], await other.getEpisode(id));
    store.close();
    other.close();
  });

  it('messagesOf and turnsOf invert each other; turnsOf refuses records the lab did not write', async () => {
    const r = await rollout({ tasks: taskSpecs('guess', 'test', 1, 3), k: 1, seed: 1 }, tokenAgent('guess'));
    const turns = r.episodes[0].turns;
    const records = [
      {
        role: 'system' as const,
        text: 'prompt',
        tokens: null,
        logprobs: null,
        promptTokens: 0,
        completionTokens: 0,
        reward: 0,
        done: false,
        latencyMs: 0,
        backend: 'env',
        info: {},
      },
      ...turns.flatMap((t) => messagesOf(t, true)),
    ];
    expect(turnsOf(records)).toEqual({ prompt: 'prompt', turns });
    expect(() => turnsOf([{ ...records[1], info: { parsed: true } }])).toThrow(TurnShapeError);
    expect(() => turnsOf([records[0], records[2]])).toThrow(/must follow an agent record/);
    // per-turn values land on the agent records, as credit rows are aligned
    const values = perRecord([1, -1]);
    expect(Array.from(values, (x) => (Number.isNaN(x) ? null : x))).toEqual([null, 1, null, -1, null]);
  });
});

describe('format version 1 files', () => {
  // test/fixtures/turnwise-v1.jsonl: a run and two episodes (guess with a person's typed replies,
  // frozenlake) written by the lab's rollout → storeSink → export path at format version 1.
  const fixture = readFileSync(new URL('../../fixtures/turnwise-v1.jsonl', import.meta.url), 'utf8');

  it('import, read back as turns, and export to the same bytes', async () => {
    const store = await openStore();
    const { report, result } = await importFile(store, textSource(fixture), { format: 'turnwise', source: 'turnwise-v1.jsonl' });
    expect(report.errors).toEqual([]);
    expect(result).toMatchObject({ runs: 1, episodes: 2 });
    const page = await store.listEpisodes({ runId: 'run-v1' }, { limit: 10 });
    expect(page.items.length).toBe(2);
    for (const e of await store.getEpisodes(page.items.map((s) => s.id))) {
      const { prompt, turns } = turnsOf(e?.turns ?? []);
      expect(prompt.length).toBeGreaterThan(0);
      for (const t of turns) expect(v.safeParse(TurnSchema, t).success).toBe(true);
      if (e?.task.family === 'guess') expect(turns.some((t) => t.replySource === 'person' && t.reply?.endsWith('(typed)'))).toBe(true);
    }
    // exported at the current version: the same lines, each episode with "criticScores":null (it has none)
    // and, as version 3 writes it, its hidden information as JSON text
    const upgraded = fixture
      .replace('"version":1}', '"version":3}')
      .replaceAll('],"createdAt":', '],"criticScores":null,"createdAt":')
      .split('\n')
      .map((l) => {
        const r = l ? (JSON.parse(l) as { type?: string; task?: { hidden: unknown } }) : null;
        return r?.type === 'episode' && r.task ? JSON.stringify({ ...r, task: { ...r.task, hidden: JSON.stringify(r.task.hidden) } }) : l;
      })
      .join('\n');
    expect(upgraded.match(/"criticScores":null/g)).toHaveLength(2);
    expect(await collectText(encodeTurnwise(store.exportRecords()))).toBe(upgraded);
    store.close();
  });
});
