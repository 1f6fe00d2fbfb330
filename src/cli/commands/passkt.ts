// `turnwise passkt`: the Pass@(K,T) grid (src/rl/rollout/passkt.ts; docs/design.md) of an agent over a
// held-out task set: n episodes per task in one batched rollout, each run to T_max, then the unbiased
// 1 − C(n−c(T), K)/C(n, K) for every K ≤ n and T ≤ T_max (src/rl/rollout/evaluate.ts evaluatePassKT).
import { UsageError, intOption, parseOptions, report, type Command } from '../command.ts';
import { modelsDir } from '../paths.ts';
import { runId, writePlayed } from '../episodesOut.ts';
import type { JsonObject, Split } from '../../rl/envs/types.ts';
import type { LessonStart } from '../../rl/envs/family.ts';
import { FAMILIES, FAMILY_NAMES, type FamilyName } from '../../rl/envs/registry.ts';
import { AGENT_KINDS, batchAgent, forgedTaskOptions, openModels, type AgentKindName } from '../../rl/rollout/node.ts';
import { evaluatePassKT } from '../../rl/rollout/evaluate.ts';
import type { PolicyEngine } from '../../rl/runtime/policyEngine.ts';
import type { Phrasings } from '../../rl/envs/phrasings.ts';
import { phrasingsOption } from '../phrasings.ts';
import { ensurePolicyTakes } from '../policyFit.ts';
import { lessonOption, lessonUsage } from '../lesson.ts';
import { taskSpecs } from '../../rl/rollout/rollout.ts';

/** Options shared by the rollout commands. */
export function rolloutOptions() {
  return {
    family: { type: 'string' },
    agent: { type: 'string' },
    split: { type: 'string' },
    seed: { type: 'string' },
    noise: { type: 'string' },
    temperature: { type: 'string' },
    models: { type: 'string' },
    backend: { type: 'string' },
    options: { type: 'string' },
    lesson: { type: 'string' },
    phrasings: { type: 'string' },
  } as const;
}

/** The validated common options. */
export interface CommonRolloutArgs {
  family: FamilyName;
  agent: AgentKindName;
  split: Split;
  seed: number;
  noise: number;
  temperature: number;
  models: string;
  backend: 'node' | 'wasm';
  /** Family options of the tasks: --options or --lesson's, else those the policy was forged on (its config.json turnwise.tasks). */
  options: JsonObject | undefined;
  /** The --lesson name, for reports. */
  lesson: string | undefined;
  /** The manifest model the policy agent plays: the lesson's start, else the shipped policy. */
  start: LessonStart;
  /** --phrasings FILE: how the simulated collaborator words its answers (undefined: canonical). */
  phrasings: Phrasings | undefined;
  /** The --phrasings path, for reports. */
  phrasingsFile: string | undefined;
}

/** What every rollout command's JSON summary opens with: the task set and who played it. */
export function rolloutHeader(a: CommonRolloutArgs, agent: string) {
  return {
    family: a.family,
    agent,
    split: a.split,
    seed: a.seed,
    options: a.options ?? {},
    ...(a.lesson ? { lesson: a.lesson } : {}),
    ...(a.start !== 'policy' ? { start: a.start } : {}),
    ...(a.phrasingsFile ? { phrasings: a.phrasingsFile } : {}),
  };
}

/** Validates the rollout commands' shared flags. */
export async function commonArgs(
  values: Record<string, string | boolean | undefined | (string | boolean)[]>,
  defaultAgent: AgentKindName,
): Promise<CommonRolloutArgs> {
  const str = (k: string): string | undefined => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const lesson = lessonOption({ lesson: str('lesson'), family: str('family'), options: str('options') });
  const family = lesson?.family ?? str('family');
  if (family === undefined) throw new UsageError('--family (or --lesson) is required');
  if (!(FAMILY_NAMES as readonly string[]).includes(family)) throw new UsageError(`unknown family "${family}" (known: ${FAMILY_NAMES.join(', ')})`);
  const agent = str('agent') ?? defaultAgent;
  if (!(AGENT_KINDS as readonly string[]).includes(agent)) throw new UsageError(`unknown agent "${agent}" (known: ${AGENT_KINDS.join(', ')})`);
  const split = str('split') ?? 'test';
  if (split !== 'train' && split !== 'test') throw new UsageError(`--split must be train or test, got "${split}"`);
  const noise = str('noise') === undefined ? 0.3 : Number(str('noise'));
  if (!(noise >= 0 && noise <= 1)) throw new UsageError(`--noise must be in [0, 1], got "${str('noise')}"`);
  const temperature = str('temperature') === undefined ? 1 : Number(str('temperature'));
  if (!(temperature >= 0 && temperature <= 10)) throw new UsageError(`--temperature must be in [0, 10], got "${str('temperature')}"`);
  const backend = str('backend') ?? 'node';
  if (backend !== 'node' && backend !== 'wasm') throw new UsageError(`--backend must be node or wasm, got "${backend}"`);
  const models = str('models') ?? modelsDir();
  const phrasings = await phrasingsOption(str('phrasings'));
  let options: JsonObject | undefined;
  if (lesson) options = lesson.options;
  else if (str('options') !== undefined) {
    try {
      options = JSON.parse(str('options') as string) as JsonObject;
    } catch {
      throw new UsageError('--options must be a JSON object');
    }
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new UsageError('--options must be a JSON object');
  } else options = await forgedTaskOptions(models, family as FamilyName);
  const seed = intOption(str('seed'), 'seed', 1, 0, 2 ** 31);
  return {
    family: family as FamilyName,
    agent: agent as AgentKindName,
    split,
    seed,
    noise,
    temperature,
    models,
    backend,
    options,
    lesson: lesson?.name,
    start: lesson?.start ?? 'policy',
    phrasings,
    phrasingsFile: str('phrasings'),
  };
}

