// The episode loop of docs/design.md: agent ⇄ environment ⇄ collaborator, for many episodes at once.
// Every step gathers the dialogues of all live episodes and asks the BatchAgent once (one engine
// generate call for the policy), then steps each environment, asking the collaborator (simulated,
// or a person through a callback) where a reply is needed. Each completed turn is emitted at once,
// and the listener is awaited, so a store writer commits every turn before the next agent step.
//
// Randomness: episode k of a task runs on environment stream k (TaskSpec.stream) with agent seed
// episodeSeed(base, spec, k), so the K episodes of one task differ in both, and any episode replays
// alone (runSlots with that one slot gives the same text).
// playEpisode is the one-episode path (the forge's data, tests): the same loop with one slot.
// A slot may start from a recorded prefix (counterfactual re-rolls): its turns are replayed on the
// environment (and must reproduce the recording), then randomness continues from `reseed`.
import type { PhrasingSetting } from '../envs/phrasings.ts';
import { BaseEnv } from '../envs/base.ts';
import { beginTurn, playTurn, pushTurn } from '../envs/episode.ts';
import type { Agent, Collaborator, Env, Episode, JsonObject, Message, Split, Task, TaskSpec } from '../envs/types.ts';
import { FAMILIES, createEnv, type FamilyName } from '../envs/registry.ts';
import type { AgentSide, Turn } from '../envs/turn.ts';
import { hashString } from '../util/rng.ts';
import { scriptedBatchAgent, type BatchAgent } from './agents.ts';
import { CodedError } from '../util/errors.ts';

/** Bad rollout input, a replayed prefix that does not reproduce its recording, or a critic without a value head. */
export class RolloutError extends CodedError<'bad-config' | 'prefix-mismatch' | 'no-value-head'> {
  override name = 'RolloutError';
}

/** One episode to play. */
export interface EpisodeSlot {
  spec: TaskSpec;
  /** The agent's seed for this episode (turn t samples with hash(`${seed}/${t}`)). */
  seed: number;
  /** Recorded turns replayed (actions and replies) before the agent acts; not emitted as events. */
  prefix?: readonly Turn[];
  /** After the prefix, the environment continues on this stream (BaseEnv.reseed); default: it keeps its own. */
  reseed?: number;
  /** First agent action after the prefix, instead of asking the agent (a re-roll that keeps the taken turn). */
  forced?: { action: string; agent: AgentSide };
  /** Stop after this many agent turns even if the environment goes on (default: the task's T). */
  turnLimit?: number;
}

/** A played episode; each turn carries its agent side (tokens, log-probs, counts, latency, backend). */
export interface RolloutEpisode extends Episode {
  /** Index of the slot it was played in. */
  slot: number;
  /** The agent seed it used. */
  seed: number;
  /** Turns replayed from a prefix. */
  prefixTurns: number;
  /** True when turnLimit stopped it before the environment ended it. */
  truncated: boolean;
}

/** What a rollout emits, in order: start, turns, end per episode (episodes interleave by step). */
export type RolloutEvent =
  | { kind: 'start'; slot: number; task: Task; seed: number }
  | { kind: 'turn'; slot: number; index: number; turn: Turn }
  | { kind: 'end'; slot: number; episode: RolloutEpisode };

export interface RolloutOptions {
  /** Supplies collaborator replies (a person in the UI); default: the simulated reply. */
  collaborator?: Collaborator;
  /** Receives every event; a returned promise is awaited before the loop goes on. */
  onEvent?: (event: RolloutEvent) => void | Promise<void>;
  /**
   * How the simulated collaborator words its answers (envs/registry.ts EnvSettings): 'canonical'
   * (default), 'varied' (the training phrasings; the forge's data) or a validated phrasings file.
   */
  phrasings?: PhrasingSetting;
  /** Ends the rollout before its next step, throwing the signal's reason (the Train view's Stop during validation). */
  signal?: AbortSignal;
}

/** How long a rollout may run before it lets queued tasks in (nextTaskIfDue). */
const YIELD_MS = 20;
let lastYield = performance.now();

