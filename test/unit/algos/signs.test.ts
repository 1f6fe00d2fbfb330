// The advantages reach the loss with the right sign: one GRPO update (Starpo 'grpo' over the real
// train-step graph, tiny random model) on a group where one reply earned the reward raises that
// reply's log-probability under the new adapter and lowers the other's; flipping the rewards flips
// both. A sign error anywhere between groupAdvantages, setReply, packRows and the clipped objective
// fails it. Cost: ~10 s (wasm).
import { describe, expect, it } from 'vitest';
import { AlgoContext } from '../../../src/rl/algos/context.ts';
import { Starpo } from '../../../src/rl/algos/starpo.ts';
import { NO_FEEDBACK } from '../../../src/rl/algos/feedback.ts';
import { defaultLoopConfig } from '../../../src/rl/algos/config.ts';
import { TINY_BUDGETS, TINY_LORA, tinyTrainer } from './tinyTrainer.ts';
import { BAD, GOOD, group, replyLogp } from './banditGroup.ts';

const fx = tinyTrainer();
const { engine } = fx;

// (turnCredit 'toGo' and 'igpo' credit a one-turn episode as the episode credit does: the wiring from
// credit/turnReturns.ts to the rows is what their cases check)
describe.each([
  [true, 'episode'],
  [false, 'episode'],
  [true, 'toGo'],
  [true, 'igpo'],
] as const)('GRPO divideByStd %s, turnCredit %s', (divideByStd, turnCredit) => {
  it.each([
    ['GOOD rewarded', 1, 0],
    ['BAD rewarded', 0, 1],
  ])(
    'one update raises the log-prob of the rewarded reply (%s)',
    async (_name, rGood, rBad) => {
      const config = defaultLoopConfig('grpo', 'bandit', {
        seed: 2,
        tasksPerIteration: 1,
        k: 4,
        lr: 1e-2,
        lora: TINY_LORA,
      });
      if (config.settings.algo === 'grpo') Object.assign(config.settings.starpo, { divideByStd, turnCredit, batch: 4 });
      const ids = { policy: `signs-${divideByStd}-${turnCredit}-${rGood}/policy`, critic: 'unused' };
      const ctx = new AlgoContext(engine, fx.runtime, { policy: fx.models.policy, critic: null }, TINY_BUDGETS, config, ids);
      const algo = await Starpo.create(ctx, 'grpo', config.settings.algo === 'grpo' ? config.settings.starpo : (undefined as never));
      const learner = algo.learners.policy!;
      await engine.setAdapter(ids.policy, learner.adapter(), { model: 'policy', activate: false });
      const before = await replyLogp(engine, ctx, ids.policy, [GOOD, BAD]);
      const base = await replyLogp(engine, ctx, null, [GOOD, BAD]);
      // a fresh adapter (B = 0) is the base model
      expect(before[0]).toBeCloseTo(base[0], 4);
      const r = await algo.update(ctx, {
        episodes: group([
          [GOOD, rGood],
          [BAD, rBad],
          [GOOD, rGood],
          [BAD, rBad],
        ]),
        k: 4,
        feedback: NO_FEEDBACK,
        iteration: 0,
      });
      expect(r.skipped).toBeUndefined();
      expect(r.stats.train_rows).toBe(4);
      await engine.setAdapter(ids.policy, learner.adapter(), { model: 'policy', activate: false });
      const after = await replyLogp(engine, ctx, ids.policy, [GOOD, BAD]);
      const [up, down] = rGood > rBad ? [0, 1] : [1, 0];
      expect(after[up]).toBeGreaterThan(before[up]);
      expect(after[down]).toBeLessThan(before[down]);
      await learner.dispose();
    },
    60_000,
  );
});

describe('GRPO with Monte-Carlo re-roll credit', () => {
  // per turn: four one-turn episodes, M = 3 re-rolls keeping the turn and 3 afresh each (24); pooled by
  // state: the four share their one state (4 ≥ M + 1 visits: no fresh re-roll) and each reply was made
  // twice, so each move is topped up by 2 re-rolls keeping it (4)
  it.each([
    [false, 24],
    [true, 4],
  ])(
    're-rolls through the policy being trained (pooled %s: %i partial episodes) and still follows the rewarded reply',
    async (pool, rerolls) => {
      const config = defaultLoopConfig('grpo', 'bandit', {
        seed: 3,
        tasksPerIteration: 1,
        k: 4,
        lr: 1e-2,
        lora: TINY_LORA,
      });
      if (config.settings.algo === 'grpo') Object.assign(config.settings.starpo, { batch: 4, rerollWeight: 1, rerolls: 3, rerollPool: pool });
      const ids = { policy: 'signs-reroll/policy', critic: 'unused' };
      const ctx = new AlgoContext(engine, fx.runtime, { policy: fx.models.policy, critic: null }, TINY_BUDGETS, config, ids);
      const algo = await Starpo.create(ctx, 'grpo', config.settings.algo === 'grpo' ? config.settings.starpo : (undefined as never));
      const learner = algo.learners.policy!;
      await engine.setAdapter(ids.policy, learner.adapter(), { model: 'policy', activate: false });
      const before = await replyLogp(engine, ctx, ids.policy, [GOOD, BAD]);
      const r = await algo.update(ctx, {
        episodes: group([
          [GOOD, 1],
          [BAD, 0],
          [GOOD, 1],
          [BAD, 0],
        ]),
        k: 4,
        feedback: NO_FEEDBACK,
        iteration: 0,
      });
      expect(r.stats.reroll_episodes).toBe(rerolls);
      expect(r.stats.reroll_seconds).toBeGreaterThan(0);
      await engine.setAdapter(ids.policy, learner.adapter(), { model: 'policy', activate: false });
      // the re-rolls score both replies alike (neither is a bandit answer), so the episode advantage decides
      const after = await replyLogp(engine, ctx, ids.policy, [GOOD, BAD]);
      expect(after[0]).toBeGreaterThan(before[0]);
      expect(after[1]).toBeLessThan(before[1]);
      await learner.dispose();
    },
    60_000,
  );
});
