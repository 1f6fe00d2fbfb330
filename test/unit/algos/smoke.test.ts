// Two-iteration smoke run of every algorithm on the shipped policy and critic (public/models, on
// onnxruntime-web's wasm): finite metrics, the policy adapter changed, a checkpoint written each
// iteration and restored into a new loop that continues from it; then the loop's determinism,
// rollback and configuration errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { loadModel, type LoadedModel } from '../../../src/rl/model/folder/folder.ts';
import { TrainingLoop } from '../../../src/rl/algos/loop.ts';
import { defaultLoopConfig, type LoopConfig } from '../../../src/rl/algos/config.ts';
import { MemoryCheckpoints, StoreCheckpoints } from '../../../src/rl/algos/checkpoint.ts';
import { ALGO_NAMES } from '../../../src/rl/algos/registry.ts';
import type { AlgoName, TrainCheckpoint } from '../../../src/rl/algos/types.ts';
import { MemoryFeedback } from '../../../src/rl/algos/feedback.ts';
import { createEnv, type FamilyName } from '../../../src/rl/envs/registry.ts';
import type { RolloutEpisode } from '../../../src/rl/rollout/rollout.ts';
import { modelsDir } from '../../../src/cli/paths.ts';
import { shippedAdapterFiles } from '../../../src/rl/bridge/peft.ts';
import { nodeReader } from '../../../src/rl/model/folder/nodeIo.ts';

/**
 * A person's thumbs on the first turn of every other episode: the groups have spread even when every
 * pull pays the same (and the feedback path is exercised).
 */
const rate = async (eps: readonly RolloutEpisode[]) => eps.map((e, i) => (i % 2 === 0 ? [1] : [-1]));

/** One stored rated turn and one preference pair per iteration. */
function feedback(): MemoryFeedback {
  const f = new MemoryFeedback();
  const task = createEnv('bandit').reset({ family: 'bandit', split: 'train', seed: 4 });
  const refill = () => {
    f.addTurn({ task, before: [], action: 'go left', value: 1 });
    f.addPair({ task, before: [], chosen: 'go left', rejected: 'go right' });
  };
  refill();
  const take = f.take.bind(f);
  f.take = async () => {
    const out = await take();
    refill();
    return out;
  };
  return f;
}

const engine = new PolicyEngine();
let runtime: OrtRuntime;
let models: { policy: LoadedModel; critic: LoadedModel };

/** Small everything: 2 tasks × K 4, 2 turns, 6-token replies, tiny candidate counts (bandit unless `family` says). */
export function tinyConfig(algo: AlgoName, seed = 3, family: FamilyName = 'bandit'): LoopConfig {
  const c = defaultLoopConfig(algo, family, {
    seed,
    tasksPerIteration: 2,
    k: 4,
    turnLimit: 2,
    maxNewTokens: 6,
    lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] },
    lr: 5e-3,
    criticLr: 5e-3,
  });
  const s = c.settings;
  if (s.algo === 'sweet') Object.assign(s.sweet, { turnsPerIteration: 2, candidates: 4, pairsPerTurn: 2, pairBatch: 2 });
  if (s.algo === 'starpo' || s.algo === 'grpo' || s.algo === 'ppo') Object.assign(s.starpo, { batch: 4, keepFraction: s.algo === 'starpo' ? 0.5 : 1 });
  if (s.algo === 'mtdpo') s.mtdpo.pairBatch = 2;
  if (s.algo === 'rft') s.rft.batch = 4;
  return c;
}

beforeAll(async () => {
  const read = nodeReader(modelsDir());
  models = { policy: await loadModel(read, 'policy'), critic: await loadModel(read, 'critic') };
  await engine.init('wasm');
  await engine.loadFrom('policy', { kind: 'reader', read, manifest: true, name: 'policy' });
  await engine.loadFrom('critic', { kind: 'reader', read, manifest: true, name: 'critic' });
  runtime = await OrtRuntime.create('wasm');
});
afterAll(async () => {
  await engine.dispose();
  await runtime.dispose();
});

