// Shared fixtures for the store tests: a deterministic store (counting ids, a stepping clock) on a
// fresh fake-indexeddb database, and small trajectories to write through it.
import { TrajectoryStore, type StoreOptions, type MessageInput } from '../../../src/rl/store/store.ts';
import type { TaskRecord } from '../../../src/rl/store/schema.ts';

let dbCounter = 0;
/** A database name no other test uses. */
export const freshName = (prefix = 'test'): string => `${prefix}-${process.pid}-${++dbCounter}`;

/** Deterministic ids and time: ids "<prefix>-1", "<prefix>-2"…, time 1_700_000_000_000 + 1000·k. */
export function deterministic(prefix: string): Required<Pick<StoreOptions, 'newId' | 'now'>> {
  let id = 0;
  let t = 1_700_000_000_000;
  return { newId: () => `${prefix}-${++id}`, now: () => (t += 1000) };
}

export function openStore(name = freshName(), extra: StoreOptions = {}): Promise<TrajectoryStore> {
  return TrajectoryStore.open({ name, ...deterministic(name), ...extra });
}

export const task = (seed = 1, family = 'guess', split: 'train' | 'test' = 'train'): TaskRecord => ({
  family,
  split,
  seed,
  options: {},
  hidden: { item: `item-${seed}`, attributes: { red: true, size: 3 }, tests: ['f(1) == 2', 'f(2) == 4'] },
});

export const model = { policy: 'policy-v1', adapter: 'adapter-1', critic: null };

export const agentTurn = (i: number, done = false): MessageInput => ({
  role: 'agent',
  text: done ? 'I WANT TO ANSWER: item-1' : `Is it red? (${i})`,
  tokens: [3, 14, 15 + i],
  logprobs: [-0.5, -1.25, -0.1],
  promptTokens: 40 + i,
  completionTokens: 3,
  reward: done ? 1 : 0,
  done,
  latencyMs: 12.5,
  backend: 'wasm',
  info: { parsed: true },
});

export const collaboratorTurn = (i: number): MessageInput => ({ role: 'collaborator', text: `Yes (${i}).`, backend: 'simulator', info: {} });

/** Writes a complete episode of `pairs` question/answer pairs plus a final answer. */
export async function writeEpisode(
  store: TrajectoryStore,
  opts: { seed?: number; runId?: string | null; family?: string; success?: boolean; pairs?: number } = {},
): Promise<string> {
  const ep = await store.beginEpisode({ runId: opts.runId ?? null, task: task(opts.seed ?? 1, opts.family), model });
  await store.appendTurn(ep.id, { role: 'system', text: 'Guess the item. Ask yes/no questions.', backend: 'env' });
  const pairs = opts.pairs ?? 2;
  for (let i = 0; i < pairs; i++) {
    await store.appendTurn(ep.id, agentTurn(i));
    await store.appendTurn(ep.id, collaboratorTurn(i));
  }
  await store.appendTurn(ep.id, agentTurn(pairs, true));
  const success = opts.success ?? true;
  await store.finishEpisode(ep.id, { success, totalReward: success ? 1 : 0, turns: pairs + 1 });
  return ep.id;
}
