// `turnwise credit-report`: the fidelity table of issue #6 point 4. Held-out episodes of an agent
// (default: the shipped policy) are rolled out, every estimator's per-turn credit is computed (the
// critic-based ones from the shipped critic and reference policy), and each is compared with the
// counterfactual ground truth (M seeded re-rolls per turn and kind, src/rl/rollout/counterfactual.ts)
// and, for `guess`, with each question's information gain: Spearman and Kendall, pooled over turns
// and within episodes, with bootstrap intervals over episodes (src/rl/credit/fidelity.ts).
import { intOption, parseOptions, report, UsageError, type Command } from '../command.ts';
import type { BatchAgent } from '../../rl/rollout/agents.ts';
import type { PhrasingSetting } from '../../rl/envs/phrasings.ts';
import { fidelityReport, truthReliability, type FidelityEpisode, type FidelityReport, type TruthReliability } from '../../rl/credit/fidelity.ts';
import type { Interval } from '../../rl/credit/bootstrap.ts';
import type { CreditResult } from '../../rl/credit/types.ts';
import { criticInputs } from '../../rl/rollout/criticInputs.ts';
import { counterfactualTruth, informationGainOf } from '../../rl/rollout/counterfactual.ts';
import { FAMILIES } from '../../rl/envs/registry.ts';
import { batchAgent, openModels } from '../../rl/rollout/node.ts';
import { rollout, taskSpecs, type RolloutEpisode } from '../../rl/rollout/rollout.ts';
import { CRITIC_ESTIMATORS, fromEpisode, estimatorNeedsCritic, REWARD_ESTIMATORS, storedCredit } from '../../rl/rollout/stored.ts';
import type { PolicyEngine } from '../../rl/runtime/policyEngine.ts';
import { parseEstimators } from './credit.ts';
import { commonArgs, familyTurns, rolloutHeader, rolloutOptions } from './passkt.ts';
import { ensurePolicyTakes } from '../policyFit.ts';
import { runWithinState, WITHIN_STATE_USAGE } from './withinState.ts';
import { SWEET_CENTRE_DEFAULT } from '../../rl/credit/centredSweet.ts';
import { centreEpisodes, turnStates } from '../../rl/rollout/centredSweet.ts';
import { lessonUsage } from '../lesson.ts';

function fmt(i: Interval): string {
  const f = (x: number | null) => (x === null ? '  n/a' : x.toFixed(2).padStart(5));
  return `${f(i.estimate)} [${f(i.low)}, ${f(i.high)}]`;
}

/** The fidelity table as text; with the truth's ceiling √r (--reliability), beside every estimator's pooled Spearman. */
export function fidelityText(title: string, r: FidelityReport, ceiling?: Interval): string {
  const beside = ceiling ? ` ${'truth ceiling √r'.padEnd(22)}` : '';
  const lines = [
    title,
    `${'estimator'.padEnd(13)} ${'pooled Spearman'.padEnd(22)}${beside} ${'pooled Kendall'.padEnd(22)} ${'within-episode Spearman'.padEnd(24)} episodes defined`,
  ];
  for (const row of r.rows) {
    lines.push(
      `${row.estimator.padEnd(13)} ${fmt(row.pooled.spearman).padEnd(22)}${ceiling ? ` ${fmt(ceiling).padEnd(22)}` : ''} ${fmt(row.pooled.kendall).padEnd(22)} ${fmt(row.withinEpisode.spearman).padEnd(24)} ${row.withinEpisode.episodesDefined}/${row.episodes}`,
    );
  }
  return lines.join('\n');
}

/** The truth's reliability as text. */
function reliabilityText(r: TruthReliability, m: number): string {
  return [
    `the truth itself: a second draw (M=${m} fresh re-rolls per turn and kind) against the first, pooled Spearman ${fmt(r.secondDraw.pooled.spearman)}, within-episode ${fmt(r.secondDraw.withinEpisode.spearman)};`,
    `ceiling √r = ${fmt(r.ceiling)}: no estimator's pooled Spearman against one draw can be expected above it`,
  ].join('\n');
}

/** The re-roll seed of the reliability's second draw: any seed other than the first's gives independent re-rolls. */
function secondDrawSeed(seed: number): number {
  return seed + 1_000_003;
}

/**
 * SWEET-RL credit centred at each turn's state (rollout/centredSweet.ts): every turn's log-ratio minus its
 * mean over K candidate turns the policy samples at that state ([episode][T]). A critic without an
 * adapter gives 0 everywhere, centred or not: nothing is sampled.
 */