/**
 * Lets the event loop run queued tasks once YIELD_MS have passed since it last did. ONNX Runtime's
 * wasm runs compute synchronously and resolve as microtasks, so a worker generating step after step
 * would otherwise never receive a message (a Stop) until the whole rollout ends. Not every step: a
 * timer costs ~1.3 ms in Node, which made scripted rollouts (the forge's data, ground truth) 8×
 * slower (300 one-episode guess rollouts: 1.8 s against 0.2 s).
 */
async function nextTaskIfDue(): Promise<void> {
  if (performance.now() - lastYield < YIELD_MS) return;
  await new Promise((resolve) => setTimeout(resolve, 0));
  lastYield = performance.now();
}

interface Live {
  slot: number;
  env: Env;
  task: Task;
  dialogue: Message[];
  turns: Turn[];
  forced: EpisodeSlot['forced'];
  limit: number;
  prefixTurns: number;
}

function replayPrefix(env: Env, slot: EpisodeSlot, live: Live, index: number): void {
  for (const [t, rec] of (slot.prefix ?? []).entries()) {
    if (env.done) throw new RolloutError('prefix-mismatch', `slot ${index}: the environment ended before prefix turn ${t}`);
    const step = beginTurn(env, rec.action);
    const result = 'turn' in step ? step.turn : step.complete(rec.reply, 'simulated');
    if (result.observation !== rec.observation || result.reward !== rec.reward || result.done !== rec.done) {
      throw new RolloutError('prefix-mismatch', `slot ${index}: replaying prefix turn ${t} gave another outcome than recorded (check the task's stream)`);
    }
    live.turns.push(rec);
    pushTurn(live.dialogue, rec);
  }
  if (slot.reseed !== undefined && env instanceof BaseEnv) env.reseed(slot.reseed);
}

function finish(live: Live, seed: number, agent: string, truncated: boolean): RolloutEpisode {
  const last = live.turns[live.turns.length - 1];
  return {
    task: live.task,
    agent,
    turns: live.turns,
    totalReward: live.turns.reduce((a, t) => a + t.reward, 0),
    success: !!last && last.info.success,
    slot: live.slot,
    seed,
    prefixTurns: live.prefixTurns,
    truncated,
  };
}

/** Plays every slot to its end, batching each step of all live episodes into one agent call. */
export async function runSlots(slots: readonly EpisodeSlot[], agent: BatchAgent, opts: RolloutOptions = {}): Promise<RolloutEpisode[]> {
  const emit = async (e: RolloutEvent) => {
    await opts.onEvent?.(e);
  };
  const done: RolloutEpisode[] = new Array(slots.length);
  let live: Live[] = [];
  for (const [i, slot] of slots.entries()) {
    const env = createEnv(slot.spec.family, { phrasings: opts.phrasings });
    const task = env.reset(slot.spec);
    const limit = Math.min(task.maxTurns, slot.turnLimit ?? task.maxTurns);
    if (!Number.isInteger(limit) || limit < 1) throw new RolloutError('bad-config', `slot ${i}: turnLimit must be an integer ≥ 1, got ${slot.turnLimit}`);
    const l: Live = {
      slot: i,
      env,
      task,
      dialogue: [{ role: 'user', content: task.prompt }],
      turns: [],
      forced: slot.forced,
      limit,
      prefixTurns: slot.prefix?.length ?? 0,
    };
    replayPrefix(env, slot, l, i);
    await emit({ kind: 'start', slot: i, task, seed: slot.seed });
    if (env.done || l.turns.length >= limit) {
      done[i] = finish(l, slot.seed, agent.name, !env.done);
      agent.release?.(i);
      await emit({ kind: 'end', slot: i, episode: done[i] });
    } else live.push(l);
  }
  while (live.length > 0) {
    await nextTaskIfDue();
    opts.signal?.throwIfAborted();
    const asking = live.filter((l) => !l.forced);
    const acted = asking.length ? await agent.act(asking.map((l) => ({ slot: l.slot, dialogue: l.dialogue, seed: slots[l.slot].seed }))) : [];
    const moves = new Map(asking.map((l, i) => [l.slot, acted[i]]));
    const next: Live[] = [];
    for (const l of live) {
      const move = l.forced ? { text: l.forced.action, agent: l.forced.agent } : (moves.get(l.slot) as (typeof acted)[number]);
      l.forced = undefined;
      const turn = await playTurn(l.env, move.text, opts.collaborator, move.agent);
      l.turns.push(turn);
      pushTurn(l.dialogue, turn);
      await emit({ kind: 'turn', slot: l.slot, index: l.turns.length - 1, turn });
      if (l.env.done || l.turns.length >= l.limit) {
        done[l.slot] = finish(l, slots[l.slot].seed, agent.name, !l.env.done);
        agent.release?.(l.slot);
        await emit({ kind: 'end', slot: l.slot, episode: done[l.slot] });
      } else next.push(l);
    }
    live = next;
  }
  return done;
}

