// DAgger on the policy's own states (specs/dagger.ts), issue #45's best-signal learner: the expert's
// label of each visited state (by hand on a guess episode), and the direction of one update over the
// real train-step graphs (tiny random model, wasm), as direction.test.ts checks the other
// algorithms: after one update on episodes whose turns were not the expert's, the expert's reply at
// the visited state is likelier and gains on the reply the policy took, whatever the episodes'
// returns (DAgger reads no reward). Cost: ~2–4 s (wasm).
import { describe, expect, it } from 'vitest';
import { AlgoContext } from '../../../src/rl/algos/context.ts';
import { createAlgorithm } from '../../../src/rl/algos/registry.ts';
import { NO_FEEDBACK } from '../../../src/rl/algos/feedback.ts';
import { defaultLoopConfig } from '../../../src/rl/algos/config.ts';
import { expertLabels } from '../../../src/rl/algos/specs/dagger.ts';
import { GuessEnv } from '../../../src/rl/envs/guess/env.ts';
import { guessAgents } from '../../../src/rl/envs/guess/agents.ts';
import { dialogueOf } from '../../../src/rl/envs/episode.ts';
import type { Turn } from '../../../src/rl/envs/turn.ts';
import { SCRIPTED } from '../../../src/rl/envs/turn.ts';
import type { Task } from '../../../src/rl/envs/types.ts';
import type { RolloutEpisode } from '../../../src/rl/rollout/rollout.ts';
import { TINY_BUDGETS, TINY_LORA, tinyTrainer } from './tinyTrainer.ts';

const OPTIONS = { candidates: 4, maxTurns: 3, pool: 13 };
const WASTED = 'does it have horns?';

/** A guess episode (train split, seed 2) whose agent sent `actions`; its returns are overridden by `reward`. */
function episode(actions: string[], reward: number, slot: number): RolloutEpisode {
  const env = new GuessEnv();
  const task: Task = env.reset({ family: 'guess', split: 'train', seed: 2, options: OPTIONS });
  const turns: Turn[] = actions.map((action) => ({ action, reply: null, replySource: null, ...env.step(action), ...SCRIPTED }));
  turns[turns.length - 1].reward = reward;
  return { task, agent: 'policy', turns, totalReward: reward, success: reward > 0, slot, seed: slot, prefixTurns: 0, truncated: false };
}

describe('expertLabels', () => {
  it("labels every visited state with the expert's move there, and says where the policy agreed", () => {
    const e = episode([WASTED], 0, 0);
    const first = guessAgents.expert(dialogueOf(e.task.prompt, []));
    const e2 = episode([WASTED, first], 0, 1);
    const second = guessAgents.expert(dialogueOf(e2.task.prompt, e2.turns.slice(0, 1)));
    expect(first).not.toBe(WASTED);
    expect(expertLabels([e, e2])).toEqual([
      { episode: 0, turn: 0, expert: first, agreed: false },
      { episode: 1, turn: 0, expert: first, agreed: false },
      { episode: 1, turn: 1, expert: second, agreed: second === first },
    ]);
    // a replayed prefix is not the policy's own state
    expect(expertLabels([{ ...e2, prefixTurns: 1 }]).map((l) => l.turn)).toEqual([1]);
  });
});

describe('dagger: one update', () => {
  const fx = tinyTrainer();
  const { engine } = fx;

  it.each([
    ['the episodes lost', 0],
    ['the episodes won', 1],
  ])(
    "makes the expert's reply at the visited state likelier than before and than the policy's own (%s)",
    async (_name, reward) => {
      const config = defaultLoopConfig('dagger', 'guess', {
        seed: 2,
        tasksPerIteration: 1,
        k: 4,
        lr: 1e-2,
        lora: TINY_LORA,
      });
      if (config.settings.algo === 'dagger') config.settings.dagger.batch = 4;
      const id = `dagger-${reward}/policy`;
      const ctx = new AlgoContext(engine, fx.runtime, fx.models, TINY_BUDGETS, config, {
        policy: id,
        critic: `dagger-${reward}/critic`,
      });
      const algorithm = await createAlgorithm(ctx, config.settings);
      const policy = algorithm.learners.policy!;
      try {
        const episodes = [0, 1, 2, 3].map((i) => episode([WASTED], reward, i));
        const prompt = ctx.policyPrompt(dialogueOf(episodes[0].task.prompt, []));
        const expert = guessAgents.expert(dialogueOf(episodes[0].task.prompt, []));
        const logp = async () => {
          const r = await engine.score({
            model: 'policy',
            adapter: id,
            items: [expert, WASTED].map((t) => ({ context: { ids: prompt }, continuation: ctx.replyIds({ action: t } as never) })),
          });
          return r.items.map((it) => it.mean);
        };
        await engine.setAdapter(id, policy.adapter(), { model: 'policy', activate: false });
        const before = await logp();
        const r = await algorithm.update(ctx, { episodes, k: 4, feedback: NO_FEEDBACK, iteration: 0 });
        expect(r.skipped).toBeUndefined();
        expect(r.stats).toMatchObject({ labelled_states: 4, expert_agreement: 0, train_rows: 4 });
        await engine.setAdapter(id, policy.adapter(), { model: 'policy', activate: false });
        const after = await logp();
        expect(after[0], `the expert's reply: ${before[0]} → ${after[0]}`).toBeGreaterThan(before[0]);
        expect(after[0] - after[1], 'the expert reply gains on the one the policy sent').toBeGreaterThan(before[0] - before[1]);
      } finally {
        await policy.dispose();
      }
    },
    60_000,
  );
});
