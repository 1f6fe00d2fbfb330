// The fixture of the one-update tests (signs.test.ts, direction.test.ts, dagger.test.ts): the tiny
// random models (engine/fixtures.ts tinyModels, seed 9, 512-token context) loaded in an in-thread
// PolicyEngine and read for the trainer, a wasm OrtRuntime for the train-step graphs, and the LoRA
// and token budgets every such update uses. banditGroup.ts holds the bandit group they train on.
import { afterAll, beforeAll } from 'vitest';
import type { LoraSpec } from '../../../src/rl/model/llama/weights.ts';
import type { Windows } from '../../../src/rl/algos/context.ts';
import { loadModel, type LoadedModel } from '../../../src/rl/model/folder/folder.ts';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { tinyModels } from '../engine/fixtures.ts';

/** LoRA on attention and the MLP's down projection, rank 4: small, and enough for one step to move a reply's log-prob. */
export const TINY_LORA: LoraSpec = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'o_proj', 'down_proj'] };

/** Token budgets of the tiny models' 512-token context. */
export const TINY_BUDGETS: Windows = { policyBudget: 512, policyReserve: 16, criticBudget: 512, policyKeepsAnswered: false, criticKeepsAnswered: false };

/** What the tests read once the fixture is set up (engine at once; runtime and models inside a test). */
export interface TinyTrainer {
  readonly engine: PolicyEngine;
  runtime: OrtRuntime;
  /** The tiny models as the trainer reads them (policy and critic are the same random weights). */
  models: { policy: LoadedModel; critic: LoadedModel };
}

/**
 * Sets the fixture up before the tests of the enclosing describe (or file) and disposes of it after:
 * the policy loaded in the engine, and with `critic` the critic too (the algorithms that train one).
 */
export function tinyTrainer(opts: { critic?: boolean } = {}): TinyTrainer {
  const t = { engine: new PolicyEngine() } as TinyTrainer;
  beforeAll(async () => {
    const m = await tinyModels(9, 512);
    const read = async (p: string) => m.files[p] ?? null;
    t.models = { policy: await loadModel(read, 'policy'), critic: await loadModel(read, 'critic') };
    await t.engine.init('wasm');
    await t.engine.load('policy', { kind: 'files', files: m.files, name: 'policy' });
    if (opts.critic) await t.engine.load('critic', { kind: 'files', files: m.files, name: 'critic' });
    t.runtime = await OrtRuntime.create('wasm');
  });
  afterAll(async () => {
    await t.engine.dispose();
    await t.runtime.dispose();
  });
  return t;
}
