// `turnwise eval`: plays N held-out tasks of one family with an agent and reports success rate,
// mean reward, mean turns, Pass@(1,T) and family figures, through the one evaluation path
// (src/rl/rollout/evaluate.ts: the batched rollout loop). Scripted agents come from the envs
// registry; `policy` is the forged model on the inference engine in-thread (onnxruntime-node, the
// shipped 4-bit placement), sampled at --temperature with episode seeds mixed from --sample-seed.
import { intOption, jsonOption, parseOptions, report, UsageError, type Command } from '../command.ts';
import { prepareOutFile } from '../output.ts';
import { DEFAULT_NOISE } from '../../rl/envs/agent.ts';
import type { JsonObject, Split } from '../../rl/envs/types.ts';
import { FAMILY_NAMES, type FamilyName } from '../../rl/envs/registry.ts';
import { familyAgent, PolicyBatchAgent, type BatchAgent } from '../../rl/rollout/agents.ts';
import { evaluate, type EvalSummary } from '../../rl/rollout/evaluate.ts';
import { forgedTaskOptions, openModels, type AgentKindName } from '../../rl/rollout/node.ts';
import type { PolicyEngine } from '../../rl/runtime/policyEngine.ts';
import { modelsDir } from '../paths.ts';
import { runId, writePlayed, type PlayedRun } from '../episodesOut.ts';
import { phrasingsOption } from '../phrasings.ts';
import { expertAgreement } from '../../rl/rollout/agreement.ts';
import { ensurePolicyTakes } from '../policyFit.ts';
import { lessonOption, lessonUsage } from '../lesson.ts';
import { taskSpecs } from '../../rl/rollout/rollout.ts';

/** Agent kinds `--agent` accepts, in the order "all" plays them. */
export const EVAL_AGENTS: readonly AgentKindName[] = ['expert', 'noisy', 'random', 'policy'];

function list(value: string | undefined, all: readonly string[], fallback: string, what: string): string[] {
  const items = value === undefined ? [fallback] : value === 'all' ? [...all] : value.split(',');
  for (const i of items) if (!all.includes(i)) throw new UsageError(`unknown ${what} "${i}" (known: ${all.join(', ')}, all)`);
  return items;
}