async function centredSweet(
  played: readonly RolloutEpisode[],
  sweet: readonly Float32Array[],
  agent: BatchAgent,
  critic: PolicyEngine,
  k: number,
  seed: number,
  run: { phrasings?: PhrasingSetting },
): Promise<Float32Array[]> {
  if ((await critic.adapters('critic')).active === null) return sweet.map((s) => Float32Array.from(s));
  return centreEpisodes(
    played.map((e) => turnStates(e.task, e.turns)),
    sweet,
    1,
    { agent, critic },
    { k, seed, ...run },
  );
}

export const creditReport: Command = {
  name: 'credit-report',
  summary: 'fidelity of every credit estimator vs counterfactual ground truth (and information gain for guess)',
  usage: [
    `Usage: npx turnwise credit-report --family F [--episodes 40] [--k 4] [--m 4] [--estimators ${[...REWARD_ESTIMATORS, ...CRITIC_ESTIMATORS].join(',')}|all]`,
    '                                  [--agent policy|expert|noisy|random] [--turn-limit T] [--resamples 1000]',
    '                                  [--options JSON | --lesson NAME] [--split test] [--seed S] [--noise P] [--temperature T] [--models DIR]',
    '                                  [--backend node|wasm]',
    '                                  [--phrasings FILE.json] [--reliability] [--sweet-centre K] [--json]',
    '       npx turnwise credit-report --family F --within-state [--states 32] [--candidates 8] [--m 16] [--options JSON | --lesson NAME] [--seed S]',
    '                                  [--models DIR] [--json]',
    '',
    "Rolls out held-out tasks (K episodes each, for GRPO's groups) with the agent (default: the shipped",
    "policy), computes each estimator's per-turn credit (critic-based ones from the shipped critic), and",
    're-rolls every turn M times per kind (the taken turn kept / a fresh turn sampled) for the',
    'counterfactual ground truth. Prints Spearman and Kendall (pooled over turns, and within episodes)',
    "with 95% bootstrap intervals over episodes; for guess also against each question's information gain.",
    "Default --options: the family options the shipped policy was forged on; --options '{}' for the family defaults.",
    ...lessonUsage(),
    '--phrasings FILE.json: the simulated collaborator (in the rollouts and the re-rolls) words its answers by sampling from the file (docs/envs.md).',
    '--reliability: re-rolls every turn a second time with fresh seeds and reports how well the two draws of the',
    'counterfactual truth agree (pooled Spearman r) and √r, the most any estimator can be expected to reach against',
    'one draw (correction for attenuation). Doubles the re-rolls.',
    `--sweet-centre K (the lab's default K is ${SWEET_CENTRE_DEFAULT}): adds the row sweet-centred, SWEET-RL's`,
    'log-ratio minus its mean over K candidate turns the policy samples at the same state (issue #46), which removes',
    'the function of the state that Bradley–Terry training leaves undetermined. Needs sweet in --estimators.',
    ...WITHIN_STATE_USAGE,
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, {
      ...rolloutOptions(),
      episodes: { type: 'string' },
      k: { type: 'string' },
      m: { type: 'string' },
      estimators: { type: 'string' },
      resamples: { type: 'string' },
      'turn-limit': { type: 'string' },
      reliability: { type: 'boolean' },
      'within-state': { type: 'boolean' },
      states: { type: 'string' },
      candidates: { type: 'string' },
      'sweet-centre': { type: 'string' },
    });
    const a = await commonArgs(values, 'policy');
    const pooledOnly = (['episodes', 'k', 'estimators', 'turn-limit', 'reliability', 'sweet-centre'] as const).filter((f) => values[f] !== undefined);
    const withinOnly = (['states', 'candidates'] as const).filter((f) => values[f] !== undefined);
    if (values['within-state'] && pooledOnly.length) throw new UsageError(`--within-state does not take --${pooledOnly.join(', --')}`);
    if (!values['within-state'] && withinOnly.length)
      throw new UsageError(`--${withinOnly.join(', --')} belong${withinOnly.length === 1 ? 's' : ''} to --within-state`);
    if (values['within-state']) return runWithinState(a, values);
    const count = intOption(values.episodes, 'episodes', 40, 2, 100_000);
    const k = intOption(values.k, 'k', 4, 1, 1024);
    const m = intOption(values.m, 'm', 4, 1, 1024);
    const resamples = intOption(values.resamples, 'resamples', 1000, 10, 100_000);
    const turnLimit = intOption(values['turn-limit'], 'turn-limit', familyTurns(a.family, a.options), 1, familyTurns(a.family, a.options));
    const estimators = parseEstimators(values.estimators, [...REWARD_ESTIMATORS, ...CRITIC_ESTIMATORS]);
    const centre = values['sweet-centre'] === undefined ? undefined : intOption(values['sweet-centre'], 'sweet-centre', SWEET_CENTRE_DEFAULT, 1, 1024);
    if (centre !== undefined && !estimators.includes('sweet')) throw new UsageError("--sweet-centre centres SWEET-RL's credit: add sweet to --estimators");
    if (centre !== undefined && a.agent !== 'policy')
      throw new UsageError('--sweet-centre samples its candidates from the policy: drop --agent (or use --agent policy)');
    const rows: string[] = centre === undefined ? estimators : [...estimators, 'sweet-centred'];
    const models: ('policy' | 'critic')[] = [];
    if (a.agent === 'policy') models.push('policy');
    if (estimators.some(estimatorNeedsCritic)) models.push('critic');
    const engine: PolicyEngine | undefined = models.length ? await openModels({ root: a.models, backend: a.backend, models, policyFrom: a.start }) : undefined;
    try {
      const start = performance.now();
      const tasks = taskSpecs(a.family, a.split, Math.ceil(count / k), a.seed, a.options);
      if (a.agent === 'policy') await ensurePolicyTakes(engine as PolicyEngine, tasks);
      const agent = await batchAgent(a.agent, a.family, { engine, noise: a.noise, temperature: a.temperature });
      const phrased = a.phrasings ? { phrasings: a.phrasings } : {};
      const played = (await rollout({ tasks, k, seed: a.seed, turnLimit }, agent, phrased)).episodes.slice(0, count);
      const stored = played.map((e, i) => ({ ...fromEpisode(e, i + 1), critic: { task: e.task, turns: e.turns, tokens: e.turns.map((t) => t.tokens) } }));
      const critic = estimators.some(estimatorNeedsCritic)
        ? await criticInputs(
            engine as PolicyEngine,
            stored.map((s) => s.critic),
          )
        : undefined;
      const credits = storedCredit(stored, estimators, {}, critic);
      const rerollAgent = await batchAgent(a.agent, a.family, { engine, noise: a.noise, temperature: a.temperature });
      const truth = await counterfactualTruth(played, rerollAgent, { m, seed: a.seed, turnLimit, ...phrased });
      const centred =
        centre === undefined
          ? undefined
          : await centredSweet(
              played,
              (credits.get('sweet') as CreditResult[]).map((c) => c.perTurn),
              rerollAgent,
              engine as PolicyEngine,
              centre,
              a.seed,
              phrased,
            );
      const perEpisode = (i: number): Record<string, Float32Array> => ({
        ...Object.fromEntries(estimators.map((n) => [n, (credits.get(n) as CreditResult[])[i].perTurn])),
        ...(centred ? { 'sweet-centred': centred[i] } : {}),
      });
      const cfEpisodes: FidelityEpisode[] = played.map((_, i) => ({ truth: truth[i].perTurn, credits: perEpisode(i) }));
      const bootstrap = { resamples, seed: a.seed };
      const reports: { truth: string; report: FidelityReport; reliability?: TruthReliability }[] = [
        { truth: 'counterfactual', report: fidelityReport(cfEpisodes, rows, bootstrap) },
      ];
      if (values.reliability) {
        // the same episodes, every re-roll seeded afresh (the episode's own return is a taken sample of both draws)
        const second = await counterfactualTruth(played, rerollAgent, { m, seed: secondDrawSeed(a.seed), turnLimit, ...phrased });
        reports[0].reliability = truthReliability(
          truth.map((t) => t.perTurn),
          second.map((t) => t.perTurn),
          bootstrap,
        );
      }
      // the information-gain ground truth, where the family's steps report the gain (its spec, envs/family.ts)
      if (FAMILIES[a.family].informationGain) {
        const ig: FidelityEpisode[] = played.map((e, i) => ({ truth: informationGainOf(e.turns), credits: perEpisode(i) }));
        reports.push({ truth: 'information-gain', report: fidelityReport(ig, rows, bootstrap) });
      }
      const summary = {
        ...rolloutHeader(a, agent.name),
        episodes: played.length,
        turns: played.reduce((s, e) => s + e.turns.length, 0),
        k,
        m,
        ...(centre === undefined ? {} : { sweetCentre: centre }),
        turnLimit,
        successRate: played.filter((e) => e.success).length / played.length,
        seconds: (performance.now() - start) / 1000,
        reports,
      };
      report(!!values.json, summary, () =>
        [
          `credit fidelity, ${a.family} ${a.split}, ${agent.name}: ${summary.episodes} episodes (${summary.turns} turns, success ${(100 * summary.successRate).toFixed(1)}%), K=${k}, M=${m}; ${summary.seconds.toFixed(1)} s`,
          ...reports.map(
            (r) =>
              fidelityText(`vs ${r.truth} (estimate [95% bootstrap interval over episodes, ${resamples} resamples]):`, r.report, r.reliability?.ceiling) +
              (r.reliability ? `\n${reliabilityText(r.reliability, m)}` : ''),
          ),
        ].join('\n\n'),
      );
      return 0;
    } finally {
      await engine?.dispose();
    }
  },
};
