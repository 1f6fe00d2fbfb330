// store/played.ts playedRecord against the second implementation it must equal: the same rollout
// recorded live through rollout/sink.ts into a TrajectoryStore and read back by exportRecords. Only
// ids and clocks differ (the store stamps each write), so the test pins both to one value.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { createAgent, type FamilyName } from '../../../src/rl/envs/registry.ts';
import { scriptedBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { isCollaborative, rollout, taskSpecs } from '../../../src/rl/rollout/rollout.ts';
import { storeSink } from '../../../src/rl/rollout/sink.ts';
import { EpisodeSchema, playedRecord, TrajectoryStore, type EpisodeRecord } from '../../../src/rl/store/index.ts';
import { freshName } from './helpers.ts';

const AT = 1_700_000_000_000;
const model = { policy: 'noisy', adapter: null, critic: null };

async function both(family: FamilyName, turnLimit?: number) {
  let n = 0;
  const store = await TrajectoryStore.open({ name: freshName('played'), newId: () => `ep-${++n}`, now: () => AT });
  const sink = storeSink(store, model);
  const agent = scriptedBatchAgent('noisy', (seed) => createAgent('noisy', family, { seed }));
  const played = await rollout({ tasks: taskSpecs(family, 'test', 2, 1), k: 2, seed: 1, ...(turnLimit ? { turnLimit } : {}) }, agent, {
    onEvent: sink.onEvent,
  });
  await sink.abort('rollout ended');
  const stored: EpisodeRecord[] = [];
  for await (const r of store.exportRecords()) if (r.type === 'episode') stored.push(r);
  store.close();
  const ids = [...sink.ids.entries()];
  const mine = ids.map(([slot, id]) =>
    playedRecord(played.episodes[slot], { id, runId: null, model, collaborative: isCollaborative(family), at: AT, truncated: played.episodes[slot].truncated }),
  );
  return { stored: stored.sort((a, b) => (a.id < b.id ? -1 : 1)), mine: mine.sort((a, b) => (a.id < b.id ? -1 : 1)) };
}

describe('playedRecord', () => {
  it.each(['guess', 'backend', 'frozenlake'] as const)('equals what the store records live for %s', async (family) => {
    const { stored, mine } = await both(family);
    expect(mine.length).toBe(4);
    expect(mine).toEqual(stored);
    for (const r of mine) expect(v.safeParse(EpisodeSchema, r).success).toBe(true);
  });

  it('closes an episode the turn limit stopped as the sink does (aborted, no outcome)', async () => {
    const { stored, mine } = await both('guess', 1);
    expect(mine.some((r) => r.status === 'aborted' && r.outcome === null && r.abortReason === 'stopped at the rollout turn limit')).toBe(true);
    expect(mine).toEqual(stored);
  });
});
