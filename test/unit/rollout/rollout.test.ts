// The rollout loop with scripted agents: event order, K episodes per task on distinct streams, the
// turn limit, a person's replies through the collaborator callback, the batched rollout against the
// same agent one episode at a time (playEpisode) and playEpisode against a plain loop written here,
// and the store sink committing each turn.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { scriptedBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { episodeSeed, playEpisode, rollout, RolloutError, runSlots, successTurns, taskSpecs, type RolloutEvent } from '../../../src/rl/rollout/rollout.ts';
import { storeSink } from '../../../src/rl/rollout/sink.ts';
import { playTurn, pushTurn } from '../../../src/rl/envs/episode.ts';
import type { Agent, EpisodeTurn, Message, TaskSpec } from '../../../src/rl/envs/types.ts';
import { createAgent, createEnv, type FamilyName } from '../../../src/rl/envs/registry.ts';
import { TrajectoryStore } from '../../../src/rl/store/index.ts';
import { timeless } from './timeless.ts';

/** The reference: one agent, one environment, a plain loop until the environment ends. */
async function byHand(agent: Agent, spec: TaskSpec): Promise<EpisodeTurn[]> {
  const env = createEnv(spec.family);
  const dialogue: Message[] = [{ role: 'user', content: env.reset(spec).prompt }];
  const turns: EpisodeTurn[] = [];
  while (!env.done) {
    const turn = await playTurn(env, await agent.act(dialogue));
    turns.push(turn);
    pushTurn(dialogue, turn);
  }
  return turns;
}

const noisy = (family: FamilyName) => scriptedBatchAgent('noisy(0.3)', (seed) => createAgent('noisy', family, { seed }));

