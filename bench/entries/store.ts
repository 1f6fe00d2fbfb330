// The trajectory store in Node under fake-indexeddb (an in-memory IndexedDB written in JS): durable
// turn writes (one transaction each), a batched import, listing 10,000 episodes, export and import
// validation throughput, and the JSON size of a turn. These are NOT browser figures — fake-indexeddb
// neither touches disk nor uses the browser's IndexedDB engine; the browser test will measure those.
import { time, type BenchEntry, type BenchRow } from '../harness.ts';
import type { EpisodeRecord, MessageRecord } from '../../src/rl/store/schema.ts';

const NOTE = 'fake-indexeddb in Node (in memory), not a browser';

function turn(i: number, tokens: number): MessageRecord {
  const agent = i % 2 === 0;
  return {
    role: agent ? 'agent' : 'collaborator',
    text: agent ? 'Is it bigger than a breadbox and does it have four legs?' : 'No, it does not.',
    tokens: agent ? Array.from({ length: tokens }, (_, k) => (k * 7919) % 4096) : null,
    logprobs: agent ? Array.from({ length: tokens }, (_, k) => Math.fround(-0.01 - (k % 13) * 0.173)) : null,
    promptTokens: 120 + i * 20,
    completionTokens: agent ? tokens : 0,
    reward: 0,
    done: false,
    latencyMs: agent ? 31.5 : 0,
    backend: agent ? 'webgpu' : 'simulator',
    info: agent ? { parsed: true } : {},
    at: 1_700_000_000_000 + i,
  };
}

function episode(k: number, turns: number, tokens: number): EpisodeRecord {
  return {
    type: 'episode',
    id: `bench-${k}`,
    runId: null,
    status: 'complete',
    task: {
      family: k % 2 ? 'guess' : 'backend',
      split: k % 5 ? 'train' : 'test',
      seed: k,
      options: {},
      hidden: { item: `item-${k % 100}`, attributes: { legs: 4, red: false } },
    },
    model: { policy: 'policy-v1', adapter: null, critic: null },
    turns: Array.from({ length: turns }, (_, i) => turn(i, tokens)),
    outcome: { success: k % 3 === 0, totalReward: k % 3 === 0 ? 1 : 0, turns: Math.ceil(turns / 2) },
    credit: [],
    createdAt: 1_700_000_000_000 + k * 1000,
    updatedAt: 1_700_000_000_000 + k * 1000,
    finishedAt: 1_700_000_000_000 + k * 1000,
    abortReason: null,
  };
}

