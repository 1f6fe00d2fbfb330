// `turnwise eval`: plays N held-out tasks of one family with a scripted agent and reports success
// rate, mean reward, mean turns, Pass@(1,T) and family figures. Agents come from `evalAgents`;
// a learned policy plugs in by adding an entry that returns an Agent (types.ts) per task seed.
import { writeFile } from 'node:fs/promises';
import { intOption, jsonOption, parseOptions, report, UsageError, type Command } from '../command.ts';
import { DEFAULT_NOISE } from '../../rl/envs/agent.ts';
import { evaluate, type EvalSummary } from '../../rl/envs/evaluate.ts';
import { createAgent } from '../../rl/envs/registry.ts';
import { FAMILY_NAMES, type Agent, type FamilyName, type JsonObject, type Split } from '../../rl/envs/types.ts';
import { loadPolicy } from '../../rl/forge/policyAgent.ts';
import { modelsDir } from '../paths.ts';

/** Agent kinds `--agent` accepts: each makes a per-task agent factory. */
export const evalAgents: Record<string, (family: FamilyName, opts: { noise: number; temperature?: number; sampleSeed?: number; models?: string }) => Promise<(seed: number) => Agent>> = {
  expert: async (family) => (seed) => createAgent('expert', family, { seed }),
  noisy: async (family, { noise }) => (seed) => createAgent('noisy', family, { seed, noise }),
  random: async (family) => (seed) => createAgent('random', family, { seed }),
  // the forge's policy (public/models or --models DIR), 4-bit, sampled at --temperature (0 = greedy)
  policy: async (_family, o) => (await loadPolicy(o.models ?? modelsDir(), { temperature: o.temperature ?? 1, seed: o.sampleSeed ?? 1 })).make,
};

function list(value: string | undefined, all: readonly string[], fallback: string, what: string): string[] {
  const items = value === undefined ? [fallback] : value === 'all' ? [...all] : value.split(',');
  for (const i of items) if (!all.includes(i)) throw new UsageError(`unknown ${what} "${i}" (known: ${all.join(', ')}, all)`);
  return items;
}

function line(s: EvalSummary): string {
  const extra = Object.entries(s.metrics).map(([k, v]) => `${k} ${v.toFixed(3)}`).join(', ');
  const T = s.passAt1.length;
  return `${s.family.padEnd(10)} ${s.agent.padEnd(11)} ${s.split} n=${s.episodes}: success ${(100 * s.successRate).toFixed(1)}%, mean reward ${s.meanReward.toFixed(3)}, mean turns ${s.meanTurns.toFixed(2)}, Pass@(1,${T}) ${s.passAt1[T - 1].toFixed(3)}${extra ? `; ${extra}` : ''}`;
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'evaluate a scripted agent on held-out tasks: success, reward, turns, Pass@(1,T)',
  usage: [
    'Usage: npx turnwise eval --family F --agent expert|noisy|random [--split train|test] [--episodes N] [--seed S]',
    '                         [--noise P] [--options JSON] [--out episodes.jsonl] [--json]',
    '',
    `F: ${FAMILY_NAMES.join(', ')} (comma list or "all"); --agent also takes a comma list or "all".`,
    'Defaults: --split test, --episodes 200, --seed 1, --noise 0.3 (noisy expert). Task i uses seed S + i.',
    '--options overrides family options, e.g. --options \'{"candidates":16,"maxTurns":6}\'.',
    '--agent policy: the forged policy (--models DIR, default public/models), --temperature T (default 1; 0 = greedy), --sample-seed S (default 1).',
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, {
      family: { type: 'string' }, agent: { type: 'string' }, split: { type: 'string' }, episodes: { type: 'string' },
      seed: { type: 'string' }, noise: { type: 'string' }, options: { type: 'string' }, out: { type: 'string' },
      temperature: { type: 'string' }, 'sample-seed': { type: 'string' }, models: { type: 'string' },
    });
    const temperature = values.temperature === undefined ? 1 : Number(values.temperature);
    if (!(temperature >= 0 && temperature <= 10)) throw new UsageError(`--temperature must be in [0, 10], got "${values.temperature}"`);
    const sampleSeed = intOption(values['sample-seed'], 'sample-seed', 1, 0, 2 ** 31);
    if (values.family === undefined) throw new UsageError('--family is required');
    const families = list(values.family, FAMILY_NAMES, '', 'family') as FamilyName[];
    const agents = list(values.agent, Object.keys(evalAgents), 'expert', 'agent');
    const split = (values.split ?? 'test') as Split;
    if (split !== 'train' && split !== 'test') throw new UsageError(`--split must be train or test, got "${values.split}"`);
    const episodes = intOption(values.episodes, 'episodes', 200, 1, 1_000_000);
    const seed = intOption(values.seed, 'seed', 1, 0, 2 ** 31);
    const noise = values.noise === undefined ? DEFAULT_NOISE : Number(values.noise);
    if (!(noise >= 0 && noise <= 1)) throw new UsageError(`--noise must be in [0, 1], got "${values.noise}"`);
    const options = values.options === undefined ? undefined : (jsonOption(values.options, 'options', 'a JSON object') as JsonObject);
    const summaries: EvalSummary[] = [];
    const lines: string[] = [];
    for (const family of families) {
      for (const kind of agents) {
        const make = await evalAgents[kind](family, { noise, temperature, sampleSeed, models: values.models });
        const { summary, episodes: eps } = await evaluate({ family, split, episodes, seed, options }, make);
        summaries.push(summary);
        if (values.out) lines.push(...eps.map((e) => JSON.stringify(e)));
        if (!values.json) process.stdout.write(`${line(summary)}\n`);
      }
    }
    if (values.out) await writeFile(values.out, `${lines.join('\n')}\n`);
    if (values.json) report(true, summaries.length === 1 ? summaries[0] : summaries, () => '');
    return 0;
  },
};