/** Options of playEpisode. */
export interface PlayOptions extends RolloutOptions {
  /** The agent seed recorded on the episode (the given agent is already seeded); default: the task seed. */
  seed?: number;
  /** Stop after this many agent turns even if the environment goes on (default: the task's T). */
  turnLimit?: number;
}

/** Plays one episode of one per-episode Agent (expert, noisy, random) through runSlots. */
export async function playEpisode(agent: Agent, spec: TaskSpec, opts: PlayOptions = {}): Promise<RolloutEpisode> {
  const { seed = spec.seed, turnLimit, ...rest } = opts;
  const slot: EpisodeSlot = { spec, seed, ...(turnLimit !== undefined ? { turnLimit } : {}) };
  const [episode] = await runSlots(
    [slot],
    scriptedBatchAgent(agent.name, () => agent),
    rest,
  );
  return episode;
}

/** The agent seed of episode k of a task under a base seed. */
export function episodeSeed(base: number, spec: TaskSpec, k: number): number {
  return hashString(`rollout/${base}/${spec.family}/${spec.split}/${spec.seed}/${spec.stream ?? 0}/${k}`);
}

/** The task set `turnwise eval` uses: task i has seed `seed + i`. */
export function taskSpecs(family: FamilyName, split: Split, count: number, seed: number, options?: JsonObject): TaskSpec[] {
  return Array.from({ length: count }, (_, i) => ({ family, split, seed: seed + i, ...(options ? { options } : {}) }));
}

/** K episodes per task. */
export interface RolloutConfig {
  /** The tasks; each gets K episodes. */
  tasks: readonly TaskSpec[];
  /** Episodes per task (K ≥ 1); episode k runs on environment stream (task.stream ?? 0) + k. */
  k: number;
  /** Mixed into every episode's agent seed (episodeSeed). */
  seed: number;
  /** Stop each episode after this many turns (T ≤ the task's own limit). */
  turnLimit?: number;
}

/** Episodes task-major: episodes[task · K + k]. */
export interface RolloutResult {
  k: number;
  episodes: RolloutEpisode[];
}

/** Plays K episodes of every task, all batched together. */
export async function rollout(config: RolloutConfig, agent: BatchAgent, opts: RolloutOptions = {}): Promise<RolloutResult> {
  if (!Number.isInteger(config.k) || config.k < 1) throw new RolloutError('bad-config', `K (episodes per task) must be an integer ≥ 1, got ${config.k}`);
  if (config.tasks.length === 0) throw new RolloutError('bad-config', 'a rollout needs at least one task');
  const slots: EpisodeSlot[] = config.tasks.flatMap((task) =>
    Array.from({ length: config.k }, (_, k): EpisodeSlot => {
      const spec: TaskSpec = { ...task, stream: (task.stream ?? 0) + k };
      return { spec, seed: episodeSeed(config.seed, task, k), ...(config.turnLimit !== undefined ? { turnLimit: config.turnLimit } : {}) };
    }),
  );
  return { k: config.k, episodes: await runSlots(slots, agent, opts) };
}

/** Per task, per episode: the turn that solved it (1-based), or null — the input of passKTGrid. */
export function successTurns(result: RolloutResult): (number | null)[][] {
  const out: (number | null)[][] = [];
  result.episodes.forEach((e, i) => {
    if (i % result.k === 0) out.push([]);
    out[out.length - 1].push(e.success ? e.turns.length : null);
  });
  return out;
}

/** True when the family's replies come from a collaborator (for the store's turn roles). */
export function isCollaborative(family: FamilyName): boolean {
  return FAMILIES[family].collaborative;
}
