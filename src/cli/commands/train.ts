// `turnwise train`: trains a LoRA adapter of the policy (and of the critic where the algorithm has
// one) with one of the algorithms of src/rl/algos, in Node, through the trainer worker's own
// TrainerService run in-thread (algos/service.ts); prints per-iteration metrics and the held-out
// evaluation (test split, sampled and greedy) before and after; `--out DIR` writes the trained policy adapter as PEFT files.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { intOption, jsonOption, parseOptions, report, UsageError, type Command } from '../command.ts';
import { prepareOutDir } from '../output.ts';
import { modelsDir } from '../paths.ts';
import { iterationTasks } from '../../rl/algos/config.ts';
import { CRITIC_LR } from '../../rl/algos/algoSettings.ts';
import { TrainerService } from '../../rl/algos/service.ts';
import { taskSpecs } from '../../rl/rollout/rollout.ts';
import { requireStudent } from '../../rl/rollout/node.ts';
import { ensurePolicyTakes } from '../policyFit.ts';
import { lessonOption, lessonUsage } from '../lesson.ts';
import { ALGO_NAMES, ALGO_SPECS, defaultLr, needsCritic, type AlgoName } from '../../rl/algos/registry.ts';
import type { AlgoSpec } from '../../rl/algos/spec.ts';
import type { IterationReport } from '../../rl/algos/types.ts';
import { heldOutSeed, type HeldOutResult, type PolicyMode } from '../../rl/rollout/evaluate.ts';
import { pairedDifference } from '../../rl/rollout/successStats.ts';
import { exportPeftAdapter } from '../../rl/bridge/peft.ts';
import type { JsonObject } from '../../rl/envs/types.ts';
import { FAMILY_NAMES, type FamilyName } from '../../rl/envs/registry.ts';
import { nodeReader } from '../../rl/model/folder/nodeIo.ts';
import { parseManifest } from '../../rl/model/manifest.ts';
import type { LoadedModel } from '../../rl/model/folder/folder.ts';
import type { BackendKind } from '../../rl/runtime/ort.ts';

function line(r: IterationReport): string {
  const m = r.metrics;
  const f = (k: string, d = 3) => (m[k] === undefined ? '–' : m[k].toFixed(d));
  const guess =
    m.early_answer_rate === undefined
      ? ''
      : ` early ${f('early_answer_rate', 2)} out-of-turns ${f('ran_out_of_turns_rate', 2)} wasted ${f('wasted_questions_mean', 2)} useless ${f('useless_question_rate', 2)} repeated ${f('repeated_question_rate', 2)}`;
  return `iter ${r.iteration}: reward ${f('reward_mean')} ±${f('reward_spread')} success ${f('success', 2)} entropy ${f('entropy', 2)} kl ${f('kl_ref', 4)} grad ${f('grad_norm')} len ${f('response_length', 1)} clip ${f('clip_frac', 3)}${guess} ${m.train_rows === undefined ? '' : ` rows ${m.train_rows}`} lr ${m.lr.toExponential(1)} ${f('seconds', 1)} s (rollout ${f('rollout_seconds', 1)}, train ${f('train_seconds', 1)} for ${m.train_tokens ?? 0} tokens, score ${f('score_seconds', 1)})${r.warnings.length ? `\n  ! ${r.warnings.join('\n  ! ')}` : ''}`;
}

function evalLine(name: string, r: HeldOutResult): string {
  const p = (m: Record<string, number>) => `${(100 * m.success).toFixed(1)}%`;
  const extra =
    r.sampled.early_answer_rate === undefined
      ? ''
      : `; sampled early ${r.sampled.early_answer_rate.toFixed(2)}, useless ${r.sampled.useless_question_rate.toFixed(2)}, repeated ${r.sampled.repeated_question_rate.toFixed(2)}`;
  return `${name}: held-out success sampled ${p(r.sampled)}, greedy ${p(r.greedy)}${extra}`;
}

/** after − before held-out success per mode with its paired 95% interval: both played the same tasks (issue #45 reports this interval per seed). */
function heldOutGain(before: HeldOutResult, after: HeldOutResult): Record<PolicyMode, ReturnType<typeof pairedDifference>> {
  return {
    sampled: pairedDifference(before.perTask.sampled, after.perTask.sampled),
    greedy: pairedDifference(before.perTask.greedy, after.perTask.greedy),
  };
}

function gainLine(g: ReturnType<typeof heldOutGain>): string {
  const pts = (x: number | null) => (x === null ? '–' : `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`);
  const one = (m: PolicyMode) => `${m} ${pts(g[m].estimate)} [${pts(g[m].low)}, ${pts(g[m].high)}]`;
  return `gain (paired 95% over tasks): ${one('sampled')}, ${one('greedy')}`;
}

