// Held-out gain of a trained adapter with its paired 95% interval (issue #45 check (c)): the base
// policy and the adapter (a PEFT folder, as `turnwise train --out DIR` writes) play the same
// held-out tasks as `turnwise train --eval N --seed S` (test split, seed heldOutSeed('test', S)),
// sampled (T = 1) and greedy; per task success, adapter − base, percentile bootstrap over tasks
// (rollout/successStats.ts pairedDifference).
// Usage: npx tsx scripts/lesson-paired-eval.ts OPTIONS_JSON ADAPTER_DIR [tasks 200] [seed 1]
import { join } from 'node:path';
import { readPeftAdapter } from '../src/cli/commands/generate.ts';
import type { JsonObject } from '../src/rl/envs/types.ts';
import { nodeReader } from '../src/rl/model/folder/nodeIo.ts';
import { PolicyEngine } from '../src/rl/runtime/policyEngine.ts';
import { evaluatePolicy, heldOutSeed, type PolicyModeResult } from '../src/rl/rollout/evaluate.ts';
import { pairedDifference, perTaskSuccess, successInterval } from '../src/rl/rollout/successStats.ts';

const options = JSON.parse(process.argv[2]) as JsonObject;
const dir = process.argv[3];
const tasks = Number(process.argv[4] ?? 200);
const seed = Number(process.argv[5] ?? 1);

const started = performance.now();
// loaded as the trainer service loads it (service.ts: the default adapter slot, precision auto)
const engine = new PolicyEngine();
try {
  await engine.init('node');
  await engine.loadFrom('policy', { kind: 'reader', read: nodeReader('public/models'), manifest: true, name: 'policy' });
  const adapter = await readPeftAdapter(dir, join('public/models', 'policy'));
  await engine.setAdapter(adapter.id, { spec: adapter.spec, weights: adapter.weights }, { model: 'policy', activate: false });
  const config = { family: 'guess' as const, split: 'test' as const, episodes: tasks, seed: heldOutSeed('test', seed), options };
  const base = await evaluatePolicy(engine, config, { adapter: null });
  const tuned = await evaluatePolicy(engine, config, { adapter: adapter.id });
  const out: Record<string, unknown> = { options, adapter: dir, tasks, seed: config.seed };
  for (const mode of ['sampled', 'greedy'] as const) {
    const b = perTaskSuccess((base[mode] as PolicyModeResult).episodes, 1);
    const t = perTaskSuccess((tuned[mode] as PolicyModeResult).episodes, 1);
    out[mode] = {
      base: successInterval(b),
      adapter: successInterval(t),
      gain: pairedDifference(b, t),
      baseFigures: (base[mode] as PolicyModeResult).figures,
      adapterFigures: (tuned[mode] as PolicyModeResult).figures,
    };
  }
  out.seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify(out, null, 2));
} finally {
  await engine.dispose();
}
