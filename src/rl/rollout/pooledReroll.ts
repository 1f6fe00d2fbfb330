// Monte-Carlo re-roll credit pooled by state (issue #19 point c, made cheaper): the per-turn estimator
// of counterfactual.ts re-rolls every turn 2M times, even where the K episodes of one task already
// sampled the same state many times over. Here, within one task group:
//   V̂(s)      = mean of the returns from s of every turn that acted in s (the policy drew its move
//               afresh each time: on-policy samples of V(s)), topped up with fresh re-rolls from s;
//   Q̂(s, s′)  = mean of the returns of the turns that acted in s and led to the same next state s′
//               (or, for a turn that ended the episode, made the same move), topped up with re-rolls
//               that keep the move;
//   A_t       = Q̂(s_t, s_{t+1}) − V̂(s_t),
// each mean over at least M + 1 samples. States come from the caller's key (credit/stepGroups.ts
// anchorState: guess's own state, else the visible history), the grouping GiGPO (arXiv 2505.10978 §3.2)
// uses for its step groups; where a state was visited once, this is counterfactual.ts's estimator with
// the episode's own return in both means. On guess with K = 8, every episode of a group shares its
// first state and most share a later one, so most turns need no re-roll of their own.
import type { Task } from '../envs/types.ts';
import { agentSideOf } from '../envs/turn.ts';
import { hashString } from '../util/rng.ts';
import { meanOf } from '../util/stats.ts';
import type { BatchAgent } from './agents.ts';
import { checkedGamma, returnFrom, type CounterfactualOptions, type JudgedEpisode } from './counterfactual.ts';
import { runSlots, type EpisodeSlot } from './rollout.ts';

/** How to pool: the re-roll options and the key of the state turn t of an episode acted in (t ≤ its length). */
export interface PooledOptions extends CounterfactualOptions {
  stateOf: (e: JudgedEpisode, t: number) => string;
}

/** What the pooled credit found, per episode in the order of the groups, and the re-rolls it took. */
export interface PooledCredit {
  advantages: number[][];
  rerolls: number;
}

/** A pool of return samples: the visiting turns' own, then the re-rolls' (filled after the rollout). */
interface Pool {
  samples: number[];
  /** The first visiting turn: re-rolls start from its prefix. */
  episode: number;
  turn: number;
}

function poolOf(pools: Map<string, Pool>, key: string, episode: number, turn: number, g: number): Pool {
  let p = pools.get(key);
  if (!p) pools.set(key, (p = { samples: [], episode, turn }));
  p.samples.push(g);
  return p;
}

function seedOf(seed: number, task: Task, key: string, j: number, kind: 'taken' | 'alt'): number {
  return hashString(`pooled/${seed}/${task.key}/${task.spec.stream ?? 0}/${key}/${j}/${kind}`);
}

/** A_t of every turn of every episode; each group holds the K episodes of one task. */
export async function pooledRerollCredit(groups: readonly (readonly JudgedEpisode[])[], agent: BatchAgent, opts: PooledOptions): Promise<PooledCredit> {
  const gamma = checkedGamma(opts);
  const need = opts.m + 1;
  const limit = opts.turnLimit !== undefined ? { turnLimit: opts.turnLimit } : {};
  const slots: EpisodeSlot[] = [];
  // each slot's return goes to one pool, counted from the slot's turn
  const targets: { pool: Pool; turn: number }[] = [];
  // per group, per episode, per turn: its state's pool and its move's pool
  const pooled = groups.map((group) => {
    const states = new Map<string, Pool>();
    const moves = new Map<string, Pool>();
    const keys = group.map((e, i) =>
      e.turns.map((turn, t) => {
        const s = opts.stateOf(e, t);
        const next = turn.done ? `ended with ${JSON.stringify(turn.action)}` : opts.stateOf(e, t + 1);
        const g = returnFrom(e.turns, t, gamma);
        return { state: poolOf(states, s, i, t, g), move: poolOf(moves, `${s}\n→ ${next}`, i, t, g) };
      }),
    );
    const topUp = (pool: Pool, key: string, kind: 'taken' | 'alt') => {
      const e = group[pool.episode];
      const turn = e.turns[pool.turn];
      for (let j = pool.samples.length; j < need; j++) {
        const s = seedOf(opts.seed, e.task, key, j, kind);
        slots.push({
          spec: e.task.spec,
          seed: s,
          prefix: e.turns.slice(0, pool.turn),
          reseed: s,
          ...limit,
          ...(kind === 'taken' ? { forced: { action: turn.action, agent: agentSideOf(turn) } } : {}),
        });
        targets.push({ pool, turn: pool.turn });
      }
    };
    for (const [key, pool] of states) topUp(pool, key, 'alt');
    for (const [key, pool] of moves) topUp(pool, key, 'taken');
    return keys;
  });
  const played = slots.length ? await runSlots(slots, agent, opts.phrasings === undefined ? {} : { phrasings: opts.phrasings }) : [];
  played.forEach((p, n) => targets[n].pool.samples.push(returnFrom(p.turns, targets[n].turn, gamma)));
  return {
    advantages: pooled.flatMap((keys) => keys.map((turns) => turns.map((k) => meanOf(k.move.samples) - meanOf(k.state.samples)))),
    rerolls: slots.length,
  };
}