/** The tasks' turn limit T: options.maxTurns, else the family's default. */
export function familyTurns(family: FamilyName, options?: JsonObject): number {
  const t = options?.maxTurns ?? FAMILIES[family].defaults.maxTurns;
  return typeof t === 'number' ? t : 10;
}

/** T columns shown in text output: all up to 10, else a spread. */
function shownT(tMax: number): number[] {
  if (tMax <= 10) return Array.from({ length: tMax }, (_, i) => i + 1);
  return [...new Set([1, 2, 3, 5, 10, 15, 20, 30, 40, 50, tMax].filter((t) => t <= tMax))];
}

function shownK(n: number): number[] {
  return [...new Set([1, 2, 4, 8, 16, 32, 64, n].filter((k) => k <= n))];
}

export const passkt: Command = {
  name: 'passkt',
  summary: 'Pass@(K,T) grid over held-out tasks (n episodes per task, every K ≤ n, T ≤ T_max)',
  usage: [
    'Usage: npx turnwise passkt --family F [--n 16] [--tasks 50] [--agent policy|expert|noisy|random] [--t-max T]',
    '                           [--options JSON | --lesson NAME] [--split test] [--seed S] [--noise P] [--temperature T] [--models DIR]',
    '                           [--backend node|wasm] [--phrasings FILE.json] [--out FILE.turnwise.jsonl] [--json]',
    '',
    'Plays n episodes of each task (environment stream k and agent seed per episode) in one batched',
    "rollout, each up to T_max turns (default: the family's T), and prints the unbiased Pass@(K,T).",
    'Default agent: policy (the shipped model in --models, default public/models; sampled at --temperature 1).',
    'Default --options: the family options the shipped policy was forged on (guess: {"candidates":4,"maxTurns":4});',
    "--options '{}' plays the family's own defaults.",
    ...lessonUsage(),
    '--phrasings FILE.json: the simulated collaborator words its answers by sampling from the file (format: docs/envs.md).',
    '--out writes the n × tasks episodes as Turnwise JSONL (as `turnwise eval --out`; the input of credit and export).',
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, {
      ...rolloutOptions(),
      n: { type: 'string' },
      tasks: { type: 'string' },
      't-max': { type: 'string' },
      out: { type: 'string' },
    });
    const a = await commonArgs(values, 'policy');
    const n = intOption(values.n, 'n', 16, 1, 1024);
    const tasks = intOption(values.tasks, 'tasks', 50, 1, 100_000);
    const tMax = intOption(values['t-max'], 't-max', familyTurns(a.family, a.options), 1, familyTurns(a.family, a.options));
    const engine: PolicyEngine | undefined =
      a.agent === 'policy' ? await openModels({ root: a.models, backend: a.backend, models: ['policy'], policyFrom: a.start }) : undefined;
    try {
      if (engine) await ensurePolicyTakes(engine, taskSpecs(a.family, a.split, tasks, a.seed, a.options));
      const agent = await batchAgent(a.agent, a.family, { engine, noise: a.noise, temperature: a.temperature });
      const start = performance.now();
      const r = await evaluatePassKT(
        { family: a.family, split: a.split, tasks, n, seed: a.seed, tMax, ...(a.options ? { options: a.options } : {}) },
        agent,
        a.phrasings ? { phrasings: a.phrasings } : {},
      );
      const seconds = (performance.now() - start) / 1000;
      const grid = r.grid;
      if (values.out) {
        const policy = a.agent === 'policy';
        await writePlayed(values.out, [
          {
            id: runId('passkt', a.family, a.agent, a.split, `s${a.seed}`, `n${n}`, `t${tMax}`, ...(policy ? [`T${a.temperature}`] : [])),
            command: 'passkt',
            agent: agent.name,
            model: { policy: policy ? a.start : agent.name, adapter: null, critic: null },
            settings: {
              family: a.family,
              split: a.split,
              tasks,
              n,
              tMax,
              seed: a.seed,
              options: a.options ?? {},
              ...(a.phrasingsFile ? { phrasings: a.phrasingsFile } : {}),
              ...(policy ? { temperature: a.temperature } : a.agent === 'noisy' ? { noise: a.noise } : {}),
            },
            seed: a.seed,
            episodes: r.episodes,
          },
        ]);
      }
      const summary = {
        ...rolloutHeader(a, agent.name),
        tasks,
        n,
        tMax,
        episodes: r.episodes.length,
        successRate: r.successRate,
        meanTurns: r.meanTurns,
        seconds,
        episodesPerSecond: r.episodes.length / seconds,
        backend: engine ? (await engine.backendInfo()).kind : 'scripted',
        /** grid[K−1][T−1] = Pass@(K,T). */
        grid,
      };
      report(!!values.json, summary, () => {
        const ts = shownT(tMax);
        const head = `K \\ T ${ts.map((t) => String(t).padStart(6)).join('')}`;
        const rows = shownK(n).map((k) => `${String(k).padStart(5)} ${ts.map((t) => grid[k - 1][t - 1].toFixed(3).padStart(6)).join('')}`);
        return [
          `Pass@(K,T) ${a.family} ${a.split}, ${agent.name}: ${tasks} tasks × n=${n}, T ≤ ${tMax}; success ${(100 * summary.successRate).toFixed(1)}%, mean turns ${summary.meanTurns.toFixed(2)}; ${summary.episodesPerSecond.toFixed(1)} episodes/s (${summary.backend})`,
          head,
          ...rows,
        ].join('\n');
      });
      return 0;
    } finally {
      await engine?.dispose();
    }
  },
};
