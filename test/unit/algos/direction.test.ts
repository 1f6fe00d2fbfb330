// The direction of learning of every algorithm but GRPO (signs.test.ts has GRPO): one update over the
// real train-step graphs (tiny random models, wasm) on one bandit group where one reply earned the
// reward makes that reply likelier under the new adapter and the other less likely; swapping the
// rewards swaps both. Each algorithm's path from returns to its loss is a different one:
//  - PPO and StarPO-S: returns → critic values → turn-level GAE → whitening → clipped objective;
//  - SWEET-RL's actor: returns → trajectory pairs → the critic's Bradley–Terry step → the critic's
//    ranking of N candidate replies (here the two replies, by a generate stub) → per-turn DPO pairs;
//  - multi-turn DPO: returns → trajectory pairs → DPO over the episode rows;
//  - RFT, which only imitates: the kept (above-mean) reply becomes likelier and gains more than the
//    filtered-out one, which it never trains on.
// A sign error anywhere on those paths fails the test (each was broken once by hand to see it fail).
// Cost: ~1–3 s per case (wasm).
import { describe, expect, it } from 'vitest';
import type { GenerateRequest, GenerateResult } from '../../../src/rl/runtime/engine/types.ts';
import { AlgoContext, type TrainEngine } from '../../../src/rl/algos/context.ts';
import { createAlgorithm } from '../../../src/rl/algos/registry.ts';
import { NO_FEEDBACK } from '../../../src/rl/algos/feedback.ts';
import { defaultLoopConfig, type LoopConfig } from '../../../src/rl/algos/config.ts';
import type { AlgoName } from '../../../src/rl/algos/types.ts';
import { TINY_BUDGETS, TINY_LORA, tinyTrainer } from './tinyTrainer.ts';
import { BAD, GOOD, group, replyLogp } from './banditGroup.ts';

const fx = tinyTrainer({ critic: true });
const { engine } = fx;

/**
 * The engine, except that generate answers every prompt with GOOD and BAD in turn (N of them): SWEET-RL's
 * actor then ranks exactly the two replies whose log-probs the test reads. Its critic and scoring are real.
 */
function candidatesOf(ctx: () => AlgoContext): TrainEngine {
  return {
    models: () => engine.models(),
    encode: (prompt, model) => engine.encode(prompt, model),
    score: (request) => engine.score(request),
    setAdapter: (id, adapter, opts) => engine.setAdapter(id, adapter, opts),
    generate: async (request: GenerateRequest): Promise<GenerateResult> => {
      const n = request.n ?? 1;
      const generations = request.prompts.flatMap((_, prompt) =>
        Array.from({ length: n }, (_, sample) => {
          const text = sample % 2 === 0 ? GOOD : BAD;
          const tokenIds = ctx().replyIds({ action: text } as never);
          return {
            prompt,
            sample,
            text,
            tokenIds,
            logprobs: tokenIds.map(() => 0),
            promptTokens: 0,
            completionTokens: tokenIds.length,
            finishReason: 'end' as const,
          };
        }),
      );
      return { generations, timing: {} as GenerateResult['timing'], backend: 'wasm', adapter: request.adapter ?? null };
    },
  };
}

/** The algorithm's settings made tiny: one group of 4 one-turn episodes, one step of each learner. */
function configFor(algo: AlgoName): LoopConfig {
  const config = defaultLoopConfig(algo, 'bandit', {
    seed: 2,
    tasksPerIteration: 1,
    k: 4,
    lr: 1e-2,
    criticLr: 1e-2,
    lora: TINY_LORA,
  });
  const s = config.settings;
  if (s.algo === 'ppo' || s.algo === 'starpo') Object.assign(s.starpo, { batch: 4, criticWarmup: 0 });
  // one sampled turn, its 4 candidates paired top against bottom twice
  if (s.algo === 'sweet') Object.assign(s.sweet, { turnsPerIteration: 1, candidates: 4, pairsPerTurn: 2, pairBatch: 2, criticWarmup: 0, minMargin: 0 });
  if (s.algo === 'mtdpo') s.mtdpo.pairBatch = 2;
  if (s.algo === 'rft') s.rft.batch = 4;
  return config;
}

/** One update on GOOD/BAD episodes with the given returns: the two replies' mean log-probs before and after, and the update's stats. */
async function oneUpdate(algo: AlgoName, rGood: number, rBad: number): Promise<{ before: number[]; after: number[]; stats: Record<string, number> }> {
  const config = configFor(algo);
  const ids = { policy: `direction-${algo}-${rGood}/policy`, critic: `direction-${algo}-${rGood}/critic` };
  let ctx: AlgoContext | null = null;
  ctx = new AlgoContext(
    candidatesOf(() => ctx as AlgoContext),
    fx.runtime,
    fx.models,
    TINY_BUDGETS,
    config,
    ids,
  );
  const algorithm = await createAlgorithm(ctx, config.settings);
  const learners = Object.values(algorithm.learners);
  try {
    const policy = algorithm.learners.policy!;
    await engine.setAdapter(ids.policy, policy.adapter(), { model: 'policy', activate: false });
    if (algorithm.learners.critic) await engine.setAdapter(ids.critic, algorithm.learners.critic.adapter(), { model: 'critic', activate: false });
    const before = await replyLogp(engine, ctx, ids.policy, [GOOD, BAD]);
    const r = await algorithm.update(ctx, {
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
    await engine.setAdapter(ids.policy, policy.adapter(), { model: 'policy', activate: false });
    return { before, after: await replyLogp(engine, ctx, ids.policy, [GOOD, BAD]), stats: r.stats };
  } finally {
    for (const l of learners) await l?.dispose();
  }
}

const CASES = [
  ['GOOD rewarded', 1, 0],
  ['BAD rewarded', 0, 1],
] as const;

describe.each([['ppo'], ['starpo'], ['sweet'], ['mtdpo']] as const)('%s', (algo) => {
  it.each(CASES)(
    'one update makes the rewarded reply likelier and the punished one less likely (%s)',
    async (_name, rGood, rBad) => {
      const { before, after, stats } = await oneUpdate(algo, rGood, rBad);
      if (algo === 'ppo' || algo === 'starpo') expect(stats.train_rows).toBe(4);
      // the critic ranked the candidates and two top-vs-bottom pairs were trained on
      if (algo === 'sweet') expect(stats).toMatchObject({ trajectory_pairs: 2, turn_pairs: 2 });
      if (algo === 'mtdpo') expect(stats.train_pairs).toBe(2);
      const [up, down] = rGood > rBad ? [0, 1] : [1, 0];
      expect(after[up], `the rewarded reply: ${before[up]} → ${after[up]}`).toBeGreaterThan(before[up]);
      expect(after[down], `the punished reply: ${before[down]} → ${after[down]}`).toBeLessThan(before[down]);
    },
    60_000,
  );
});

describe('rft', () => {
  it.each(CASES)(
    'one update makes the kept reply likelier, and the filtered-out one gains less (%s)',
    async (_name, rGood, rBad) => {
      const { before, after, stats } = await oneUpdate('rft', rGood, rBad);
      expect(stats).toMatchObject({ kept_episodes: 2, train_rows: 2 });
      const [kept, dropped] = rGood > rBad ? [0, 1] : [1, 0];
      const gain = (i: number) => after[i] - before[i];
      expect(gain(kept), `the kept reply: ${before[kept]} → ${after[kept]}`).toBeGreaterThan(0);
      expect(gain(dropped), `the filtered-out reply gains ${gain(dropped)}, the kept one ${gain(kept)}`).toBeLessThan(gain(kept));
    },
    60_000,
  );
});
