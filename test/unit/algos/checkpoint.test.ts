// StoreCheckpoints through the IndexedDB trajectory store (fake-indexeddb): a checkpoint written
// after an iteration reads back equal (adapter, AdamW moments, step, loop state), and its adapter row
// holds the LoRA matrices only, in their PEFT shapes.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { TrajectoryStore } from '../../../src/rl/store/index.ts';
import { StoreCheckpoints } from '../../../src/rl/algos/checkpoint.ts';
import type { TrainCheckpoint } from '../../../src/rl/algos/types.ts';
import { adapterFromRow } from '../../../src/rl/store/formats/peft.ts';

const A = 'model.layers.0.self_attn.q_proj.lora_A.weight';
const B = 'model.layers.0.self_attn.q_proj.lora_B.weight';

function checkpoint(iteration: number): TrainCheckpoint {
  const t = (n: number, x: number) => Float32Array.from({ length: n }, (_, i) => x + i / 8);
  return {
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
    learners: (['policy', 'critic'] as const).map((target) => ({
      target,
      spec: { rank: 2, alpha: 4, targets: ['q_proj'] as const },
      dims: { [A]: [2, 4], [B]: [4, 2] },
      trainer: { step: 3 * iteration, tensors: { [A]: t(8, iteration), [B]: t(8, 1), [`${A}.m`]: t(8, 2), [`${A}.v`]: t(8, 3), [`${B}.m`]: t(8, 4), [`${B}.v`]: t(8, 5) } },
    })),
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
});
