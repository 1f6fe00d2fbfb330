// Where a training iteration spends its time (issue 17), on the shipped policy with onnxruntime-node
// as the learning benchmark runs it, guess at 16 tasks × K 8:
//  1. the train step on packed rows (an episode's turns in one row) in length buckets, and the
//     forward pass (the engine's scoring) on the same rows, so the train step's tokens/s can be read
//     against the forward's (backward ≈ 2× forward makes ⅓ the practical limit). The path before
//     issue 17 (one row per agent turn, padded to the whole context) is no longer in the code: compare
//     with it through ITERATION_BASELINE (below) on a commit before issue 44;
//  2. whole iterations of `turnwise train` (GRPO): seconds per iteration and its split into rollouts,
//     train steps and scoring. With ITERATION_BASELINE=DIR (a checkout of an older commit with its
//     node_modules) the same command runs in DIR too, alternating with this checkout, so the two are
//     compared in one run on the same machine.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { median, type BenchEntry, type BenchRow } from '../harness.ts';
import { modelsDir, projectRoot } from '../../src/cli/paths.ts';
import { resolveLoopConfig } from '../../src/rl/algos/config.ts';
import { AlgoContext } from '../../src/rl/algos/context.ts';
import { Learner } from '../../src/rl/algos/learner.ts';
import { windowsOf } from '../../src/rl/algos/loop.ts';
import { setSpan } from '../../src/rl/algos/rows.ts';
import { nodeReader } from '../../src/rl/model/folder/nodeIo.ts';
import { PolicyBatchAgent } from '../../src/rl/rollout/agents.ts';
import { rollout, taskSpecs } from '../../src/rl/rollout/rollout.ts';
import { PolicyEngine } from '../../src/rl/runtime/policyEngine.ts';

const TASKS = 16;
const K = 8;
const OPTIONS = { candidates: 4, maxTurns: 4 };
/** Iterations per `turnwise train` process; the first is a warm-up (graphs built, sessions first run). */
const ITERATIONS = 4;
const ROUNDS = 2;

async function trainStepRows(log: (line: string) => void): Promise<BenchRow[]> {
  const read = nodeReader(modelsDir());
  const engine = new PolicyEngine();
  await engine.init('node');
  try {
    await engine.loadFrom('policy', { kind: 'reader', read, manifest: true, name: 'policy' });
    const policy = engine.loadedModel('policy');
    const config = resolveLoopConfig({ algo: 'grpo', family: 'guess', seed: 1, tasksPerIteration: TASKS, k: K, options: OPTIONS }, policy.turnwise);
    const windows = windowsOf(await engine.models(), undefined);
    const ctx = new AlgoContext(engine, engine.sharedRuntime(), { policy, critic: null }, windows, config, { policy: 'bench/policy', critic: 'bench/critic' });
    const agent = await PolicyBatchAgent.create(engine, { sampling: { temperature: 1, maxNewTokens: windows.policyReserve } });
    const { episodes } = await rollout({ tasks: taskSpecs('guess', 'train', TASKS, 1, OPTIONS), k: K, seed: 1 }, agent);
    const turns = episodes.reduce((a, e) => a + e.turns.length, 0);
    const packed = ctx.turnRows(episodes);
    for (const s of packed.spans) setSpan(packed.rows[s.row], s, 'advantages', s.episode % 2 ? 0.5 : -0.5);
    const make = () =>
      Learner.create(engine.sharedRuntime(), {
        target: 'policy',
        model: policy,
        lora: config.lora,
        base: 'fp32',
        loss: { kind: 'policy-gradient', clipLow: 0.2, clipHigh: 0.2 },
        batch: 8,
        seqLen: windows.policyBudget,
        adamw: { lr: 1e-4 },
        seed: 1,
        initStd: 1 / Math.sqrt(policy.config.dModel),
      });
    const rows: BenchRow[] = [];
    const cases = [{ name: 'packed episode rows, length buckets', data: packed.rows, learner: await make() }];
    try {
      // warm-up: builds each bucket graph and runs each session once; the forward's adapter is the packed learner's
      for (const c of cases) await c.learner.train(c.data, 1);
      await engine.setAdapter('bench/policy', cases[0].learner.adapter(), { model: 'policy', activate: false });
      await ctx.positionLogprobs('policy', 'bench/policy', packed.rows);
      // rounds interleave the three measurements so that load on the machine hits them alike
      const m0 = cases.map((c) => ({ ...c.learner.meter }));
      const forward = { seconds: 0, tokens: 0 };
      for (let r = 0; r < ROUNDS; r++) {
        for (const c of cases) await c.learner.train(c.data, 1);
        const [s0, t0] = [ctx.scoreMeter.seconds, ctx.scoreMeter.tokens];
        await ctx.positionLogprobs('policy', 'bench/policy', packed.rows);
        forward.seconds += ctx.scoreMeter.seconds - s0;
        forward.tokens += ctx.scoreMeter.tokens - t0;
      }
      const figures = cases.map((c, i) => {
        const m = c.learner.meter;
        const f = {
          seconds: (m.seconds - m0[i].seconds) / ROUNDS,
          tokens: (m.tokens - m0[i].tokens) / ROUNDS,
          padded: (m.paddedTokens - m0[i].paddedTokens) / ROUNDS,
          steps: (m.steps - m0[i].steps) / ROUNDS,
        };
        const label = `train step, one epoch over a guess iteration's rollouts (${TASKS} × K ${K}, ${turns} agent turns): ${c.name}`;
        log(`iteration ${label}: ${f.seconds.toFixed(2)} s, ${c.data.length} rows, ${f.steps} steps, ${f.tokens} tokens (${f.padded} with padding)`);
        rows.push(
          {
            case: label,
            metric: 'seconds per epoch',
            value: f.seconds,
            unit: 's',
            note: `${c.data.length} rows, ${f.steps} steps of 8 rows, ${f.tokens} real tokens, ${f.padded} with padding; onnxruntime-node; ${ROUNDS} rounds`,
          },
          { case: label, metric: 'train tokens/s (real)', value: f.tokens / f.seconds, unit: 'tok/s' },
        );
        return f;
      });
      const fwd = forward.tokens / forward.seconds;
      log(`iteration forward on the packed rows: ${fwd.toFixed(0)} tok/s`);
      rows.push(
        {
          case: 'forward only (engine scoring with the adapter) on the same packed rows',
          metric: 'forward tokens/s',
          value: fwd,
          unit: 'tok/s',
          note: `${forward.tokens / ROUNDS} tokens per round`,
        },
        {
          case: 'train step ÷ forward, tokens/s on the same packed rows',
          metric: 'ratio',
          value: figures[0].tokens / figures[0].seconds / fwd,
          unit: '×',
          note: 'target ≥ 1/3 (backward ≈ 2× forward)',
        },
      );
    } finally {
      for (const c of cases) await c.learner.dispose();
    }
    return rows;
  } finally {
    await engine.dispose();
  }
}

