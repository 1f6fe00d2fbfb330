// `turnwise credit-report --within-state` (issue #46): the test SWEET-RL's own use implies. S states
// from the policy's episodes (one per held-out task), N candidate turns sampled by the policy at each,
// each candidate's Q̂ from M re-rolls that keep it (src/rl/rollout/withinState.ts), and every estimator
// that can rank same-state candidates scored by mean within-state Spearman and pairwise accuracy, with
// bootstrap intervals over states, beside the truth's own reliability at M (src/rl/credit/withinState.ts).
import { UsageError, intOption, report } from '../command.ts';
import type { Interval } from '../../rl/credit/bootstrap.ts';
import { halfSplitReliability, withinStateReport, type HalfSplitReliability, type WithinStateReport } from '../../rl/credit/withinState.ts';
import { batchAgent, openModels } from '../../rl/rollout/node.ts';
import { rollout, taskSpecs } from '../../rl/rollout/rollout.ts';
import { candidateScores, candidateTruths, pickStates, sampleCandidates, type CandidateScores } from '../../rl/rollout/withinState.ts';
import { ensurePolicyTakes } from '../policyFit.ts';
import { familyTurns, rolloutHeader, type CommonRolloutArgs } from './passkt.ts';

/** The flags of the within-state mode (beside the rollout commands' common ones). */
export interface WithinStateFlags {
  states?: string;
  candidates?: string;
  m?: string;
  resamples?: string;
  json?: boolean;
}

export const WITHIN_STATE_USAGE = [
  '--within-state [--states 32] [--candidates 8] [--m 16]: the within-state test (issue #46). One state per held-out',
  'episode of the policy (its dialogue up to a uniformly drawn agent turn), N candidate turns sampled by the policy',
  "there, each candidate's Q from M re-rolls that keep it; per estimator that can rank same-state candidates",
  '(sweet, value-lookahead = r + V after the candidate, archer, policy-logprob, info-gain on guess) the mean',
  "within-state Spearman and pairwise accuracy with 95% bootstrap intervals over states, and the truth's",
  'reliability at M (split-half, Spearman–Brown) with its ceiling √r. Progress goes to stderr.',
];

function fmt(i: Interval): string {
  const f = (x: number | null) => (x === null ? '  n/a' : x.toFixed(2).padStart(5));
  return `${f(i.estimate)} [${f(i.low)}, ${f(i.high)}]`;
}

/** The within-state table as text. */
export function withinStateText(r: WithinStateReport, rel: HalfSplitReliability, unavailable: CandidateScores['unavailable']): string {
  const lines = [`${'estimator'.padEnd(16)} ${'within-state Spearman'.padEnd(22)} ${'pairwise accuracy'.padEnd(22)} pairs`];
  for (const row of r.rows) lines.push(`${row.estimator.padEnd(16)} ${fmt(row.spearman).padEnd(22)} ${fmt(row.pairwise).padEnd(22)} ${row.pairs}`);
  for (const u of unavailable) lines.push(`${u.estimator.padEnd(16)} — ${u.reason}`);
  lines.push(
    `states ranked ${r.states - r.skipped}/${r.states} (${r.skipped} skipped: all candidates' Q̂ tie), ${r.candidates} candidates`,
    `the truth itself: halves (M/2 re-rolls each) agree by within-state Spearman ${fmt(rel.half)}; at M (Spearman–Brown) r = ${fmt(rel.full)}, ceiling √r = ${fmt(rel.ceiling)}`,
  );
  return lines.join('\n');
}

/** Runs the within-state report; `a` holds the validated common rollout flags. */
export async function runWithinState(a: CommonRolloutArgs, values: WithinStateFlags): Promise<number> {
  if (a.agent !== 'policy') throw new UsageError('--within-state samples candidates from the policy: drop --agent (or use --agent policy)');
  const states = intOption(values.states, 'states', 32, 2, 100_000);
  const n = intOption(values.candidates, 'candidates', 8, 2, 1024);
  const m = intOption(values.m, 'm', 16, 2, 1024);
  const resamples = intOption(values.resamples, 'resamples', 1000, 10, 100_000);
  const turnLimit = familyTurns(a.family, a.options);
  const engine = await openModels({ root: a.models, backend: a.backend, models: ['policy', 'critic'], policyFrom: a.start });
  const say = (line: string) => process.stderr.write(`[within-state] ${line}\n`);
  try {
    const start = performance.now();
    const tasks = taskSpecs(a.family, a.split, states, a.seed, a.options);
    await ensurePolicyTakes(engine, tasks);
    const agent = await batchAgent('policy', a.family, { engine, temperature: a.temperature });
    const phrased = a.phrasings ? { phrasings: a.phrasings } : {};
    say(`playing ${states} episodes of ${a.family}`);
    const played = (await rollout({ tasks, k: 1, seed: a.seed, turnLimit }, agent, phrased)).episodes;
    const picks = pickStates(played, a.seed);
    say(`${picks.length} states; sampling ${n} candidates at each and re-rolling each ${m} times (${picks.length * n * m} episodes)`);
    const sampled = await sampleCandidates(picks, agent, { candidates: n, m, seed: a.seed, turnLimit, ...phrased, onProgress: say });
    say('scoring the candidates with the critic');
    const adapter = (await engine.adapters('critic')).active;
    const { scores, unavailable } = await candidateScores(sampled, { critic: engine, criticAdapter: adapter });
    const { truth, halfA, halfB } = candidateTruths(sampled);
    const bootstrap = { resamples, seed: a.seed };
    const table = withinStateReport(
      truth.map((t, k) => ({ truth: t, scores: scores[k] })),
      undefined,
      bootstrap,
    );
    const reliability = halfSplitReliability(truth, halfA, halfB, bootstrap);
    const summary = {
      ...rolloutHeader(a, agent.name),
      mode: 'within-state',
      states: picks.length,
      candidates: n,
      m,
      turnLimit,
      criticAdapter: adapter,
      statesByTurn: Array.from({ length: turnLimit }, (_, t) => picks.filter((p) => p.t === t).length),
      successRate: played.filter((e) => e.success).length / played.length,
      seconds: (performance.now() - start) / 1000,
      report: table,
      reliability,
      unavailable,
    };
    report(!!values.json, summary, () =>
      [
        `within-state credit fidelity, ${a.family} ${a.split} ${JSON.stringify(a.options ?? {})}, ${agent.name}: S=${picks.length} states (at turns ${summary.statesByTurn.join('/')}), N=${n} candidates, M=${m} re-rolls each; episodes' success ${(100 * summary.successRate).toFixed(1)}%; ${summary.seconds.toFixed(1)} s`,
        `(estimate [95% bootstrap interval over states, ${resamples} resamples])`,
        withinStateText(table, reliability, unavailable),
      ].join('\n'),
    );
    return 0;
  } finally {
    await engine.dispose();
  }
}
