// Batched rollouts with the shipped policy (src/rl/rollout/rollout.ts + PolicyBatchAgent): episodes/s
// and agent turns/s per task family at K = 8 episodes per task (one engine generate call per step
// over every live episode), sampled at temperature 1, on onnxruntime-web's wasm backend and, side by
// side, on onnxruntime-node. Each figure is one timed rollout after a warm-up rollout of other tasks.
// Tasks use the options the policy is forged on (its config.json, model/meta.ts taskOptions), as `turnwise passkt` does.
// The agent reuses each episode's KV cache across turns (its default); rolloutTurns.ts adds, per
// backend, the time of turn 1 and turn 4 of guess with and without that reuse.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchEntry, BenchRow } from '../harness.ts';
import { modelsDir } from '../../src/cli/paths.ts';
import { FAMILY_NAMES, type FamilyName } from '../../src/rl/envs/registry.ts';
import type { PolicyEngine } from '../../src/rl/runtime/policyEngine.ts';
import { taskOptions } from '../../src/rl/model/meta.ts';
import { PolicyBatchAgent } from '../../src/rl/rollout/agents.ts';
import { openModels } from '../../src/rl/rollout/node.ts';
import { rollout, taskSpecs } from '../../src/rl/rollout/rollout.ts';
import { kvReuseTurns } from './rolloutTurns.ts';

const K = 8;
const TASKS = 4;

/** One family: a warm-up rollout, then K episodes of TASKS tasks timed. */
async function measure(engine: PolicyEngine, family: FamilyName, c: string, log: (line: string) => void): Promise<BenchRow[]> {
  const agent = await PolicyBatchAgent.create(engine);
  const options = taskOptions(engine.loadedModel('policy').turnwise, family);
  await rollout({ tasks: taskSpecs(family, 'test', 1, 10_000, options), k: K, seed: 2 }, agent);
  const start = performance.now();
  const r = await rollout({ tasks: taskSpecs(family, 'test', TASKS, 1, options), k: K, seed: 1 }, agent);
  const s = (performance.now() - start) / 1000;
  const turns = r.episodes.reduce((a, e) => a + e.turns.length, 0);
  const success = r.episodes.filter((e) => e.success).length / r.episodes.length;
  log(
    `rollout ${c}: ${(r.episodes.length / s).toFixed(1)} episodes/s, ${(turns / s).toFixed(0)} turns/s (${(turns / r.episodes.length).toFixed(1)} turns/episode, success ${(100 * success).toFixed(0)}%)`,
  );
  return [
    {
      case: c,
      metric: 'episodes/s',
      value: r.episodes.length / s,
      unit: '1/s',
      note: `${(turns / r.episodes.length).toFixed(1)} turns/episode, success ${(100 * success).toFixed(0)}%`,
    },
    { case: c, metric: 'turns/s', value: turns / s, unit: '1/s' },
  ];
}

export const rolloutBench: BenchEntry = {
  name: 'rollout',
  description: `episodes/s per family with the shipped policy, K = ${K} batched episodes per task, wasm and onnxruntime-node; guess turn 1 vs turn 4 with and without KV reuse`,
  byDefault: true,
  async run(log) {
    const rows: BenchRow[] = [];
    if (!existsSync(join(modelsDir(), 'manifest.json'))) {
      log('rollout: no shipped models (public/models/manifest.json); run `npm run forge` first');
      return [{ case: 'shipped policy', metric: 'episodes/s', value: Number.NaN, unit: '1/s', note: 'no shipped models yet' }];
    }
    for (const backend of ['wasm', 'node'] as const) {
      const engine = await openModels({ root: modelsDir(), backend, models: ['policy'] });
      try {
        rows.push(...(await kvReuseTurns(engine, backend, log)));
        for (const family of FAMILY_NAMES) {
          const c = `${family}, K=${K} × ${TASKS} tasks, ${backend}`;
          try {
            rows.push(...(await measure(engine, family, c, log)));
          } catch (e) {
            // e.g. a model whose context window cannot hold this family's prompt
            log(`rollout ${c}: skipped (${(e as Error).name}: ${(e as Error).message})`);
            rows.push({ case: c, metric: 'episodes/s', value: Number.NaN, unit: '1/s', note: `skipped: ${(e as Error).name}` });
          }
        }
      } finally {
        await engine.dispose();
      }
    }
    return rows;
  },
};
