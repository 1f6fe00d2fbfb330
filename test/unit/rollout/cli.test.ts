// CLI smoke on small N: `turnwise passkt`, `turnwise credit-report` and `turnwise credit`, with
// scripted agents and with a tiny random policy + critic written as a models folder (--backend wasm).
import 'fake-indexeddb/auto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../../src/cli/command.ts';
import { passkt } from '../../../src/cli/commands/passkt.ts';
import { creditReport } from '../../../src/cli/commands/credit-report.ts';
import type { FidelityReport, TruthReliability } from '../../../src/rl/credit/fidelity.ts';
import { credit } from '../../../src/cli/commands/credit.ts';
import { nodeWriter } from '../../../src/rl/model/folder/nodeIo.ts';
import { createAgent } from '../../../src/rl/envs/registry.ts';
import { scriptedBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { rollout, taskSpecs } from '../../../src/rl/rollout/rollout.ts';
import { storeSink } from '../../../src/rl/rollout/sink.ts';
import { TrajectoryStore } from '../../../src/rl/store/index.ts';
import { encodeTurnwise } from '../../../src/rl/store/formats/turnwise.ts';
import { tinyModels } from '../engine/fixtures.ts';
import { capture } from '../capture.ts';

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'turnwise-rollout-'));
  const write = nodeWriter(join(dir, 'models'));
  for (const [p, b] of Object.entries((await tinyModels(3, 512)).files)) await write(p, b);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run<T>(cmd: Command, args: string[]): Promise<T> {
  const { code, out } = await capture(() => cmd.run([...args, '--json']));
  expect(code).toBe(0);
  return JSON.parse(out) as T;
}

interface PassKT {
  n: number;
  tMax: number;
  successRate: number;
  grid: number[][];
}

interface Report {
  episodes: number;
  reports: { truth: string; report: FidelityReport; reliability?: TruthReliability }[];
}

describe('turnwise passkt', () => {
  it('prints a K × T grid, non-decreasing in K and T, whose corner is the success rate', async () => {
    const r = await run<PassKT>(passkt, ['--family', 'guess', '--agent', 'noisy', '--n', '4', '--tasks', '6']);
    expect(r.grid.length).toBe(4);
    expect(r.grid.every((row) => row.length === r.tMax)).toBe(true);
    for (let k = 0; k < 4; k++) {
      for (let t = 0; t < r.tMax; t++) {
        if (k > 0) expect(r.grid[k][t]).toBeGreaterThanOrEqual(r.grid[k - 1][t] - 1e-12);
        if (t > 0) expect(r.grid[k][t]).toBeGreaterThanOrEqual(r.grid[k][t - 1] - 1e-12);
      }
    }
    expect(r.grid[0][r.tMax - 1]).toBeCloseTo(r.successRate, 10);
  });

  it('runs the policy from a models folder', async () => {
    const r = await run<PassKT & { backend: string }>(passkt, [
      '--family',
      'bandit',
      '--n',
      '2',
      '--tasks',
      '2',
      '--models',
      join(dir, 'models'),
      '--backend',
      'wasm',
    ]);
    expect(r.backend).toBe('wasm');
    expect(r.grid.length).toBe(2);
  });
});

