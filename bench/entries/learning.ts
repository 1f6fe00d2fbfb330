// The learning benchmark of issue #8 (`npm run bench -- learning`, not run by default): for each
// algorithm × family × seed, held-out success (test split, sampled and greedy, with early-answer and
// useless/repeated-question rates on guess) before and after the same training budget (iterations ×
// tasks × K episodes), with the shipped models (TURNWISE_MODELS overrides public/models). Sizes come
// from the environment so a short run and the full table use the same code:
//   LEARNING_ALGOS (default all; an algorithm may carry a turn-level credit variant, grpo+gigpo, grpo+info,
//   grpo+reroll, grpo+turn: CREDIT_VARIANTS below), LEARNING_FAMILIES (guess,backend,bandit: the shipped policy's families), LEARNING_SEEDS (1,2,3),
//   LEARNING_ITERATIONS (20), LEARNING_TASKS (8), LEARNING_K (8), LEARNING_EVAL (100), LEARNING_LR (the policy's lr; default each algorithm's, defaultLr),
//   LEARNING_CONFIG (JSON by algorithm, "*" for all: {"grpo": {"starpo": {"divideByStd": false}}},
//   applied with overrideConfig), LEARNING_EVAL_SPLIT (test; train for tuning).
// A family may be one of its lessons (envs/family.ts Lesson, issue #45), family@lesson: the lesson's
// options for training, validation and the held-out tasks, e.g. LEARNING_FAMILIES=guess@turns-decide or
// the case grpo:guess@turns-decide:1 (without it a case plays the options the policy was forged on).
// Parallel shards (one case per process, each on one core):
//   LEARNING_CASES=grpo:guess:1,sweet:bandit:2   only these cases (algo:family[@lesson]:seed), instead of the product;
//   LEARNING_JOBS=16                             run the cases in that many child processes at once
//                                                (pinned to one core each with taskset where present);
//   LEARNING_SHARD_DIR=DIR                       every finished case also writes DIR/<algo>-<family>-<seed>.json;
//   LEARNING_MERGE=DIR                           run nothing: the table from the case files in DIR;
//   LEARNING_BASE_CACHE=DIR                      cases of one family and seed share the base policy's evaluation.
// A child is `node --import tsx bench/entries/learning.ts <algo:family[@lesson]:seed> <out.json>` with the same
// LEARNING_* variables; it writes one case file and no bench result.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchEntry, BenchRow } from '../harness.ts';
import { learningTables, summaryRows, type CaseFigures } from '../learningSummary.ts';
import { modelsDir, projectRoot } from '../../src/cli/paths.ts';
import { overrideConfig, resolveLoopConfig } from '../../src/rl/algos/config.ts';
import { heldOutSeed, type HeldOutResult } from '../../src/rl/rollout/evaluate.ts';
import { TrainingLoop } from '../../src/rl/algos/loop.ts';
import { ALGO_NAMES, needsCritic, type AlgoName } from '../../src/rl/algos/registry.ts';
import type { JsonObject } from '../../src/rl/envs/types.ts';
import { FAMILIES, FAMILY_NAMES, findLesson, type FamilyName } from '../../src/rl/envs/registry.ts';
import { nodeReader } from '../../src/rl/model/folder/nodeIo.ts';
import { PolicyEngine } from '../../src/rl/runtime/policyEngine.ts';

/**
 * Turn-level credit options a case may add to its algorithm (issue #19), each the config the Train
 * view's "Turn-level credit" group sets for it (ui/state/turnCredit.ts): GiGPO's step credit at its
 * paper's ω = 1, the information-gain turn reward at 0.1 per bit, Monte-Carlo re-roll credit with
 * M = 2 at ω = 1.
 */
export const CREDIT_VARIANTS: Record<string, { algos: readonly AlgoName[]; config: JsonObject }> = {
  gigpo: { algos: ['grpo'], config: { starpo: { stepWeight: 1 } } },
  info: { algos: ['grpo', 'ppo', 'starpo', 'rft', 'mtdpo', 'sweet'], config: { infoGainReward: 0.1 } },
  reroll: { algos: ['grpo'], config: { starpo: { rerollWeight: 1, rerolls: 2 } } },
  // the best reward-only learner on guess's lesson (docs/experiments/2026-12-06-turn-credit-lesson.md)
  turn: { algos: ['grpo'], config: { infoGainReward: 1, starpo: { turnCredit: 'toGo' } } },
};

/** One cell of the table. */
export interface LearningCase {
  algo: AlgoName;
  /** A CREDIT_VARIANTS key, or none for the algorithm's defaults. */
  variant?: string;
  family: FamilyName;
  /** One of the family's lessons (FamilySpec.lessons) by name, or none for the options the policy was forged on. */
  lesson?: string;
  seed: number;
}