interface IterationFigures {
  seconds: number[];
  rollout: number[];
  train: number[];
  score: number[];
}

/** Runs `turnwise train` in `dir` and reads the timed iterations' figures (all but the first). */
function trainProcess(dir: string): Promise<IterationFigures> {
  const args = [
    'bin/turnwise.js',
    'train',
    '--algo',
    'grpo',
    '--family',
    'guess',
    '--iterations',
    String(ITERATIONS),
    '--tasks',
    String(TASKS),
    '--k',
    String(K),
    '--eval',
    '0',
    '--json',
    '--backend',
    'node',
    '--options',
    JSON.stringify(OPTIONS),
    '--seed',
    '1',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`turnwise train in ${dir} exited ${code}: ${err.slice(-500)}`));
      const reports = (JSON.parse(out) as { reports: { metrics: Record<string, number> }[] }).reports.slice(1);
      const pick = (k: string) => reports.map((r) => r.metrics[k] ?? Number.NaN);
      resolve({ seconds: pick('seconds'), rollout: pick('rollout_seconds'), train: pick('train_seconds'), score: pick('score_seconds') });
    });
  });
}

async function wholeIterations(log: (line: string) => void): Promise<BenchRow[]> {
  const baseline = process.env.ITERATION_BASELINE;
  if (baseline && !existsSync(join(baseline, 'bin/turnwise.js')))
    throw new Error(`ITERATION_BASELINE=${baseline} is not a Turnwise checkout (no bin/turnwise.js)`);
  const runs: Record<string, IterationFigures[]> = { current: [], ...(baseline ? { baseline: [] } : {}) };
  for (let r = 0; r < ROUNDS; r++) {
    if (baseline) runs.baseline.push(await trainProcess(baseline));
    runs.current.push(await trainProcess(projectRoot()));
  }
  const rows: BenchRow[] = [];
  const med: Record<string, number> = {};
  for (const [who, list] of Object.entries(runs)) {
    const all = (k: keyof IterationFigures) => list.flatMap((f) => f[k]);
    const label = who === 'current' ? 'this checkout' : `baseline ${baseline}`;
    const c = `GRPO iteration on guess, ${TASKS} tasks × K ${K}, onnxruntime-node: ${label}`;
    med[who] = median(all('seconds'));
    const part = (k: keyof IterationFigures) => median(all(k).filter(Number.isFinite));
    log(
      `iteration ${c}: ${med[who].toFixed(2)} s (rollouts ${part('rollout').toFixed(2)}, train ${part('train').toFixed(2)}, score ${part('score').toFixed(2)})`,
    );
    rows.push({
      case: c,
      metric: 'seconds per iteration (median)',
      value: med[who],
      unit: 's',
      note: `${ROUNDS} processes × ${ITERATIONS - 1} timed iterations after a warm-up; rollouts ${part('rollout').toFixed(2)} s, train ${Number.isFinite(part('train')) ? part('train').toFixed(2) : 'n/a'} s, score ${Number.isFinite(part('score')) ? part('score').toFixed(2) : 'n/a'} s`,
    });
    rows.push({ case: c, metric: 'rollout seconds per iteration (median)', value: part('rollout'), unit: 's' });
  }
  if (baseline)
    rows.push({
      case: 'GRPO iteration on guess, this checkout ÷ baseline',
      metric: 'ratio',
      value: med.current / med.baseline,
      unit: '×',
      note: 'target ≤ 1/3',
    });
  return rows;
}

export const iteration: BenchEntry = {
  name: 'iteration',
  description: `where a guess training iteration (${TASKS} × K ${K}) spends its time: train step on packed rows, train ÷ forward, whole iterations (ITERATION_BASELINE=DIR compares an older checkout)`,
  byDefault: true,
  async run(log) {
    if (!existsSync(join(modelsDir(), 'manifest.json'))) {
      log('iteration: no shipped models (public/models/manifest.json); run `npm run forge` first');
      return [];
    }
    return [...(await trainStepRows(log)), ...(await wholeIterations(log))];
  },
};
