// The learning benchmark of issue #8 (`npm run bench -- learning`, not run by default): for each
// algorithm × family × seed, held-out success (test split, sampled and greedy, with early-answer and
// useless/repeated-question rates on guess) before and after the same training budget (iterations ×
// tasks × K episodes), with the shipped models (TURNWISE_MODELS overrides public/models). Sizes come
// from the environment so a short run and the full table use the same code:
//   LEARNING_ALGOS (default all), LEARNING_FAMILIES (guess,backend,frozenlake), LEARNING_SEEDS (1,2,3),
//   LEARNING_ITERATIONS (20), LEARNING_TASKS (8), LEARNING_K (8), LEARNING_EVAL (100), LEARNING_LR (2e-4).
import type { BenchEntry, BenchRow } from '../harness.ts';
import { modelsDir } from '../../src/cli/paths.ts';
import { defaultLoopConfig } from '../../src/rl/algos/config.ts';
import { TrainingLoop } from '../../src/rl/algos/loop.ts';
import { needsCritic } from '../../src/rl/algos/registry.ts';
import { ALGO_NAMES, type AlgoName } from '../../src/rl/algos/types.ts';
import type { FamilyName } from '../../src/rl/envs/types.ts';
import { loadModel } from '../../src/rl/model/folder/folder.ts';
import { nodeReader } from '../../src/rl/model/folder/nodeIo.ts';
import { PolicyEngine } from '../../src/rl/runtime/policyEngine.ts';
import { OrtRuntime } from '../../src/rl/runtime/ort.ts';

const env = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').filter(Boolean);

export const learning: BenchEntry = {
  name: 'learning',
  description: 'held-out success before/after training, every algorithm at the same budget (slow; sizes from LEARNING_* variables)',
  byDefault: false,
  async run(log) {
    const algos = env('LEARNING_ALGOS', ALGO_NAMES.join(',')) as AlgoName[];
    const families = env('LEARNING_FAMILIES', 'guess,backend,frozenlake') as FamilyName[];
    const seeds = env('LEARNING_SEEDS', '1,2,3').map(Number);
    const [iterations, tasks, k, evalTasks] = ['LEARNING_ITERATIONS:20', 'LEARNING_TASKS:8', 'LEARNING_K:8', 'LEARNING_EVAL:100'].map((s) => Number(process.env[s.split(':')[0]] ?? s.split(':')[1]));
    const lr = Number(process.env.LEARNING_LR ?? 2e-4);
    const read = nodeReader(modelsDir());
    const models = { policy: await loadModel(read, 'policy'), critic: await loadModel(read, 'critic') };
    const rows: BenchRow[] = [];
    for (const family of families) {
      for (const algo of algos) {
        for (const seed of seeds) {
          const engine = new PolicyEngine();
          await engine.init('node');
          const runtime = await OrtRuntime.create('node');
          await engine.loadFrom('policy', { kind: 'reader', read, manifest: true, name: 'policy' });
          await engine.loadFrom('critic', { kind: 'reader', read, manifest: true, name: 'critic' });
          const config = defaultLoopConfig(algo, family, { seed, lr, criticLr: lr, tasksPerIteration: tasks, k });
          const start = performance.now();
          const loop = await TrainingLoop.create({ engine, runtime, models: { policy: models.policy, critic: needsCritic(config.settings) ? models.critic : null }, config });
          const evalSeed = 100_000 + seed;
          const before = await loop.evaluate('base', { tasks: evalTasks, seed: evalSeed });
          const reports = await loop.run(iterations);
          const after = await loop.evaluate('trained', { tasks: evalTasks, seed: evalSeed });
          const minutes = (performance.now() - start) / 60_000;
          const c = `${family} ${algo} seed ${seed} (${iterations} it × ${tasks} tasks × K ${k}, eval ${evalTasks})`;
          const note = `rollbacks ${reports.at(-1)?.metrics.rollbacks ?? 0}, ${minutes.toFixed(1)} min`;
          for (const mode of ['sampled', 'greedy'] as const) {
            rows.push({ case: c, metric: `${mode} success before`, value: 100 * before[mode].success, unit: '%' });
            rows.push({ case: c, metric: `${mode} success after`, value: 100 * after[mode].success, unit: '%', note });
            for (const m of ['early_answer_rate', 'useless_question_rate', 'repeated_question_rate']) {
              if (after[mode][m] !== undefined) rows.push({ case: c, metric: `${mode} ${m} before→after`, value: after[mode][m], unit: `from ${before[mode][m].toFixed(3)}` });
            }
          }
          log(`learning ${c}: sampled ${(100 * before.sampled.success).toFixed(1)}% → ${(100 * after.sampled.success).toFixed(1)}%, greedy ${(100 * before.greedy.success).toFixed(1)}% → ${(100 * after.greedy.success).toFixed(1)}% (${note})`);
          await loop.dispose();
          await engine.dispose();
          await runtime.dispose();
        }
      }
    }
    return rows;
  },
};