function line(s: EvalSummary): string {
  const extra = Object.entries(s.metrics)
    .map(([k, v]) => `${k} ${v.toFixed(3)}`)
    .join(', ');
  const T = s.passAt1.length;
  return `${s.family.padEnd(10)} ${s.agent.padEnd(11)} ${s.split} n=${s.episodes}: success ${(100 * s.successRate).toFixed(1)}%, mean reward ${s.meanReward.toFixed(3)}, mean turns ${s.meanTurns.toFixed(2)}, Pass@(1,${T}) ${s.passAt1[T - 1].toFixed(3)}${extra ? `; ${extra}` : ''}`;
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'evaluate an agent (scripted or the forged policy) on held-out tasks: success, reward, turns, Pass@(1,T)',
  usage: [
    'Usage: npx turnwise eval --family F --agent expert|noisy|random|policy [--split train|test] [--episodes N] [--seed S]',
    '                         [--noise P] [--options JSON | --lesson NAME] [--phrasings FILE.json] [--out FILE.turnwise.jsonl] [--json]',
    '',
    `F: ${FAMILY_NAMES.join(', ')} (comma list or "all"); --agent also takes a comma list or "all".`,
    'Defaults: --split test, --episodes 200, --seed 1, --noise 0.3 (noisy expert). Task i uses seed S + i.',
    '--options overrides family options, e.g. --options \'{"candidates":16,"maxTurns":6}\'; --forged plays each family at the options',
    '  the policy under --models was forged on (its config.json; guess at 4 candidates × 4 turns for the shipped one), every agent alike.',
    ...lessonUsage(),
    '--phrasings FILE.json: the simulated collaborator words its answers by sampling from the file (format: docs/envs.md),',
    '  e.g. test/fixtures/phrasings-heldout.json, phrasings the forge never trained on.',
    '--out writes the played episodes as Turnwise JSONL (header, a run record per family × agent, its episodes):',
    "  the input of `turnwise credit --in`, `turnwise export --in` and the lab's import.",
    '--agent policy: the forged policy (--models DIR, default public/models), --temperature T (default 1; 0 = greedy), --sample-seed S (default 1);',
    '  its metrics add expertAgreement, the share of its turns on which the scripted expert would have sent the same message.',
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, {
      family: { type: 'string' },
      agent: { type: 'string' },
      split: { type: 'string' },
      episodes: { type: 'string' },
      seed: { type: 'string' },
      noise: { type: 'string' },
      options: { type: 'string' },
      lesson: { type: 'string' },
      out: { type: 'string' },
      temperature: { type: 'string' },
      'sample-seed': { type: 'string' },
      models: { type: 'string' },
      phrasings: { type: 'string' },
      forged: { type: 'boolean' },
    });
    const temperature = values.temperature === undefined ? 1 : Number(values.temperature);
    if (!(temperature >= 0 && temperature <= 10)) throw new UsageError(`--temperature must be in [0, 10], got "${values.temperature}"`);
    const sampleSeed = intOption(values['sample-seed'], 'sample-seed', 1, 0, 2 ** 31);
    const lesson = lessonOption(values);
    if (values.family === undefined && !lesson) throw new UsageError('--family (or --lesson) is required');
    if (values.out) await prepareOutFile(values.out);
    const families = (lesson ? [lesson.family] : list(values.family, FAMILY_NAMES, '', 'family')) as FamilyName[];
    const agents = list(values.agent, EVAL_AGENTS, 'expert', 'agent');
    const split = (values.split ?? 'test') as Split;
    if (split !== 'train' && split !== 'test') throw new UsageError(`--split must be train or test, got "${values.split}"`);
    const episodes = intOption(values.episodes, 'episodes', 200, 1, 1_000_000);
    const seed = intOption(values.seed, 'seed', 1, 0, 2 ** 31);
    const noise = values.noise === undefined ? DEFAULT_NOISE : Number(values.noise);
    if (!(noise >= 0 && noise <= 1)) throw new UsageError(`--noise must be in [0, 1], got "${values.noise}"`);
    if (values.forged && (lesson || values.options !== undefined)) throw new UsageError('--forged sets the options itself: drop --options and --lesson');
    const given = lesson ? lesson.options : values.options === undefined ? undefined : (jsonOption(values.options, 'options', 'a JSON object') as JsonObject);
    const root = values.models ?? modelsDir();
    // a lesson plays the policy it starts from (the shipped one or the forge's student)
    const start = lesson?.start ?? 'policy';
    const optionsOf = async (family: FamilyName) => (values.forged ? await forgedTaskOptions(root, family) : given);
    const phrasings = await phrasingsOption(values.phrasings);
    const summaries: EvalSummary[] = [];
    const played: PlayedRun[] = [];
    const engine: PolicyEngine | undefined = agents.includes('policy')
      ? await openModels({ root, backend: 'node', models: ['policy'], precision: 'quant4', policyFrom: start })
      : undefined;
    try {
      // before any episode: every task the policy would play must fit its context (its metadata)
      if (engine) for (const family of families) await ensurePolicyTakes(engine, taskSpecs(family, split, episodes, seed, await optionsOf(family)));
      for (const family of families) {
        const options = await optionsOf(family);
        for (const kind of agents as AgentKindName[]) {
          const agent: BatchAgent =
            kind === 'policy' ? await PolicyBatchAgent.create(engine as PolicyEngine, { sampling: { temperature } }) : familyAgent(kind, family, noise);
          // scripted agents' episode seeds follow the task seeds; the policy's also --sample-seed
          const { summary, episodes: eps } = await evaluate(
            { family, split, episodes, seed, options, agentSeed: kind === 'policy' ? sampleSeed : seed },
            agent,
            phrasings ? { phrasings } : {},
          );
          // how far imitation got, turn by turn, where success alone is coarse (rollout/agreement.ts)
          if (kind === 'policy') summary.metrics.expertAgreement = expertAgreement(eps);
          summaries.push(summary);
          if (values.out) {
            const policy = kind === 'policy';
            played.push({
              id: policy
                ? runId('eval', family, kind, split, `s${seed}`, `T${temperature}`, `ss${sampleSeed}`)
                : runId('eval', family, kind, split, `s${seed}`),
              command: 'eval',
              agent: summary.agent,
              model: { policy: policy ? start : summary.agent, adapter: null, critic: null },
              settings: {
                family,
                split,
                episodes,
                seed,
                options: options ?? {},
                ...(lesson ? { lesson: lesson.name } : {}),
                ...(values.phrasings ? { phrasings: values.phrasings } : {}),
                ...(policy ? { temperature, sampleSeed } : kind === 'noisy' ? { noise } : {}),
              },
              seed,
              episodes: eps,
            });
          }
          if (!values.json) process.stdout.write(`${line(summary)}\n`);
        }
      }
    } finally {
      await engine?.dispose();
    }
    if (values.out) await writePlayed(values.out, played);
    if (values.json) report(true, summaries.length === 1 ? summaries[0] : summaries, () => '');
    return 0;
  },
};
