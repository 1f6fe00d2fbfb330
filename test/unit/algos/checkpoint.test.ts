// StoreCheckpoints through the IndexedDB trajectory store (fake-indexeddb): a checkpoint written
// after an iteration reads back equal (adapter, AdamW moments, step, loop state), and its adapter row
// holds the LoRA matrices only, in their PEFT shapes. After a reload the store lists the runs'
// adapters (the lab's Evaluate and Play menus), and a listed one loaded into a fresh policy engine
// generates exactly what the adapter the run published did.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { TrajectoryStore } from '../../../src/rl/store/index.ts';
import { isRunnableAdapter, StoreCheckpoints } from '../../../src/rl/algos/checkpoint.ts';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { initLora, loraParams, type LoraSpec } from '../../../src/rl/model/llama/weights.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { tinyModels } from '../engine/fixtures.ts';
import type { TrainCheckpoint } from '../../../src/rl/algos/types.ts';
import { adapterFromRow } from '../../../src/rl/store/formats/peft.ts';

const A = 'model.layers.0.self_attn.q_proj.lora_A.weight';
const B = 'model.layers.0.self_attn.q_proj.lora_B.weight';

function checkpoint(iteration: number): TrainCheckpoint {
  const t = (n: number, x: number) => Float32Array.from({ length: n }, (_, i) => x + i / 8);
  const learners = (x: number): TrainCheckpoint['learners'] =>
    (['policy', 'critic'] as const).map((target) => ({
      target,
      spec: { rank: 2, alpha: 4, targets: ['q_proj'] as const },
      dims: { [A]: [2, 4], [B]: [4, 2] },
      trainer: { step: 3 * x, tensors: { [A]: t(8, x), [B]: t(8, 1), [`${A}.m`]: t(8, 2), [`${A}.v`]: t(8, 3), [`${B}.m`]: t(8, 4), [`${B}.v`]: t(8, 5) } },
    }));
  return {
    best: { iteration: 1, outcomes: [1, 0, 1], states: learners(-1), cleared: true },
    runId: 'run-1',
    algo: 'sweet',
    iteration,
    lr: 1e-4,
    rollbacks: 1,
    lossHistory: { policy: [0.7, 0.69], critic: [0.69] },
    gradNormHistory: [0.5],
    spreadHistory: [0.3, 0.2],
    successHistory: [0.8, 0.7],
    firstDistinct: 0.4,
    learners: learners(iteration),
  };
}

describe('StoreCheckpoints', () => {
  it('writes and restores the latest checkpoint of a run', async () => {
    const store = await TrajectoryStore.open({ name: 'ckpt-test' });
    const cks = new StoreCheckpoints(store);
    expect(await cks.load('run-1')).toBeNull();
    await cks.save(checkpoint(1));
    await cks.save(checkpoint(2));
    const back = await cks.load('run-1');
    expect(back).toEqual(checkpoint(2));
    const row = await store.getAdapter('run-1/policy');
    expect(Object.keys(row?.tensors ?? {}).sort()).toEqual([A, B]);
    expect(row?.tensors[A].dims).toEqual([2, 4]);
    expect(row?.config).toMatchObject({ rank: 2, alpha: 4, targets: ['q_proj'], iteration: 2 });
    // the store's PEFT path reads it as a plain adapter
    const lora = adapterFromRow(row ?? { id: '', config: {}, tensors: {} });
    expect(lora.spec).toEqual({ rank: 2, alpha: 4, targets: ['q_proj'] });
    expect(Array.from(lora.weights[A])).toEqual(Array.from(checkpoint(2).learners[0].trainer.tensors[A]));
  });

  it("lists the stored adapters without their tensors, runnable ones apart from optimizer, loop state and the validation guard's best adapters", async () => {
    const store = await TrajectoryStore.open({ name: 'ckpt-list' });
    await new StoreCheckpoints(store).save(checkpoint(3));
    const rows = await store.listAdapters();
    const best = ['critic', 'critic/optimizer', 'policy', 'policy/optimizer'].map((r) => `run-1/best/${r}`);
    expect(rows.map((r) => r.id).sort()).toEqual([
      ...best,
      'run-1/checkpoint',
      'run-1/critic',
      'run-1/critic/optimizer',
      'run-1/policy',
      'run-1/policy/optimizer',
    ]);
    for (const r of rows) expect(r).not.toHaveProperty('tensors');
    const runnable = rows.filter(isRunnableAdapter);
    expect(runnable.map((r) => `${r.id} ${r.target}`).sort()).toEqual(['run-1/critic critic', 'run-1/policy policy']);
    expect(runnable.find((r) => r.target === 'policy')?.config).toMatchObject({ algorithm: 'sweet', iteration: 3 });
    store.close();
  });

  it('loads a stored adapter into a fresh engine after a reload, generating what the published one did', async () => {
    const m = await tinyModels(3);
    const spec: LoraSpec = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] };
    const weights = initLora(m.cfg, spec, 5, 0.3);
    const rng = new Rng(5);
    for (const p of loraParams(m.cfg, spec)) weights[p.b.name] = weights[p.b.name].map(() => rng.normal() * 0.3);
    const dims = Object.fromEntries(
      loraParams(m.cfg, spec).flatMap((p) => [
        [p.a.name, [...p.a.shape]],
        [p.b.name, [...p.b.shape]],
      ]),
    );
    const moments = Object.fromEntries(
      Object.entries(weights).flatMap(([n, w]) => [
        [`${n}.m`, new Float32Array(w.length)],
        [`${n}.v`, new Float32Array(w.length)],
      ]),
    );
    const ck = checkpoint(2);
    ck.learners = [{ target: 'policy', spec, dims, trainer: { step: 2, tensors: { ...weights, ...moments } } }];
    const first = await TrajectoryStore.open({ name: 'ckpt-reload' });
    await new StoreCheckpoints(first).save(ck);
    first.close();

    const req = { prompts: [{ messages: [{ role: 'user' as const, content: 'Is it red?' }] }], n: 2, sampling: { seed: 4, maxNewTokens: 10 } };
    const live = new PolicyEngine();
    const fresh = new PolicyEngine();
    try {
      for (const e of [live, fresh]) {
        await e.init('wasm');
        await e.load('policy', { kind: 'files', files: m.files });
      }
      await live.setAdapter('run-1/policy', { spec, weights });
      const published = await live.generate(req);
      // a reload: a new store connection, an engine that has never seen the adapter
      const store = await TrajectoryStore.open({ name: 'ckpt-reload' });
      const [listed] = (await store.listAdapters()).filter((r) => r.target === 'policy' && isRunnableAdapter(r));
      expect(listed.id).toBe('run-1/policy');
      const row = await store.getAdapter(listed.id);
      await fresh.setAdapter(listed.id, adapterFromRow(row!), { activate: false });
      const base = await fresh.generate(req);
      const reloaded = await fresh.generate({ ...req, adapter: listed.id });
      expect(reloaded.adapter).toBe('run-1/policy');
      expect(reloaded.generations.map((g) => g.tokenIds)).toEqual(published.generations.map((g) => g.tokenIds));
      expect(reloaded.generations.map((g) => g.tokenIds)).not.toEqual(base.generations.map((g) => g.tokenIds));
      store.close();
    } finally {
      await live.dispose();
      await fresh.dispose();
    }
  });
});
