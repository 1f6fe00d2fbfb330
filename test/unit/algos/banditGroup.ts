// The fixture of the direction-of-learning tests (signs.test.ts for GRPO, direction.test.ts for the
// other algorithms): one bandit task, a reply that earns its reward and one that does not, a group of
// one-turn episodes with given returns, and each reply's mean log-prob under an adapter.
import type { AlgoContext } from '../../../src/rl/algos/context.ts';
import { stepInfo } from '../../../src/rl/envs/base.ts';
import { dialogueOf } from '../../../src/rl/envs/episode.ts';
import { createEnv } from '../../../src/rl/envs/registry.ts';
import { SCRIPTED } from '../../../src/rl/envs/turn.ts';
import type { RolloutEpisode } from '../../../src/rl/rollout/rollout.ts';
import type { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';

export const task = createEnv('bandit').reset({ family: 'bandit', split: 'train', seed: 4 });
export const GOOD = 'GUESS: apple';
export const BAD = 'Is it red? Yes.';

/** One-turn episodes of the bandit task with the given replies and returns (no recorded log-probs). */
export function group(replies: [string, number][]): RolloutEpisode[] {
  return replies.map(([action, reward], i) => ({
    task,
    agent: 'policy',
    turns: [{ action, reply: null, replySource: null, observation: '', reward, done: true, info: stepInfo('move', {}, false, reward > 0), ...SCRIPTED }],
    totalReward: reward,
    success: reward > 0,
    slot: i,
    seed: i,
    prefixTurns: 0,
    truncated: false,
  }));
}

/** Mean per-token log-prob of each reply after the task's prompt, under the policy adapter `id` (null: base). */
export async function replyLogp(engine: PolicyEngine, ctx: AlgoContext, id: string | null, replies: string[]): Promise<number[]> {
  const prompt = ctx.policyPrompt(dialogueOf(task.prompt, []));
  const r = await engine.score({
    model: 'policy',
    adapter: id,
    items: replies.map((t) => ({ context: { ids: prompt }, continuation: ctx.replyIds({ action: t } as never) })),
  });
  return r.items.map((it) => it.mean);
}