/**
 * The usage's lines on the algorithms, from their specs (registry.ts): each one's summary, its config
 * section with the fields and defaults `--config` may set, and the default learning rates.
 */
function algorithmUsage(): string[] {
  const byLr = new Map<number, string[]>();
  for (const s of ALGO_SPECS) byLr.set(s.lr, [...(byLr.get(s.lr) ?? []), s.name]);
  const lrs = [...byLr].map(([lr, names]) => `${lr} for ${names.join(', ')}`).join('; ');
  return [
    `--lr: the policy adapter's AdamW step (default ${lrs}; the critic's is criticLr, ${CRITIC_LR}).`,
    'Algorithms, and the section of --config each reads (its fields with their defaults):',
    ...(ALGO_SPECS as readonly AlgoSpec[]).map(
      (s) =>
        `  ${s.name.padEnd(7)}${s.summary}${s.needsCritic(s.defaults) ? ' [needs the critic model]' : ''}\n           "${s.section}": ${JSON.stringify(s.defaults)}`,
    ),
  ];
}

export const train: Command = {
  name: 'train',
  summary: 'train a LoRA adapter with SWEET-RL, StarPO(-S)/PPO/GRPO, multi-turn DPO or rejection fine-tuning',
  usage: [
    `Usage: npx turnwise train --algo ${ALGO_NAMES.join('|')} --family F [--iterations N] [--seed S] [--out DIR] [--json]`,
    '                          [--tasks N] [--k K] [--eval N] [--lr X] [--models DIR] [--backend node|wasm] [--options JSON | --lesson NAME]',
    '                          [--config JSON] [--eval-split test|train] [--fixed-tasks N]',
    `F: ${FAMILY_NAMES.join(', ')}. Defaults: --iterations 10, --seed 1, --tasks 8 (task groups per iteration), --k 8 (episodes per task),`,
    `--eval 50 (held-out test tasks, before and after, sampled and greedy; 0 skips), --models public/models, --backend node.`,
    ...algorithmUsage(),
    '--config JSON overrides loop fields and the algorithm\'s section, e.g. \'{"criticLr":1e-3,"starpo":{"divideByStd":false}}\' (src/rl/algos/config.ts).',
    '--out DIR writes the trained policy adapter as PEFT files (adapter_model.safetensors, adapter_config.json).',
    ...lessonUsage(),
    '--fixed-tasks N: the overfit check; the iterations draw their tasks from one fixed set of N train tasks (N ≥ --tasks;',
    '  default 0, new tasks every iteration). A loop that works takes rollout success on a handful of tasks near 1.',
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, {
      algo: { type: 'string' },
      family: { type: 'string' },
      iterations: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      tasks: { type: 'string' },
      k: { type: 'string' },
      eval: { type: 'string' },
      lr: { type: 'string' },
      models: { type: 'string' },
      backend: { type: 'string' },
      options: { type: 'string' },
      lesson: { type: 'string' },
      config: { type: 'string' },
      'eval-split': { type: 'string' },
      'fixed-tasks': { type: 'string' },
    });
    const algo = values.algo as AlgoName;
    if (!ALGO_NAMES.includes(algo)) throw new UsageError(`--algo must be one of ${ALGO_NAMES.join(', ')}, got "${values.algo ?? ''}"`);
    const lesson = lessonOption(values);
    const family = (lesson?.family ?? values.family) as FamilyName;
    if (!FAMILY_NAMES.includes(family)) throw new UsageError(`--family must be one of ${FAMILY_NAMES.join(', ')}, got "${values.family ?? ''}"`);
    const iterations = intOption(values.iterations, 'iterations', 10, 0, 100_000);
    const seed = intOption(values.seed, 'seed', 1, 0, 2 ** 31);
    const evalTasks = intOption(values.eval, 'eval', 50, 0, 100_000);
    const evalSplit = values['eval-split'] ?? 'test';
    if (evalSplit !== 'test' && evalSplit !== 'train') throw new UsageError(`--eval-split must be test or train, got "${evalSplit}"`);
    const backend = (values.backend ?? 'node') as BackendKind;
    if (backend !== 'node' && backend !== 'wasm') throw new UsageError(`--backend must be node or wasm, got "${values.backend}"`);
    const lr = values.lr === undefined ? defaultLr(algo) : Number(values.lr);
    if (!(lr > 0 && lr < 1)) throw new UsageError(`--lr must be in (0, 1), got "${values.lr}"`);
    // Task options default to those the policy was forged on (its model metadata; guess: 4 candidates, T = 4).
    const options = lesson ? lesson.options : values.options === undefined ? undefined : (jsonOption(values.options, 'options', 'a JSON object') as JsonObject);
    let overrides: JsonObject | undefined;
    if (values.config !== undefined) {
      const over = jsonOption(values.config, 'config', 'a JSON object');
      if (typeof over !== 'object' || over === null || Array.isArray(over)) throw new UsageError('--config must be a JSON object');
      overrides = over as JsonObject;
    }
    const tasksPerIteration = intOption(values.tasks, 'tasks', 8, 1, 10_000);
    const fixedTasks = intOption(values['fixed-tasks'], 'fixed-tasks', 0, 0, 1_000_000);
    if (fixedTasks > 0 && fixedTasks < tasksPerIteration)
      throw new UsageError(`--fixed-tasks ${fixedTasks} is fewer than --tasks ${tasksPerIteration}: a task would play twice in one iteration`);
    const request = {
      algo,
      family,
      seed,
      lr,
      tasksPerIteration,
      k: intOption(values.k, 'k', 8, 2, 1024),
      fixedTasks,
      ...(options ? { options } : {}),
      ...(lesson?.start === 'student' ? { start: lesson.start } : {}),
      ...(overrides ? { overrides } : {}),
    };
    // before any work: an --out that cannot be written fails now, not after the training it would keep
    if (values.out) await prepareOutDir(values.out);
    const root = values.models ?? modelsDir();
    const read = nodeReader(root);
    const manifestBytes = await read('manifest.json');
    if (!manifestBytes) throw new UsageError(`no models at ${root} (manifest.json missing): run npm run forge or pass --models DIR`);
    const manifest = parseManifest(new TextDecoder().decode(manifestBytes));
    const names = Object.keys(manifest.models);
    const start = lesson?.start ?? 'policy';
    if (start === 'student') await requireStudent(root);
    const log = (s: string) => void (values.json ? undefined : process.stdout.write(`${s}\n`));
    // The trainer worker's service, in-thread: it loads the models once (the train steps share the
    // engine's runtime), resolves the request against the policy's forged task options and builds the loop.
    const service = new TrainerService();
    try {
      const loaded: { policy?: LoadedModel['config'] } = {};
      const status = await service.init({
        models: { read },
        request,
        backend,
        storeName: null,
        // before any work: the first iteration's tasks and the held-out ones must fit the policy's context, and a critic must exist where the algorithm needs one
        prepare: async ({ engine, config, policy }) => {
          loaded.policy = policy.config;
          const evalSpecs = evalTasks ? taskSpecs(family, evalSplit, evalTasks, heldOutSeed(evalSplit, seed), config.options) : [];
          await ensurePolicyTakes(
            engine,
            [...iterationTasks(config, 0), ...evalSpecs],
            config.maxNewTokens === undefined ? {} : { replyTokens: config.maxNewTokens },
          );
          if (needsCritic(config.settings) && !names.includes('critic'))
            throw new UsageError(`--algo ${algo} needs a critic model; ${root} has ${names.join(', ')}`);
        },
      });
      const config = status.config;
      const evalSeed = heldOutSeed(evalSplit, seed);
      const before = evalTasks ? await service.evaluate('base', evalTasks, evalSeed, evalSplit) : null;
      if (before) log(evalLine('before', before));
      const reports = await service.train(iterations, (r) => log(line(r)));
      const after = evalTasks ? await service.evaluate('trained', evalTasks, evalSeed, evalSplit) : null;
      if (after) log(evalLine('after', after));
      const gain = before && after ? heldOutGain(before, after) : null;
      if (gain) log(gainLine(gain));
      if (values.out && loaded.policy) {
        const files = exportPeftAdapter(loaded.policy, await service.adapter('policy'), {
          baseModel: resolve(root, manifest.models[start]?.folder ?? start),
          metadata: { algorithm: algo, family, seed: String(seed), iterations: String(iterations) },
        });
        await mkdir(values.out, { recursive: true });
        for (const [name, bytes] of Object.entries(files)) await writeFile(join(values.out, name), bytes);
        log(`wrote the policy adapter to ${values.out}`);
      }
      const command = `npx turnwise train ${argv.filter((a) => a !== '--json').join(' ')}`;
      if (values.json)
        report(
          true,
          {
            command,
            algo,
            family,
            ...(lesson ? { lesson: lesson.name, start } : {}),
            seed,
            iterations,
            config,
            evaluation: { split: evalSplit, tasks: evalTasks, seed: evalSeed, before, after, gain },
            reports,
          },
          () => '',
        );
    } finally {
      await service.dispose();
    }
    return 0;
  },
};