export const store: BenchEntry = {
  name: 'store',
  description: 'trajectory store (fake-indexeddb in Node): durable turns/s, import rows/s, listing 10k episodes, bytes per turn',
  byDefault: true,
  async run(log) {
    // Installs IndexedDB globals; loaded here, not at the top, so other benches never see them.
    // (A plain side-effect module without type declarations: imported through a string variable.)
    const fakeIdb = 'fake-indexeddb/auto';
    await import(fakeIdb);
    const { TrajectoryStore } = await import('../../src/rl/store/store.ts');
    const { encodeTurnwise } = await import('../../src/rl/store/formats/turnwise.ts');
    const { collectText, textSource } = await import('../../src/rl/store/formats/lines.ts');
    const { validateImport } = await import('../../src/rl/store/importer.ts');
    const rows: BenchRow[] = [];
    const name = `bench-store-${Date.now()}`;
    const db = await TrajectoryStore.open({ name });

    // Durable turn writes: each appendTurn is one transaction, resolved after commit.
    const ep = await db.beginEpisode({ task: { family: 'guess', split: 'train', seed: 1, hidden: {} }, model: { policy: 'p', adapter: null, critic: null } });
    const sample = turn(0, 32);
    const t = await time(() => db.appendTurn(ep.id, sample), { warmup: 20, iterations: 2000, budgetMs: 4000 });
    log(`store: ${t.perSecond.toFixed(0)} durable turns/s (median ${t.medianMs.toFixed(3)} ms)`);
    rows.push({ case: 'appendTurn, 32 tokens, 1 tx per turn', metric: 'turns/s', value: t.perSecond, unit: '1/s', note: NOTE });
    rows.push({ case: 'appendTurn, 32 tokens, 1 tx per turn', metric: 'median', value: t.medianMs, unit: 'ms', note: NOTE });

    // Batched import: 10,000 episodes × 6 turns, in 10 imports of 1,000 (each one transaction).
    const total = 10_000;
    let imported = 0;
    const t0 = performance.now();
    for (let b = 0; b < total / 1000; b++) {
      const batch = Array.from({ length: 1000 }, (_, k) => episode(b * 1000 + k, 6, 32));
      imported += (await db.importRecords(batch, { source: 'bench' })).turns;
    }
    const importS = (performance.now() - t0) / 1000;
    log(`store: imported ${total} episodes / ${imported} turns in ${importS.toFixed(2)} s`);
    rows.push({ case: 'importRecords, 1,000 episodes × 6 turns per transaction', metric: 'turns/s', value: imported / importS, unit: '1/s', note: NOTE });
    rows.push({ case: 'importRecords, 1,000 episodes × 6 turns per transaction', metric: 'episodes/s', value: total / importS, unit: '1/s', note: NOTE });

    // Listing: all 10,000 summaries in pages of 100, newest first; and one first page of a filter.
    const t1 = performance.now();
    let listed = 0;
    let after = null;
    do {
      const page: Awaited<ReturnType<typeof db.listEpisodes>> = await db.listEpisodes({}, { limit: 100, after });
      listed += page.items.length;
      after = page.next;
    } while (after);
    const listMs = performance.now() - t1;
    log(`store: listed ${listed} episodes in ${listMs.toFixed(0)} ms`);
    rows.push({ case: `list ${listed} episodes, pages of 100`, metric: 'time', value: listMs, unit: 'ms', note: NOTE });
    const page = await time(() => db.listEpisodes({ family: 'guess', outcome: 'success' }, { limit: 50 }), { warmup: 3, iterations: 50, budgetMs: 2000 });
    rows.push({ case: 'first page (50) of family+outcome filter over 10k', metric: 'median', value: page.medianMs, unit: 'ms', note: NOTE });

    // Export throughput (our JSONL) and import validation throughput (pure, no database).
    const t2 = performance.now();
    const text = await collectText(encodeTurnwise(db.exportRecords({ family: 'guess' })));
    const exportS = (performance.now() - t2) / 1000;
    const exported = text.split('\n').length - 2;
    rows.push({ case: 'export Turnwise JSONL from the store (5,000 episodes)', metric: 'episodes/s', value: exported / exportS, unit: '1/s', note: NOTE });
    const t3 = performance.now();
    const { report } = await validateImport(textSource(text), { format: 'turnwise', source: 'bench' });
    const validateS = (performance.now() - t3) / 1000;
    rows.push({
      case: 'validate Turnwise JSONL (6-turn episodes)',
      metric: 'lines/s',
      value: report.lines / validateS,
      unit: '1/s',
      note: 'pure TS, no database',
    });
    log(`store: export ${(exported / exportS).toFixed(0)} episodes/s, validation ${(report.lines / validateS).toFixed(0)} lines/s`);

    // Bytes per turn, as JSON (the export's size; IndexedDB's on-disk size is the browser's business).
    for (const tokens of [0, 32, 256]) {
      const bytes = new TextEncoder().encode(JSON.stringify(turn(0, tokens))).length;
      rows.push({ case: `one agent turn, ${tokens} tokens + log-probs`, metric: 'JSON size', value: bytes, unit: 'B', note: 'Turnwise JSONL bytes' });
    }
    rows.push({
      case: 'exported JSONL per turn, 6-turn episodes with hidden info',
      metric: 'JSON size',
      value: text.length / (exported * 6),
      unit: 'B',
      note: 'Turnwise JSONL bytes',
    });
    db.close();
    indexedDB.deleteDatabase(name);
    return rows;
  },
};