describe('rollout', () => {
  it('plays K episodes per task, emitting start, every turn in order, then end', async () => {
    const events: RolloutEvent[] = [];
    const tasks = taskSpecs('frozenlake', 'test', 2, 5);
    const r = await rollout({ tasks, k: 3, seed: 1 }, noisy('frozenlake'), { onEvent: (e) => void events.push(e) });
    expect(r.episodes.length).toBe(6);
    r.episodes.forEach((e, i) => {
      expect(e.task.spec.seed).toBe(tasks[Math.floor(i / 3)].seed);
      expect(e.task.spec.stream ?? 0).toBe(i % 3);
      expect(e.seed).toBe(episodeSeed(1, tasks[Math.floor(i / 3)], i % 3));
      const mine = events.filter((ev) => ev.slot === i);
      expect(mine[0].kind).toBe('start');
      expect(mine.at(-1)?.kind).toBe('end');
      const turns = mine.filter((ev) => ev.kind === 'turn');
      expect(turns.map((ev) => (ev.kind === 'turn' ? ev.index : -1))).toEqual(e.turns.map((_, t) => t));
      expect(turns.map((ev) => (ev.kind === 'turn' ? ev.turn : null))).toEqual(e.turns);
      expect(e.turns.every((x) => x.backend === 'scripted' && x.tokens === null)).toBe(true);
    });
    // all starts come before any turn: the batch begins together
    const firstTurn = events.findIndex((ev) => ev.kind === 'turn');
    expect(events.slice(0, firstTurn).every((ev) => ev.kind === 'start')).toBe(true);
    // the K episodes of a task differ (streams and agent seeds)
    const texts = new Set(r.episodes.slice(0, 3).map((e) => JSON.stringify(e.turns.map((t) => t.observation))));
    expect(texts.size).toBeGreaterThan(1);
    expect(successTurns(r).map((s) => s.length)).toEqual([3, 3]);
  });

  it('stops at the turn limit and marks the episode truncated', async () => {
    const r = await rollout({ tasks: taskSpecs('guess', 'test', 3, 1), k: 2, seed: 2, turnLimit: 2 }, noisy('guess'));
    for (const e of r.episodes) {
      expect(e.turns.length).toBeLessThanOrEqual(2);
      expect(e.truncated).toBe(!e.turns[e.turns.length - 1].done);
    }
    expect(r.episodes.some((e) => e.truncated)).toBe(true);
    await expect(rollout({ tasks: [], k: 1, seed: 0 }, noisy('guess'))).rejects.toThrow(RolloutError);
    await expect(rollout({ tasks: taskSpecs('guess', 'test', 1, 1), k: 1, seed: 0, turnLimit: 0 }, noisy('guess'))).rejects.toThrow(
      /turnLimit must be an integer ≥ 1/,
    );
    await expect(rollout({ tasks: taskSpecs('guess', 'test', 1, 1), k: 0, seed: 0 }, noisy('guess'))).rejects.toThrow(
      /K \(episodes per task\) must be an integer ≥ 1/,
    );
  });

  it('batched equals the same agent one episode at a time (playEpisode), stream and seed', async () => {
    const tasks = taskSpecs('guess', 'test', 2, 11);
    const r = await rollout({ tasks, k: 2, seed: 3 }, noisy('guess'));
    for (const e of r.episodes) {
      const alone = await playEpisode(createAgent('noisy', 'guess', { seed: e.seed }), e.task.spec, { seed: e.seed });
      expect(timeless(e.turns)).toEqual(timeless(alone.turns));
      expect(e.task).toEqual(alone.task);
      expect([e.success, e.totalReward, e.agent, e.seed, e.truncated]).toEqual([alone.success, alone.totalReward, alone.agent, alone.seed, alone.truncated]);
    }
  });

  it('playEpisode equals a plain loop of the same agent, and its options reach the loop', async () => {
    for (const family of ['guess', 'backend', 'frozenlake', 'bandit', 'sokoban'] as const) {
      const spec: TaskSpec = { family, split: 'test', seed: 8 };
      const e = await playEpisode(createAgent('noisy', family, { seed: 5 }), spec);
      expect(timeless(e.turns)).toEqual(await byHand(createAgent('noisy', family, { seed: 5 }), spec));
      expect(e).toMatchObject({ seed: 8, slot: 0, prefixTurns: 0, truncated: false, agent: 'noisy(0.3)' });
      expect(e.totalReward).toBe(e.turns.reduce((a, t) => a + t.reward, 0));
    }
    const spec: TaskSpec = { family: 'guess', split: 'test', seed: 2 };
    const events: RolloutEvent[] = [];
    const cut = await playEpisode(createAgent('expert', 'guess', { seed: 1 }), spec, { seed: 77, turnLimit: 1, onEvent: (ev) => void events.push(ev) });
    expect(cut).toMatchObject({ seed: 77, truncated: true });
    expect(cut.turns).toHaveLength(1);
    expect(events.map((ev) => ev.kind)).toEqual(['start', 'turn', 'end']);
  });

  it("uses a person's replies through the collaborator callback", async () => {
    const asked: number[] = [];
    const [e] = await runSlots([{ spec: { family: 'guess', split: 'test', seed: 2 }, seed: 1 }], noisy('guess'), {
      collaborator: async (req) => {
        asked.push(req.turn);
        return req.suggestion;
      },
    });
    expect(asked.length).toBeGreaterThan(0);
    expect(e.turns.filter((t) => t.replySource === 'person').length).toBe(asked.length);
  });

  it('persists every episode through the store sink, turn by turn', async () => {
    const store = await TrajectoryStore.open({ name: `rollout-${Date.now()}` });
    const sink = storeSink(store, { policy: 'noisy', adapter: null, critic: null });
    const r = await rollout({ tasks: taskSpecs('bandit', 'test', 2, 1), k: 2, seed: 1 }, noisy('bandit'), { onEvent: sink.onEvent });
    expect(sink.ids.size).toBe(4);
    for (const [slot, id] of sink.ids) {
      const stored = await store.getEpisode(id);
      expect(stored?.status).toBe('complete');
      expect(stored?.turns.length).toBe(1 + 2 * r.episodes[slot].turns.length);
      expect(stored?.outcome?.success).toBe(r.episodes[slot].success);
    }
    // an episode stopped by the rollout's turn limit is closed as aborted, with its turns kept
    const cut = storeSink(store, { policy: 'noisy', adapter: null, critic: null });
    const r2 = await rollout({ tasks: taskSpecs('frozenlake', 'test', 1, 1), k: 1, seed: 1, turnLimit: 1 }, noisy('frozenlake'), { onEvent: cut.onEvent });
    const stored = await store.getEpisode(cut.ids.get(0) as string);
    expect(r2.episodes[0].truncated).toBe(true);
    expect(stored?.status).toBe('aborted');
    expect(stored?.turns.length).toBe(3);
    store.close();
  });
});