describe('turnwise credit-report', () => {
  it('reports every estimator against the counterfactual and, for guess, information gain', async () => {
    const r = await run<Report>(creditReport, [
      '--family',
      'guess',
      '--agent',
      'noisy',
      '--estimators',
      'mc,grpo',
      '--episodes',
      '6',
      '--k',
      '2',
      '--m',
      '2',
      '--resamples',
      '20',
    ]);
    expect(r.episodes).toBe(6);
    expect(r.reports.map((x) => x.truth)).toEqual(['counterfactual', 'information-gain']);
    expect(r.reports[0].report.rows.map((x) => x.estimator)).toEqual(['mc', 'grpo']);
    expect(r.reports[0].reliability).toBeUndefined();
  });

  it('--reliability: a second draw of the counterfactual truth over the same episodes, and the ceiling √r it allows', async () => {
    const args = ['--family', 'guess', '--agent', 'noisy', '--estimators', 'mc', '--episodes', '6', '--k', '2', '--m', '2', '--resamples', '20'];
    const plain = await run<Report>(creditReport, args);
    const r = await run<Report>(creditReport, [...args, '--reliability']);
    // the first draw and its table are those of the plain report; the second draw's re-rolls are fresh
    expect(r.reports[0].report).toEqual(plain.reports[0].report);
    const rel = r.reports[0].reliability as TruthReliability;
    expect(rel.secondDraw.estimator).toBe('second draw');
    expect(rel.secondDraw.turns).toBe(plain.reports[0].report.rows[0].turns);
    const rho = rel.secondDraw.pooled.spearman;
    // two draws of the same truth agree beyond chance (0.68, bootstrap interval 0.25–0.93 here), and
    // the ceiling is √r at every point of its interval
    expect(rho.low as number).toBeGreaterThan(0);
    expect(rho.low as number).toBeLessThanOrEqual(rho.estimate as number);
    expect(rho.estimate as number).toBeLessThanOrEqual(rho.high as number);
    expect(rho.high as number).toBeLessThan(1);
    expect(rel.ceiling.estimate).toBeCloseTo(Math.sqrt(Math.max(0, rho.estimate as number)), 12);
    expect(rel.ceiling.low).toBeCloseTo(Math.sqrt(Math.max(0, rho.low as number)), 12);
    expect(rel.ceiling.high).toBeCloseTo(Math.sqrt(Math.max(0, rho.high as number)), 12);
    expect(r.reports[1].reliability).toBeUndefined();
    // the text table prints the ceiling beside every estimator of the counterfactual table (not of information gain's, an exact truth)
    const { out } = await capture(() => creditReport.run([...args, '--reliability']));
    const f = (x: number | null) => (x as number).toFixed(2).padStart(5);
    const ceiling = `${f(rel.ceiling.estimate)} [${f(rel.ceiling.low)}, ${f(rel.ceiling.high)}]`;
    const [cf, ig] = out.split('vs information-gain');
    expect(cf).toContain('truth ceiling √r');
    expect(cf.split('\n').find((l) => l.startsWith('mc '))).toContain(ceiling);
    expect(ig).not.toContain('truth ceiling √r');
  });

  it('uses the critic for critic-based estimators, with the policy as agent', async () => {
    const r = await run<Report>(creditReport, [
      '--family',
      'bandit',
      '--estimators',
      'all',
      '--episodes',
      '4',
      '--k',
      '2',
      '--m',
      '1',
      '--resamples',
      '20',
      '--models',
      join(dir, 'models'),
      '--backend',
      'wasm',
    ]);
    expect(r.reports[0].report.rows.map((x) => x.estimator)).toEqual(['mc', 'gae', 'bilevel-gae', 'grpo', 'sweet']);
  });
});

describe('turnwise credit', () => {
  it('computes credit for Turnwise JSONL and eval episodes, and writes annotations back', async () => {
    const store = await TrajectoryStore.open({ name: `cli-credit-${Date.now()}` });
    const sink = storeSink(store, { policy: 'noisy', adapter: null, critic: null });
    const agent = scriptedBatchAgent('noisy', (seed) => createAgent('noisy', 'guess', { seed }));
    const played = await rollout({ tasks: taskSpecs('guess', 'test', 2, 1), k: 2, seed: 1 }, agent, { onEvent: sink.onEvent });
    const lines: string[] = [];
    for await (const l of encodeTurnwise(store.exportRecords())) lines.push(l);
    store.close();
    const file = join(dir, 'eps.turnwise.jsonl');
    writeFileSync(file, lines.join(''));
    const out = join(dir, 'annotated.turnwise.jsonl');
    type CreditOut = { format: string; episodes: { id: string; rewards: number[]; credit: Record<string, number[]> }[] };
    const r = await run<CreditOut>(credit, ['--in', file, '--estimators', 'mc,grpo', '--out', out]);
    expect(r.format).toBe('turnwise');
    expect(r.episodes.length).toBe(4);
    for (const e of r.episodes) {
      const played1 = played.episodes[[...sink.ids.values()].indexOf(e.id)];
      expect(e.rewards.length).toBe(played1.turns.length);
      e.rewards.forEach((x, t) => expect(x).toBeCloseTo(played1.turns[t].reward, 6));
      // MC return with γ = 1 (default): the sum of rewards to go
      expect(e.credit.mc[0]).toBeCloseTo(played1.totalReward, 4);
      expect(e.credit.mc.length).toBe(played1.turns.length);
    }
    // version 3 lines: each annotation lists the messages that have a value, and those values
    const annotated = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as { type: string; turns: { role: string }[]; credit: { estimator: string; turns: number[]; values: number[] }[] });
    const ep = annotated.find((x) => x.type === 'episode');
    expect(ep?.credit.map((c) => c.estimator)).toEqual(['mc', 'grpo']);
    expect(ep?.credit[0].values.length).toBe(ep?.credit[0].turns.length);
    expect(ep?.credit[0].turns.map((i) => ep.turns[i].role)).toEqual(ep?.turns.filter((t) => t.role === 'agent').map((t) => t.role)); // the agent's messages only: the system prompt has no credit
    // eval --out episodes (one Episode per line) read the same
    const evalFile = join(dir, 'eval.jsonl');
    writeFileSync(evalFile, played.episodes.map((e) => JSON.stringify(e)).join('\n'));
    const r2 = await run<CreditOut>(credit, ['--in', evalFile]);
    expect(r2.format).toBe('episodes');
    expect(r2.episodes.length).toBe(4);
    for (const e of r2.episodes) expect(e.credit.mc[0]).toBeCloseTo(played.episodes[Number(e.id.slice('episode-'.length)) - 1].totalReward, 4);
    await expect(credit.run(['--in', evalFile, '--estimators', 'archer'])).rejects.toThrow(/archer needs a turn-level Q critic/);
  });
});