/** What one case writes (a shard file) and the table is built from. */
export interface CaseResult {
  case: LearningCase;
  rows: BenchRow[];
  /** Before/after success in % (the summary over seeds is built from these). */
  figures: CaseFigures;
  /** Wall time of the case (training and both evaluations), minutes. */
  minutes: number;
  line: string;
  /**
   * Per iteration: the rollouts' success (train split), the validation guard's scores where it ran
   * (the sampled and greedy mean, and each; validationStart, the adapters the run began with), how far the rollout policy was from the base (kl_ref),
   * the seconds of the rollouts and of the re-roll credit where it ran, and the loop's warnings (rollbacks, Echo Trap), for reading a case's course.
   */
  course?: {
    success: number[];
    validation: (number | null)[];
    validationStart?: number | null;
    validationSampled: (number | null)[];
    validationGreedy: (number | null)[];
    klRef: (number | null)[];
    rolloutSeconds: (number | null)[];
    rerollSeconds: (number | null)[];
    warnings: string[][];
  };
}

const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').filter(Boolean);
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** The behaviour rates a family may report beside success (guess: issue #8's collapse modes). */
const RATES = ['early_answer_rate', 'ran_out_of_turns_rate', 'wasted_questions_mean', 'useless_question_rate', 'repeated_question_rate'];

/** Parses "algo[+variant]:family[@lesson]:seed". */
export function parseCase(s: string): LearningCase {
  const [name, place, seed] = s.split(':');
  const [algo, variant] = (name ?? '').split('+');
  const [family, lesson] = (place ?? '').split('@');
  const known = variant === undefined || CREDIT_VARIANTS[variant]?.algos.includes(algo as AlgoName);
  if (!ALGO_NAMES.includes(algo as AlgoName) || !known || !FAMILY_NAMES.includes(family as FamilyName) || !Number.isInteger(Number(seed))) {
    const variants = Object.entries(CREDIT_VARIANTS)
      .map(([v, d]) => `${d.algos.join('|')}+${v}`)
      .join(', ');
    throw new Error(
      `learning case "${s}" is not algo[+variant]:family[@lesson]:seed (algos ${ALGO_NAMES.join('|')}; variants ${variants}; families ${FAMILY_NAMES.join('|')})`,
    );
  }
  if (lesson !== undefined && !FAMILIES[family as FamilyName].lessons?.some((l) => l.name === lesson)) {
    const lessons = FAMILIES[family as FamilyName].lessons?.map((l) => `${family}@${l.name}`) ?? [];
    throw new Error(`learning case "${s}": ${family} has no lesson "${lesson}" (its lessons: ${lessons.join(', ') || 'none'})`);
  }
  return { algo: algo as AlgoName, ...(variant ? { variant } : {}), family: family as FamilyName, ...(lesson ? { lesson } : {}), seed: Number(seed) };
}

/** "algo" or "algo+variant": the table's row key. */
export const algoKey = (c: LearningCase) => (c.variant ? `${c.algo}+${c.variant}` : c.algo);
/** "family" or "family@lesson": the table's family column, and how a case names its place. */
export const placeKey = (c: LearningCase) => (c.lesson ? `${c.family}@${c.lesson}` : c.family);
const caseName = (c: LearningCase) => `${algoKey(c)}-${placeKey(c)}-${c.seed}`;

/** The cases the environment asks for: LEARNING_CASES, else families × algorithms × seeds. */
export function casesFromEnv(): LearningCase[] {
  if (process.env.LEARNING_CASES) return list('LEARNING_CASES', '').map(parseCase);
  const algos = list('LEARNING_ALGOS', ALGO_NAMES.join(','));
  const families = list('LEARNING_FAMILIES', 'guess,backend,bandit');
  const seeds = list('LEARNING_SEEDS', '1,2,3');
  return families.flatMap((f) => algos.flatMap((a) => seeds.map((s) => parseCase(`${a}:${f}:${s}`))));
}

/** LEARNING_CONFIG's overrides for one algorithm ("*" first, then the algorithm's own). */
function overridesFor(algo: AlgoName): JsonObject[] {
  if (!process.env.LEARNING_CONFIG) return [];
  const all = JSON.parse(process.env.LEARNING_CONFIG) as Record<string, JsonObject>;
  return [all['*'], all[algo]].filter((o): o is JsonObject => !!o);
}

/**
 * The base policy's held-out evaluation depends only on the models, the family, the seed, the number
 * of tasks and the split (not on the algorithm, nor on the loop's random state), so cases that share
 * them may share one: with LEARNING_BASE_CACHE=DIR the first case writes DIR/<key>.json and the
 * others read it. The key is salted with the models' manifest so new models never reuse old
 * figures.
 */
async function baseEvaluation(key: string, evaluate: () => Promise<HeldOutResult>): Promise<HeldOutResult> {
  const dir = process.env.LEARNING_BASE_CACHE;
  if (!dir) return evaluate();
  const manifest = createHash('sha256')
    .update(await readFile(join(modelsDir(), 'manifest.json')))
    .digest('hex')
    .slice(0, 12);
  const file = join(dir, `${key}-${manifest}.json`);
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as HeldOutResult;
  const r = await evaluate();
  await mkdir(dir, { recursive: true });
  await writeFile(`${file}.${process.pid}`, `${JSON.stringify(r)}\n`);
  await rename(`${file}.${process.pid}`, file); // whole or absent for a case reading it at once
  return r;
}

/** Trains and evaluates one case in this process (onnxruntime-node). */
export async function runCase(c: LearningCase): Promise<CaseResult> {
  const [iterations, tasks, k, evalTasks] = [num('LEARNING_ITERATIONS', 20), num('LEARNING_TASKS', 8), num('LEARNING_K', 8), num('LEARNING_EVAL', 100)];
  const lr = process.env.LEARNING_LR ? { lr: num('LEARNING_LR', 0) } : {};
  const split = process.env.LEARNING_EVAL_SPLIT === 'train' ? 'train' : 'test';
  const read = nodeReader(modelsDir());
  const start = performance.now();
  const engine = new PolicyEngine();
  await engine.init('node');
  try {
    const load = async (name: string, from = name) => {
      await engine.loadFrom(name, { kind: 'reader', read, manifest: true, name: from });
      return engine.loadedModel(name);
    };
    // a lesson starts from its own policy: the shipped one, or the forge's student in its place
    const lesson = c.lesson ? findLesson(c.lesson) : null;
    const policy = await load('policy', lesson?.start ?? 'policy');
    const options = lesson ? { options: lesson.options, start: lesson.start } : {};
    let config = resolveLoopConfig({ algo: c.algo, family: c.family, seed: c.seed, ...lr, ...options, tasksPerIteration: tasks, k }, policy.turnwise);
    for (const o of overridesFor(c.algo)) config = overrideConfig(config, o);
    if (c.variant) config = overrideConfig(config, CREDIT_VARIANTS[c.variant].config);
    const critic = needsCritic(config.settings);
    const models = { policy, critic: critic ? await load('critic') : null };
    const runtime = engine.sharedRuntime();
    const loop = await TrainingLoop.create({ engine, runtime, models, config });
    const evalSeed = heldOutSeed(split, c.seed);
    const before = await baseEvaluation(`${placeKey(c)}-${c.seed}-${evalTasks}-${split}`, () =>
      loop.evaluate('base', { tasks: evalTasks, seed: evalSeed, split }),
    );
    const reports = await loop.run(iterations);
    const after = await loop.evaluate('trained', { tasks: evalTasks, seed: evalSeed, split });
    await loop.dispose();
    const minutes = (performance.now() - start) / 60_000;
    const label = `${placeKey(c)} ${algoKey(c)} seed ${c.seed} (${iterations} it × ${tasks} tasks × K ${k}, lr ${config.lr}, eval ${evalTasks}${split === 'train' ? ' train-split' : ''})`;
    const note = `rollbacks ${reports.at(-1)?.metrics.rollbacks ?? 0}, ${minutes.toFixed(1)} min`;
    const modes = ['sampled', 'greedy'] as const;
    const pct = (mode: 'sampled' | 'greedy'): [number, number] => [100 * before[mode].success, 100 * after[mode].success];
    const rates = (mode: 'sampled' | 'greedy') =>
      Object.fromEntries(RATES.filter((m) => after[mode][m] !== undefined).map((m) => [m, [before[mode][m], after[mode][m]] as [number, number]]));
    const figures: CaseFigures = {
      algo: algoKey(c),
      family: placeKey(c),
      seed: c.seed,
      success: { sampled: pct('sampled'), greedy: pct('greedy') },
      rates: { sampled: rates('sampled'), greedy: rates('greedy') },
    };
    const rows: BenchRow[] = [];
    for (const mode of modes) {
      const [was, now] = figures.success[mode];
      rows.push({ case: label, metric: `${mode} success before`, value: was, unit: '%' });
      rows.push({ case: label, metric: `${mode} success after`, value: now, unit: '%', note });
      for (const [m, [from, to]] of Object.entries(figures.rates?.[mode] ?? {}))
        rows.push({ case: label, metric: `${mode} ${m} before→after`, value: to, unit: `from ${from.toFixed(3)}` });
    }
    rows.push({ case: label, metric: 'wall time', value: minutes, unit: 'min' });
    const line = `learning ${label}: ${modes.map((m) => `${m} ${figures.success[m][0].toFixed(1)}% → ${figures.success[m][1].toFixed(1)}%`).join(', ')} (${note})`;
    const series = (metric: string) => reports.map((r) => r.metrics[metric] ?? null);
    const course = {
      success: reports.map((r) => r.metrics.success),
      validation: series('validation_success'),
      validationStart: reports.find((r) => r.metrics.validation_start !== undefined)?.metrics.validation_start ?? null,
      validationSampled: series('validation_sampled'),
      validationGreedy: series('validation_greedy'),
      klRef: series('kl_ref'),
      rolloutSeconds: series('rollout_seconds'),
      rerollSeconds: series('reroll_seconds'),
      warnings: reports.map((r) => r.warnings),
    };
    return { case: c, rows, figures, minutes, line, course };
  } finally {
    await engine.dispose();
  }
}

async function writeCase(dir: string, r: CaseResult): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${caseName(r.case)}.json`), `${JSON.stringify(r, null, 2)}\n`);
}

/** Every case file in a shard folder, in table order (family, algorithm, seed). */
export async function readShards(dir: string): Promise<CaseResult[]> {
  const out: CaseResult[] = [];
  for (const f of (await readdir(dir)).filter((f) => f.endsWith('.json')).sort()) out.push(JSON.parse(await readFile(join(dir, f), 'utf8')) as CaseResult);
  const key = (c: LearningCase) => `${placeKey(c)}\u0000${ALGO_NAMES.indexOf(c.algo)}\u0000${c.variant ?? ''}\u0000${String(c.seed).padStart(6, '0')}`;
  return out.sort((a, b) => key(a.case).localeCompare(key(b.case)));
}

const SELF = fileURLToPath(import.meta.url);

/** One child process per case, `jobs` at a time, each pinned to its own core when taskset exists. */
async function runChildren(cases: LearningCase[], jobs: number, dir: string, log: (l: string) => void): Promise<void> {
  const pin = existsSync('/usr/bin/taskset');
  const cores = cpus().length;
  let next = 0;
  const failures: string[] = [];
  const worker = async (slot: number) => {
    while (next < cases.length) {
      const c = cases[next++];
      const out = join(dir, `${caseName(c)}.json`);
      const args = ['--import', 'tsx', SELF, `${algoKey(c)}:${placeKey(c)}:${c.seed}`, out];
      const [cmd, argv] = pin ? ['/usr/bin/taskset', ['-c', String(slot % cores), process.execPath, ...args]] : [process.execPath, args];
      const code = await new Promise<number>((resolve) => {
        const child = spawn(cmd, argv, { stdio: ['ignore', 'inherit', 'inherit'], env: process.env });
        child.on('exit', (c) => resolve(c ?? 1));
      });
      if (code !== 0) failures.push(`${caseName(c)} (exit ${code})`);
      else log(`learning: ${caseName(c)} done`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, cases.length) }, (_, i) => worker(i)));
  if (failures.length) throw new Error(`learning cases failed: ${failures.join(', ')}`);
}

export const learning: BenchEntry = {
  name: 'learning',
  description: 'held-out success before/after training, every algorithm at the same budget (slow; sizes from LEARNING_* variables; LEARNING_JOBS shards)',
  byDefault: false,
  async run(log) {
    const merge = process.env.LEARNING_MERGE;
    let results: CaseResult[];
    if (merge) {
      results = await readShards(merge);
    } else {
      const cases = casesFromEnv();
      const jobs = num('LEARNING_JOBS', 1);
      const dir = process.env.LEARNING_SHARD_DIR ?? (jobs > 1 ? await mkdtemp(join(tmpdir(), 'learning-')) : null);
      if (jobs > 1 && dir) {
        log(`learning: ${cases.length} cases in ${jobs} processes, case files in ${dir}`);
        await runChildren(cases, jobs, dir, log);
        results = await readShards(dir);
      } else {
        results = [];
        for (const c of cases) {
          const r = await runCase(c);
          log(r.line);
          if (dir) await writeCase(dir, r);
          results.push(r);
        }
      }
    }
    for (const r of results) log(r.line);
    const tables = join(projectRoot(), 'bench', 'results', 'learning.md');
    await writeFile(tables, `${learningTables(results.map((r) => r.figures))}\n`);
    log(`learning: tables in ${tables}`);
    return [...results.flatMap((r) => r.rows), ...summaryRows(results.map((r) => r.figures))];
  },
};

// `node --import tsx bench/entries/learning.ts algo:family[@lesson]:seed out.json`: one case, one file.
if (process.argv[1] === SELF) {
  const [spec, out] = process.argv.slice(2);
  const r = await runCase(parseCase(spec ?? ''));
  process.stdout.write(`${r.line}\n`);
  if (out) {
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, `${JSON.stringify(r, null, 2)}\n`);
  }
}