describe.each(ALGO_NAMES.map((a) => [a]))('%s', (algo) => {
  it('runs two iterations with finite metrics, changes the adapter, checkpoints and resumes', async () => {
    const checkpoints = new MemoryCheckpoints();
    const published: string[] = [];
    const loop = await TrainingLoop.create({
      engine,
      runtime,
      models,
      config: tinyConfig(algo),
      checkpoints,
      rateRollouts: rate,
      feedback: feedback(),
      publish: (t, id) => void published.push(`${t}:${id}`),
    });
    const before = loop.adapter('policy');
    const reports = await loop.run(2);
    expect(reports.map((r) => r.iteration)).toEqual([1, 2]);
    for (const r of reports) {
      for (const [k, v] of Object.entries(r.metrics)) expect(Number.isFinite(v), `${k} = ${v}`).toBe(true);
      for (const k of ['reward_mean', 'reward_spread', 'success', 'entropy', 'kl_ref', 'grad_norm', 'response_length', 'clip_frac', 'lr'])
        expect(r.metrics).toHaveProperty(k);
    }
    expect(
      reports.map((r) => r.metrics.updated),
      JSON.stringify(reports.map((r) => r.warnings)),
    ).toEqual([1, 1]);
    // the first rollouts are the base policy's (a fresh adapter): kl_ref 0 without a scoring pass
    expect(reports[0].metrics.kl_ref).toBe(0);
    const after = loop.adapter('policy');
    const changed = Object.keys(after.weights).some((n) => after.weights[n].some((x, i) => x !== before.weights[n][i]));
    expect(changed).toBe(true);
    expect(checkpoints.saves).toBe(2);
    expect(published.filter((p) => p.startsWith('policy:')).length).toBe(3);
    const saved = await checkpoints.load(loop.runId);
    expect(saved?.iteration).toBe(2);
    const resumed = await TrainingLoop.create({ engine, runtime, models, config: tinyConfig(algo), checkpoints, runId: loop.runId });
    expect(resumed.iteration).toBe(2);
    const again = resumed.adapter('policy');
    for (const n of Object.keys(after.weights)) expect(Array.from(again.weights[n])).toEqual(Array.from(after.weights[n]));
    await loop.dispose();
    await resumed.dispose();
  }, 120_000);
});

/** Wall-clock figures (seconds, rollout_seconds, train_seconds, score_seconds) differ between identical runs. */
const untimed = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([k]) => !k.endsWith('seconds')));

