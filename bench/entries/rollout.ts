// Batched rollouts with the shipped policy (src/rl/rollout/rollout.ts + PolicyBatchAgent): episodes/s
// and agent turns/s per task family at K = 8 episodes per task (one engine generate call per step
// over every live episode), sampled at temperature 1, on onnxruntime-web's wasm backend and, side by
// side, on onnxruntime-node. Each figure is one timed rollout after a warm-up rollout of other tasks.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchEntry, BenchRow } from '../harness.ts';
import { modelsDir } from '../../src/cli/paths.ts';
import { FAMILY_NAMES } from '../../src/rl/envs/types.ts';
import { PolicyBatchAgent } from '../../src/rl/rollout/agents.ts';
import { openModels } from '../../src/rl/rollout/node.ts';
import { rollout, taskSpecs } from '../../src/rl/rollout/rollout.ts';

const K = 8;
const TASKS = 4;

export const rolloutBench: BenchEntry = {
  name: 'rollout',
  description: `episodes/s per family with the shipped policy, K = ${K} batched episodes per task, wasm and onnxruntime-node`,
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
        for (const family of FAMILY_NAMES) {
          const agent = await PolicyBatchAgent.create(engine);
          await rollout({ tasks: taskSpecs(family, 'test', 1, 10_000), k: K, seed: 2 }, agent); // warm-up
          const start = performance.now();
          const r = await rollout({ tasks: taskSpecs(family, 'test', TASKS, 1), k: K, seed: 1 }, agent);
          const s = (performance.now() - start) / 1000;
          const turns = r.episodes.reduce((a, e) => a + e.turns.length, 0);
          const success = r.episodes.filter((e) => e.success).length / r.episodes.length;
          log(`rollout ${family} ${backend}: ${(r.episodes.length / s).toFixed(1)} episodes/s, ${(turns / s).toFixed(0)} turns/s (${(turns / r.episodes.length).toFixed(1)} turns/episode, success ${(100 * success).toFixed(0)}%)`);
          const c = `${family}, K=${K} × ${TASKS} tasks, ${backend}`;
          rows.push(
            { case: c, metric: 'episodes/s', value: r.episodes.length / s, unit: '1/s', note: `${(turns / r.episodes.length).toFixed(1)} turns/episode` },
            { case: c, metric: 'turns/s', value: turns / s, unit: '1/s' },
          );
        }
      } finally {
        await engine.dispose();
      }
    }
    return rows;
  },
};
