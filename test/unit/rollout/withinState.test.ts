// Within-state candidates on the shipped models (rollout/withinState.ts), tiny S/N/M: N candidates
// per state replayed from the state's prefix, M re-rolls each that keep the candidate, Q̂ = their mean,
// and the scores of every estimator that can rank them (policy log-prob and info gain on guess; SWEET-RL
// marked unavailable while the shipped critic has no adapter). Then `credit-report --within-state --json`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelsDir } from '../../../src/cli/paths.ts';
import { creditReport } from '../../../src/cli/commands/credit-report.ts';
import type { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { batchAgent, forgedTaskOptions, openModels } from '../../../src/rl/rollout/node.ts';
import { rollout, taskSpecs } from '../../../src/rl/rollout/rollout.ts';
import { candidateScores, candidateTruths, pickStates, sampleCandidates, type SampledState } from '../../../src/rl/rollout/withinState.ts';
import type { WithinStateReport, HalfSplitReliability } from '../../../src/rl/credit/withinState.ts';
import { capture } from '../capture.ts';

const shipped = existsSync(join(modelsDir(), 'manifest.json'));

describe.runIf(shipped)('within-state candidates on the shipped models (guess)', () => {
  let engine: PolicyEngine;
  let states: SampledState[];
  const n = 3;
  const m = 2;
  beforeAll(async () => {
    engine = await openModels({ root: modelsDir(), backend: 'node', models: ['policy', 'critic'] });
    const options = await forgedTaskOptions(modelsDir(), 'guess');
    const agent = await batchAgent('policy', 'guess', { engine });
    const played = (await rollout({ tasks: taskSpecs('guess', 'test', 3, 7, options), k: 1, seed: 7 }, agent)).episodes;
    states = await sampleCandidates(pickStates(played, 7), agent, { candidates: n, m, seed: 7 });
  }, 60_000);
  afterAll(async () => engine?.dispose());

  it('samples N candidates at each state, replays its prefix, and keeps M re-roll returns per candidate', () => {
    expect(states).toHaveLength(3);
    for (const s of states) {
      expect(s.prefix).toHaveLength(s.t);
      expect(s.candidates).toHaveLength(n);
      for (const c of s.candidates) {
        expect(c.turn.tokens?.length).toBeGreaterThan(0);
        expect(c.returns).toHaveLength(m);
        expect(c.q).toBeCloseTo(c.returns.reduce((a, b) => a + b, 0) / m, 12);
      }
    }
    const { truth, halfA, halfB } = candidateTruths(states);
    expect(truth.map((t) => t.length)).toEqual([n, n, n]);
    // M = 2: each half is one re-roll
    expect(halfA[0][0]).toBe(states[0].candidates[0].returns[0]);
    expect(halfB[0][0]).toBe(states[0].candidates[0].returns[1]);
  });

  it('scores policy log-prob, the value look-ahead and info gain; SWEET-RL without an adapter and ArCHer are marked unavailable', async () => {
    const adapter = (await engine.adapters('critic')).active;
    const { scores, unavailable } = await candidateScores(states, { critic: engine, criticAdapter: adapter });
    for (const s of scores) {
      expect(Object.keys(s).sort()).toEqual(
        adapter === null ? ['info-gain', 'policy-logprob', 'value-lookahead'] : ['info-gain', 'policy-logprob', 'sweet', 'value-lookahead'],
      );
      for (const v of Object.values(s)) {
        expect(v).toHaveLength(n);
        for (const x of v) expect(Number.isFinite(x)).toBe(true);
      }
      for (const x of s['policy-logprob']) expect(x).toBeLessThanOrEqual(0);
      for (const x of s['info-gain']) expect(x).toBeGreaterThanOrEqual(0);
    }
    expect(unavailable.map((u) => u.estimator)).toEqual(adapter === null ? ['sweet', 'archer'] : ['archer']);
  });

  it('`credit-report --within-state --json` reports every estimator row, the skipped states and the truth’s reliability', { timeout: 60_000 }, async () => {
    const { code, out } = await capture(() =>
      creditReport.run(['--family', 'guess', '--within-state', '--states', '3', '--candidates', '2', '--m', '2', '--resamples', '20', '--seed', '3', '--json']),
    );
    expect(code).toBe(0);
    const r = JSON.parse(out) as {
      mode: string;
      states: number;
      candidates: number;
      m: number;
      report: WithinStateReport;
      reliability: HalfSplitReliability;
      unavailable: { estimator: string }[];
    };
    expect(r.mode).toBe('within-state');
    expect([r.states, r.candidates, r.m]).toEqual([3, 2, 2]);
    expect(r.report.rows.map((x) => x.estimator)).toEqual(expect.arrayContaining(['policy-logprob', 'value-lookahead', 'info-gain']));
    expect(r.report.states).toBe(3);
    expect(r.report.skipped).toBeLessThanOrEqual(3);
    expect(r.unavailable.map((u) => u.estimator)).toContain('archer');
    expect(r.reliability.ceiling).toHaveProperty('estimate');
    // the two modes' own flags are refused in the other mode, not ignored
    await expect(creditReport.run(['--family', 'guess', '--within-state', '--k', '2'])).rejects.toMatchObject({
      name: 'UsageError',
      message: '--within-state does not take --k',
    });
    await expect(creditReport.run(['--family', 'guess', '--states', '2'])).rejects.toMatchObject({
      name: 'UsageError',
      message: '--states belongs to --within-state',
    });
  });

  it('`credit-report --sweet-centre K` adds SWEET-RL centred at each state as a row of the pooled table', { timeout: 60_000 }, async () => {
    const { code, out } = await capture(() =>
      creditReport.run([
        '--family',
        'guess',
        '--estimators',
        'mc,sweet',
        '--episodes',
        '2',
        '--k',
        '1',
        '--m',
        '1',
        '--sweet-centre',
        '2',
        '--resamples',
        '10',
        '--json',
      ]),
    );
    expect(code).toBe(0);
    const r = JSON.parse(out) as { sweetCentre: number; reports: { truth: string; report: { rows: { estimator: string }[] } }[] };
    expect(r.sweetCentre).toBe(2);
    for (const x of r.reports) expect(x.report.rows.map((row) => row.estimator)).toEqual(['mc', 'sweet', 'sweet-centred']);
    await expect(creditReport.run(['--family', 'guess', '--estimators', 'mc', '--sweet-centre', '2'])).rejects.toMatchObject({
      name: 'UsageError',
      message: expect.stringMatching(/add sweet to --estimators/),
    });
  });
});