describe('loop', () => {
  it('gives the same metrics for the same seed twice (Node, wasm)', async () => {
    const runs: Record<string, number>[][] = [];
    for (let i = 0; i < 2; i++) {
      const loop = await TrainingLoop.create({ engine, runtime, models, config: tinyConfig('ppo', 11), rateRollouts: rate, runId: `det-${i}` });
      runs.push((await loop.run(2)).map((r) => untimed(r.metrics)));
      await loop.dispose();
    }
    expect(runs[1]).toEqual(runs[0]);
    const other = await TrainingLoop.create({ engine, runtime, models, config: tinyConfig('ppo', 12), rateRollouts: rate, runId: 'det-other' });
    expect((await other.run(1)).map((r) => untimed(r.metrics))[0]).not.toEqual(runs[0][0]);
    await other.dispose();
  }, 120_000);

  it('rolls back to the last good adapter on a loss spike and lowers the learning rate, saying so', async () => {
    const config = tinyConfig('grpo', 5);
    // every loss after the third counts as a spike; the update-KL guard off, which on the shipped policy's
    // near-certain bandit replies (token entropy ~0.001) can roll back an earlier iteration first
    config.rollback = { ...config.rollback, spikeFactor: 1e-9, minLoss: 0, maxUpdateKl: 0 };
    const loop = await TrainingLoop.create({ engine, runtime, models, config, rateRollouts: rate, runId: 'spike' });
    await loop.run(3);
    const good = loop.adapter('policy');
    const [r] = await loop.run(1);
    expect(r.metrics.rolled_back).toBe(1);
    expect(r.metrics.lr).toBeCloseTo(config.lr * config.rollback.lrDecay);
    expect(r.warnings.join(' ')).toMatch(/rolled back to the adapters of iteration 3 .*learning rate lowered/);
    const now = loop.adapter('policy');
    for (const n of Object.keys(good.weights)) expect(Array.from(now.weights[n])).toEqual(Array.from(good.weights[n]));
    await loop.dispose();
  }, 120_000);

  it('rolls back past iterations that showed Echo Trap signs, to the last adapter before them', async () => {
    const config = tinyConfig('grpo', 5);
    config.rollback = { ...config.rollback, spikeFactor: 1e-9, minLoss: 0, maxUpdateKl: 0 };
    // every spread after the first is "below 200% of its best": iterations 2 and 3 show the sign
    config.echo = { ...config.echo, spreadDrop: 2 };
    const loop = await TrainingLoop.create({ engine, runtime, models, config, rateRollouts: rate, runId: 'echo-rollback' });
    const first = loop.adapter('policy');
    const early = await loop.run(3);
    expect(early.map((r) => r.warnings.some((w) => w.includes('reward spread')))).toEqual([false, true, true]);
    const [r] = await loop.run(1);
    expect(r.metrics.rolled_back).toBe(1);
    expect(r.warnings.join(' ')).toMatch(/rolled back to the adapters of iteration 0 /);
    const now = loop.adapter('policy');
    for (const n of Object.keys(first.weights)) expect(Array.from(now.weights[n])).toEqual(Array.from(first.weights[n]));
    await loop.dispose();
  }, 120_000);

  it('returns to the best validated adapters when the validation score falls below them (at the end of a run)', async () => {
    // an update (lr 0.9) that breaks the policy, with the update-KL guard off so that it goes through
    const config = tinyConfig('grpo', 5);
    config.lr = 0.9;
    // the rollout-success guard off too (successDrop 1): the shipped policy wins bandit's rollouts nearly
    // always, so a broken one's would trip that guard first, and this test is about the validation guard
    config.rollback = { ...config.rollback, maxUpdateKl: 0, successDrop: 1, validateEvery: 2, validateTasks: 32 };
    const checkpoints = new MemoryCheckpoints();
    const loop = await TrainingLoop.create({ engine, runtime, models, config, rateRollouts: rate, runId: 'validate', checkpoints });
    const first = loop.adapter('policy');
    // before the first validation (every 2 iterations) the adapters the run began with are kept, to be
    // scored then
    const [r] = await loop.run(1);
    expect(r.metrics.rolled_back).toBe(0);
    expect(r.metrics.validation_success).toBeUndefined();
    const saved = (await checkpoints.load('validate')) as TrainCheckpoint;
    expect(saved.best?.iteration).toBe(0);
    expect(saved.best?.outcomes).toEqual([]);
    // iteration 2 validates and returns; iteration 3 breaks the policy again and the run's end validates
    const [second, third] = await loop.run(2);
    expect(second.metrics.rolled_back).toBe(1);
    expect(second.warnings.join(' ')).toMatch(
      /^rolled back to the adapters of iteration 0 \(validation success fell to \d+% from the best adapters' \d+% on the same 32 tasks\); learning rate lowered to 0\.45/,
    );
    expect(third.metrics.rolled_back).toBe(1);
    expect(third.warnings.join(' ')).toMatch(/at the end of the run: rolled back to the adapters of iteration 0 .*learning rate lowered to 0\.225/);
    const now = loop.adapter('policy');
    for (const n of Object.keys(first.weights)) expect(Array.from(now.weights[n])).toEqual(Array.from(first.weights[n]));
    expect((await checkpoints.load('validate'))?.rollbacks).toBe(2);
    await loop.dispose();
  }, 120_000);

  it('ends a run on the best validated adapters when the final ones score lower, though within the rollback margin', async () => {
    // the same breaking update, but a margin no fall can pass (validateDrop 1): the mid-run guard never
    // rolls back, and only the end-of-run selection can return to the adapters the run began with
    const config = tinyConfig('grpo', 5);
    config.lr = 0.9;
    config.rollback = { ...config.rollback, maxUpdateKl: 0, successDrop: 1, validateEvery: 2, validateTasks: 32, validateDrop: 1 };
    const checkpoints = new MemoryCheckpoints();
    // what each published adapter is called: the iteration whose update made it (issue 49: a run that
    // kept its start must not call its adapters "iteration 3")
    const published: number[] = [];
    const loop = await TrainingLoop.create({
      engine,
      runtime,
      models,
      config,
      rateRollouts: rate,
      runId: 'validate-select',
      checkpoints,
      publish: (t, _id, _a, it) => void (t === 'policy' && published.push(it)),
    });
    const first = loop.adapter('policy');
    const reports = await loop.run(3);
    expect(reports.map((r) => r.metrics.rolled_back)).toEqual([0, 0, 1]);
    expect(published).toEqual([0, 1, 2, 3, 0]); // the start, three updates, then the start kept
    expect(reports.map((r) => r.metrics.adapter_iteration)).toEqual([1, 2, 0]);
    expect((await checkpoints.load('validate-select'))?.weightsIteration).toBe(0);
    expect(reports[1].metrics.validation_start).toBeGreaterThan(reports[1].metrics.validation_success);
    expect(reports[2].warnings.join(' ')).toMatch(
      /at the end of the run: kept the adapters of iteration 0, the best validated \(\d+% on the validation tasks\): the final adapters scored \d+%, not 2 standard errors above them/,
    );
    // a selection, not a failure: the learning rate and the rollback count stay
    expect(reports[2].metrics.lr).toBe(config.lr);
    expect(reports[2].metrics.rollbacks).toBe(0);
    const now = loop.adapter('policy');
    for (const n of Object.keys(first.weights)) expect(Array.from(now.weights[n])).toEqual(Array.from(first.weights[n]));
    await loop.dispose();
    // the checkpoint holds the kept adapters: a resumed run starts from them
    const resumed = await TrainingLoop.create({ engine, runtime, models, config, rateRollouts: rate, runId: 'validate-select', checkpoints });
    const kept = resumed.adapter('policy');
    for (const n of Object.keys(first.weights)) expect(Array.from(kept.weights[n])).toEqual(Array.from(first.weights[n]));
    const rows = new Map<string, { config: Record<string, unknown> }>();
    await new StoreCheckpoints({ putAdapter: async (a: { id: string; config: Record<string, unknown> }) => void rows.set(a.id, a) } as never).save(
      (await checkpoints.load('validate-select'))!,
    );
    expect(rows.get('validate-select/policy')?.config.iteration).toBe(0); // the menus' label: the start, not iteration 3
    await resumed.dispose();
  }, 120_000);

  it('abandons a validation in progress on stop(), ending the iteration without it, and validates at the next check', async () => {
    const config = tinyConfig('grpo', 5);
    config.rollback = { ...config.rollback, validateEvery: 1, validateTasks: 16 };
    const loop = await TrainingLoop.create({ engine, runtime, models, config, rateRollouts: rate, runId: 'validate-stop' });
    const setAdapter = engine.setAdapter.bind(engine);
    // the Stop arrives as a message once the validation rollout is under way (its first step yields:
    // the update before it took longer than rollout.ts YIELD_MS)
    engine.setAdapter = async (id, adapter, opts) => {
      if (id.endsWith('#validation')) setTimeout(() => loop.stop(), 0);
      return setAdapter(id, adapter, opts);
    };
    try {
      const stopped = await loop.run(3);
      expect(stopped.map((r) => [r.iteration, r.metrics.validation_success, r.warnings])).toEqual([
        [1, undefined, ['validation skipped: the run was stopped during it']],
      ]);
    } finally {
      engine.setAdapter = setAdapter;
    }
    const [next] = await loop.run(1);
    // 16 validation tasks, one sampled and one greedy episode each: counts over 16, the score their mean
    const { validation_success: score, validation_sampled: sampled, validation_greedy: greedy } = next.metrics;
    for (const share of [sampled, greedy])
      expect(
        Array.from({ length: 17 }, (_, i) => i / 16),
        `share ${share}`,
      ).toContain(share);
    expect(score).toBeCloseTo((sampled + greedy) / 2, 12);
    // validated, and (the run ending there) the end-of-run selection: two updates that did not clearly
    // beat the adapters the run began with leave those in place
    expect(next.warnings).toEqual([expect.stringMatching(/^at the end of the run: kept the adapters of iteration 0, the best validated/)]);
    await loop.dispose();
  }, 120_000);

  it('undoes an update that moves the policy too far on its own rollouts (lr 0.9): the published adapter stays the last good one', async () => {
    const config = tinyConfig('grpo', 5);
    config.lr = 0.9;
    const published: Record<string, Float32Array>[] = [];
    const loop = await TrainingLoop.create({
      engine,
      runtime,
      models,
      config,
      rateRollouts: rate,
      runId: 'kl-guard',
      publish: (t, _id, a) => void (t === 'policy' && published.push(a.weights)),
    });
    const first = loop.adapter('policy');
    const [r] = await loop.run(1);
    expect(r.metrics.rolled_back).toBe(1);
    expect(r.metrics.update_kl).toBeGreaterThan(config.rollback.maxUpdateKl);
    expect(r.warnings.join(' ')).toMatch(/the update moved the policy by KL .* per token on its own rollouts .*learning rate lowered to 0\.45/);
    // what went out after the iteration is the adapter that played it, never the rejected candidate
    for (const n of Object.keys(first.weights)) expect(Array.from(published.at(-1)![n])).toEqual(Array.from(first.weights[n]));
    await loop.dispose();
  }, 120_000);

  it("re-roll credit replays the environment's record when thumbs and turn rewards were added (guess, two turns)", async () => {
    // each turn's re-rolls replay the turns before it; a replay checks the rewards it meets against the
    // record, which thumbs (rate) and infoGainReward must not have changed
    // (12-token replies: a whole question)
    const config: LoopConfig = { ...tinyConfig('grpo', 5, 'guess'), tasksPerIteration: 1, k: 2, maxNewTokens: 12, infoGainReward: 1 };
    if (config.settings.algo === 'grpo') Object.assign(config.settings.starpo, { rerollWeight: 1, rerolls: 1, rerollPool: false });
    const loop = await TrainingLoop.create({ engine, runtime, models, config, rateRollouts: rate, runId: 'reroll-shaped' });
    const [r] = await loop.run(1);
    // two episodes of two turns (the policy asks before it guesses), M 1 kept and 1 afresh per turn
    expect(r.metrics.turns_mean).toBe(2);
    expect(r.metrics.reroll_episodes).toBe(8);
    expect(r.metrics.updated).toBe(1);
    await loop.dispose();
  }, 120_000);

  it("warms PPO's critic up first: the policy stays put, the critic's LoRA and value head move", async () => {
    const config = tinyConfig('ppo', 5);
    if (config.settings.algo === 'ppo') config.settings.starpo.criticWarmup = 1;
    const loop = await TrainingLoop.create({ engine, runtime, models, config, rateRollouts: rate, runId: 'ppo-warmup' });
    const [policy0, critic0] = [loop.adapter('policy'), loop.adapter('critic')];
    expect(Array.from(critic0.weights['v_head.summary.delta.bias'])).toEqual([0]);
    const [warm] = await loop.run(1);
    expect(warm.metrics.updated).toBe(0);
    expect(warm.warnings.join(' ')).toMatch(/no update: critic warm-up \(1 of 1\): the policy is not updated/);
    expect(warm.metrics.critic_loss).toBeGreaterThan(0);
    const [policy1, critic1] = [loop.adapter('policy'), loop.adapter('critic')];
    for (const n of Object.keys(policy0.weights)) expect(Array.from(policy1.weights[n])).toEqual(Array.from(policy0.weights[n]));
    expect(critic1.weights['v_head.summary.delta.bias'][0]).not.toBe(0);
    const [next] = await loop.run(1);
    expect(next.metrics.updated).toBe(1);
    await loop.dispose();
  }, 120_000);

  it('adds step-level credit from shared states to GRPO when stepWeight is set (GiGPO)', async () => {
    const config = tinyConfig('grpo', 5);
    if (config.settings.algo === 'grpo') config.settings.starpo.stepWeight = 1;
    const loop = await TrainingLoop.create({ engine, runtime, models, config, rateRollouts: rate, runId: 'gigpo' });
    const [r] = await loop.run(1);
    // every episode of a group starts in the task's one state, so at least those turns share one
    expect(r.metrics.step_grouped_frac).toBeGreaterThan(0);
    expect(r.metrics.step_grouped_frac).toBeLessThanOrEqual(1);
    expect(r.metrics.updated).toBe(1);
    await loop.dispose();
  }, 120_000);

  it("stops the policy's epochs once a minibatch's KL from the rollout policy passes 1.5 × targetKl", async () => {
    const run = async (targetKl: number) => {
      const config = tinyConfig('grpo', 5);
      if (config.settings.algo === 'grpo') Object.assign(config.settings.starpo, { epochs: 4, targetKl });
      const loop = await TrainingLoop.create({ engine, runtime, models, config, rateRollouts: rate, runId: `target-kl-${targetKl}` });
      const [r] = await loop.run(1);
      await loop.dispose();
      return r.metrics;
    };
    const full = await run(0);
    const stopped = await run(1e-7);
    expect(full.policy_stopped_early).toBeUndefined();
    expect(stopped.policy_stopped_early).toBe(1);
    expect(stopped.train_steps).toBeGreaterThan(0);
    expect(stopped.train_steps).toBeLessThan(full.train_steps);
  }, 120_000);

  it("SWEET-RL's critic trains on a replay of the last criticReplay iterations' trajectory pairs", async () => {
    const config = tinyConfig('sweet', 5);
    if (config.settings.algo === 'sweet') config.settings.sweet.criticReplay = 2;
    // trajectory pairs need a win and a loss in one task group: hotter rollouts, as the shipped policy wins bandit nearly always at T = 1
    config.rolloutTemperature = 2.5;
    const loop = await TrainingLoop.create({ engine, runtime, models, config, rateRollouts: rate, runId: 'sweet-replay' });
    const [a, b] = await loop.run(2);
    await loop.dispose();
    expect(a.metrics.critic_replay_pairs).toBe(a.metrics.trajectory_pairs);
    expect(b.metrics.critic_replay_pairs).toBe(a.metrics.trajectory_pairs + b.metrics.trajectory_pairs);
    expect(a.metrics.trajectory_pairs).toBeGreaterThan(0);
  }, 120_000);

  it("SWEET-RL with criticEpochs 0 keeps the loaded critic (the paper's offline critic) and trains only the actor on its ranking", async () => {
    // a critic trained one iteration, shipped as the critic's adapter as a forged one is. On guess: the
    // shipped policy's bandit replies at T = 1 (the candidates' temperature) are all alike, so no pair
    // of candidates would differ there
    const warm = { ...tinyConfig('sweet', 5), family: 'guess' as const };
    warm.rolloutTemperature = 2.5;
    const trainer = await TrainingLoop.create({ engine, runtime, models, config: warm, rateRollouts: rate, runId: 'sweet-offline-critic' });
    await trainer.run(1);
    const trained = trainer.adapter('critic');
    await trainer.dispose();
    const critic = { ...models.critic, files: { ...models.critic.files, ...shippedAdapterFiles(models.critic.config, trained, { baseModel: 'critic' }) } };
    const config = { ...tinyConfig('sweet', 5), family: 'guess' as const };
    // more candidates at more turns for distinct ones
    if (config.settings.algo === 'sweet') Object.assign(config.settings.sweet, { criticEpochs: 0, candidates: 16, pairsPerTurn: 8, turnsPerIteration: 8 });
    config.rolloutTemperature = 2.5;
    config.lr = 2e-4; // on guess at 1e-3 the update guard undoes the step (update KL 1.84; on bandit 5e-3 gave 0.52)
    const loop = await TrainingLoop.create({ engine, runtime, models: { ...models, critic }, config, rateRollouts: rate, runId: 'sweet-frozen-critic' });
    const policy0 = loop.adapter('policy');
    const [r] = await loop.run(1);
    const [policy1, critic1] = [loop.adapter('policy'), loop.adapter('critic')];
    await loop.dispose();
    expect(r.metrics.trajectory_pairs).toBeUndefined();
    for (const n of Object.keys(trained.weights)) expect(Array.from(critic1.weights[n])).toEqual(Array.from(trained.weights[n]));
    expect(r.metrics.turn_pairs).toBeGreaterThan(0);
    expect(Object.keys(policy0.weights).some((n) => Array.from(policy1.weights[n]).some((x, k) => x !== policy0.weights[n][k]))).toBe(true);
  }, 120_000);

  it('passes a healthy update (lr 5e-3) with a small update KL', async () => {
    const loop = await TrainingLoop.create({ engine, runtime, models, config: tinyConfig('grpo', 5), rateRollouts: rate, runId: 'kl-healthy' });
    const [r] = await loop.run(1);
    expect(r.metrics.rolled_back).toBe(0);
    expect(r.metrics.update_kl).toBeGreaterThan(0);
    expect(r.metrics.update_kl).toBeLessThan(0.1);
    await loop.dispose();
  }, 120_000);

  it('names what is wrong with a configuration', async () => {
    const bad = tinyConfig('starpo');
    if (bad.settings.algo === 'starpo') bad.settings.starpo.keepFraction = 0;
    await expect(TrainingLoop.create({ engine, runtime, models, config: bad })).rejects.toThrow(/keepFraction must lie in \(0, 1\]/);
    await expect(TrainingLoop.create({ engine, runtime, models: { policy: models.policy }, config: tinyConfig('sweet') })).rejects.toThrow(
      /needs the critic model/,
    );
    // the shipped critic has no SWEET-RL adapter: kept as loaded, it would rank every candidate alike
    const frozen = tinyConfig('sweet');
    if (frozen.settings.algo === 'sweet') frozen.settings.sweet.criticEpochs = 0;
    await expect(TrainingLoop.create({ engine, runtime, models, config: frozen })).rejects.toThrow(
      /criticEpochs 0 keeps the loaded critic, but this critic has no SWEET-RL adapter/,
    );
  });
});
