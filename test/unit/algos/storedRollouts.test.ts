// Training rollouts reach IndexedDB (fake-indexeddb): one GRPO iteration on the shipped policy with a
// trajectory store stores all tasks × K episodes under the loop's run id, tagged with the policy
// adapter the engine sampled them with, under a run record of the loop's settings; a resumed loop
// keeps that run record; without `trajectories` nothing is stored; two Starts without a run id are two runs.
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { loadModel, type LoadedModel } from '../../../src/rl/model/folder/folder.ts';
import { TrainingLoop } from '../../../src/rl/algos/loop.ts';
import { defaultLoopConfig } from '../../../src/rl/algos/config.ts';
import { StoreCheckpoints } from '../../../src/rl/algos/checkpoint.ts';
import { modelsDir } from '../../../src/cli/paths.ts';
import { nodeReader } from '../../../src/rl/model/folder/nodeIo.ts';
import { TrajectoryStore } from '../../../src/rl/store/index.ts';
import { turnsOf } from '../../../src/rl/store/turn.ts';

const engine = new PolicyEngine();
let runtime: OrtRuntime;
let models: { policy: LoadedModel };

const config = () => {
  const c = defaultLoopConfig('grpo', 'bandit', {
    seed: 5,
    tasksPerIteration: 2,
    k: 2,
    turnLimit: 2,
    maxNewTokens: 6,
    lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] },
    lr: 5e-3,
  });
  if (c.settings.algo === 'grpo') c.settings.starpo.batch = 4;
  return c;
};

beforeAll(async () => {
  const read = nodeReader(modelsDir());
  models = { policy: await loadModel(read, 'policy') };
  await engine.init('wasm');
  await engine.loadFrom('policy', { kind: 'reader', read, manifest: true, name: 'policy' });
  runtime = await OrtRuntime.create('wasm');
});
afterAll(async () => {
  await engine.dispose();
  await runtime.dispose();
});

describe('training rollouts in the store', () => {
  it('stores every rollout episode of an iteration with run and adapter tags', async () => {
    const store = await TrajectoryStore.open({ name: `train-rollouts-${Math.random()}` });
    const loop = await TrainingLoop.create({
      engine,
      runtime,
      models,
      config: config(),
      runId: 'run-a',
      checkpoints: new StoreCheckpoints(store),
      trajectories: store,
    });
    await loop.run(1);
    const page = await store.listEpisodes({ runId: 'run-a' }, { limit: 100 });
    expect(page.items.length).toBe(2 * 2);
    expect(
      page.items.every((s) => s.model.adapter === loop.adapterId('policy') && s.model.policy === 'policy' && s.family === 'bandit' && s.split === 'train'),
    ).toBe(true);
    expect(page.items.every((s) => s.status === 'complete' || s.status === 'aborted')).toBe(true);
    const run = await store.getRun('run-a');
    expect(run).toMatchObject({ algorithm: 'grpo', adapterId: loop.adapterId('policy'), seed: 5 });
    // the policy's own tokens and log-probs are stored with each agent turn
    const [first] = await store.getEpisodes([page.items[0].id]);
    const turns = turnsOf(first?.turns ?? []).turns;
    expect(turns.length).toBeGreaterThan(0);
    for (const t of turns) {
      expect(t.backend).toBe('wasm');
      expect(t.tokens?.length).toBe(t.completionTokens);
      expect(t.logprobs?.length).toBe(t.completionTokens);
    }
    // a resumed run keeps its run record and adds the next iteration's episodes to it
    const resumed = await TrainingLoop.create({
      engine,
      runtime,
      models,
      config: config(),
      runId: 'run-a',
      checkpoints: new StoreCheckpoints(store),
      trajectories: store,
    });
    expect(resumed.iteration).toBe(1);
    await resumed.run(1);
    expect(await store.countEpisodes({ runId: 'run-a' })).toBe(8);
    expect((await store.listRuns()).length).toBe(1);
    // without trajectories nothing is stored
    const plain = await TrainingLoop.create({ engine, runtime, models, config: config(), runId: 'run-b' });
    await plain.run(1);
    expect(await store.countEpisodes({ runId: 'run-b' })).toBe(0);
    // two Starts of one config without a run id are two runs: neither resumes nor overwrites the other (issue 22 point 4)
    const firstStart = await TrainingLoop.create({ engine, runtime, models, config: config(), checkpoints: new StoreCheckpoints(store), trajectories: store });
    await firstStart.run(1);
    const second = await TrainingLoop.create({ engine, runtime, models, config: config(), checkpoints: new StoreCheckpoints(store), trajectories: store });
    expect(second.runId).not.toBe(firstStart.runId);
    expect(second.runId).toMatch(/^train-grpo-bandit-5-\d{8}T\d{6}-[0-9a-f]{4}$/);
    expect(second.iteration).toBe(0);
    expect((await store.listRuns()).map((r) => r.id).sort()).toEqual(['run-a', firstStart.runId, second.runId].sort());
    for (const l of [loop, resumed, plain, firstStart, second]) await l.dispose();
    store.close();
  }, 120_000);

  it('closes the rollouts in progress as aborted when the loop is disposed under them (Stop in the Train view)', async () => {
    const store = await TrajectoryStore.open({ name: `train-rollouts-${Math.random()}` });
    let loop: TrainingLoop | null = null;
    let stopped: Promise<void> | null = null;
    // the Train view's Stop disposes the trainer while its rollouts are playing: here, at the first turn stored
    const writer = Object.assign(Object.create(store) as TrajectoryStore, {
      commitTurn: (...a: Parameters<TrajectoryStore['commitTurn']>) => {
        stopped ??= loop!.dispose();
        return store.commitTurn(...a);
      },
    });
    loop = await TrainingLoop.create({ engine, runtime, models, config: config(), runId: 'run-stopped', trajectories: writer });
    await loop.run(1).catch(() => undefined); // the update after the rollouts meets disposed learners
    await stopped;
    const page = await store.listEpisodes({ runId: 'run-stopped' }, { limit: 100 });
    expect(page.items.length).toBe(2 * 2);
    expect(page.items.filter((s) => s.status === 'in-progress')).toEqual([]);
    const aborted = await store.getEpisodes(page.items.filter((s) => s.status === 'aborted').map((s) => s.id));
    expect(aborted.some((e) => e?.abortReason === 'the training run was stopped during its rollouts')).toBe(true);
    store.close();
  }, 120_000);
});
