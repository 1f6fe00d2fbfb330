// Credit estimators (issue 16: one definition each, incremental where the lab runs it live):
//  - live credit per landed turn with the shipped critic (onnxruntime-node): the time to land turn T
//    (score that turn: V(s_{T−1}), V(s_T), log π_critic, log π_ref; push it into mc, gae,
//    bilevel-gae and sweet; read all their credits), at T = 4 and T = 40, beside the old path that
//    re-scored the whole prefix (criticInputs over T turns + batch credit) at the same T;
//  - per estimator, no model calls: landing turn T (push + read every credit) at T = 4 and T = 40;
//  - live GRPO over K = 8 episodes, and batch turn-level GAE over one 100,000-turn episode.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { time, timingRows, type BenchEntry, type BenchRow } from '../harness.ts';
import { modelsDir } from '../../src/cli/paths.ts';
import { gaeAdvantages } from '../../src/rl/credit/gae.ts';
import { IncrementalGroupAdvantage } from '../../src/rl/credit/groupAdvantage.ts';
import { computeCredit, createIncremental, type EstimatorName } from '../../src/rl/credit/registry.ts';
import type { IncrementalCredit, TurnCreditInput } from '../../src/rl/credit/types.ts';
import { createAgent } from '../../src/rl/envs/registry.ts';
import { scriptedBatchAgent } from '../../src/rl/rollout/agents.ts';
import { criticInputs, type CriticEpisode, type CriticTurn } from '../../src/rl/rollout/criticInputs.ts';
import { LiveEpisodeCredit } from '../../src/rl/rollout/liveCredit.ts';
import { openModels } from '../../src/rl/rollout/node.ts';
import { rollout, taskSpecs } from '../../src/rl/rollout/rollout.ts';
import { Rng } from '../../src/rl/util/rng.ts';

const AT = [4, 40] as const;
const TOKENS = 32;
const EPISODES = 200;
const K = 8;
const LIVE: EstimatorName[] = ['mc', 'gae', 'bilevel-gae', 'sweet'];
const SCOPED: EstimatorName[] = ['mc', 'gae', 'bilevel-gae', 'sweet', 'archer'];

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function randomTurns(rng: Rng, n: number): TurnCreditInput[] {
  const tokens = () => Float32Array.from({ length: TOKENS }, () => rng.normal());
  return Array.from({ length: n }, (_, t) => ({
    reward: rng.normal(),
    nextValue: rng.normal(),
    done: t === n - 1,
    q: rng.normal(),
    tokenValues: tokens(),
    criticLogprobs: tokens().map((x) => -Math.abs(x)),
    refLogprobs: tokens().map((x) => -Math.abs(x)),
  }));
}

/** µs to land turn T (push + result) on estimators holding T − 1 turns; median over repeats of EPISODES landings. */
function landing(name: EstimatorName, T: number, episodes: TurnCreditInput[][]): number {
  const reps: number[] = [];
  for (let rep = 0; rep < 25; rep++) {
    const incs: IncrementalCredit[] = episodes.map((turns) => {
      const inc = createIncremental(name, {}, { initialValue: 0.1 });
      for (let t = 0; t < T - 1; t++) inc.push(turns[t]);
      return inc;
    });
    const t0 = performance.now();
    incs.forEach((inc, i) => {
      inc.push(episodes[i][T - 1]);
      inc.result();
    });
    if (rep >= 3) reps.push(((performance.now() - t0) * 1000) / episodes.length);
  }
  return median(reps);
}

/** A guess dialogue of `n` turns: a noisy expert's episode, its turns repeated (only the critic's window matters for timing). */
async function longEpisode(n: number): Promise<CriticEpisode & { turns: CriticTurn[] }> {
  const agent = scriptedBatchAgent('noisy', (seed) => createAgent('noisy', 'guess', { seed }));
  const [e] = (await rollout({ tasks: taskSpecs('guess', 'test', 1, 3), k: 1, seed: 1 }, agent)).episodes;
  const turns = Array.from({ length: n }, (_, t) => ({ ...e.turns[t % Math.max(1, e.turns.length - 1)], done: t === n - 1, reward: t === n - 1 ? 1 : -0.01 }));
  return { task: e.task, turns };
}

async function liveRows(log: (line: string) => void): Promise<BenchRow[]> {
  if (!existsSync(join(modelsDir(), 'manifest.json'))) {
    log('credit live: no shipped models (public/models/manifest.json); run `npm run forge` first');
    return [{ case: 'live credit, shipped critic', metric: 'per landed turn', value: Number.NaN, unit: 'ms', note: 'no shipped models yet' }];
  }
  const engine = await openModels({ root: modelsDir(), backend: 'node', models: ['critic'] });
  try {
    const e = await longEpisode(Math.max(...AT));
    const perTurn = new Map<number, number[]>();
    for (let pass = 0; pass < 4; pass++) {
      const live = new LiveEpisodeCredit();
      for (let t = 1; t <= e.turns.length; t++) {
        const turns = e.turns.slice(0, t);
        const t0 = performance.now();
        await live.score(engine, { task: e.task, turns });
        for (const name of LIVE) live.credit(name, {}, turns);
        if (pass > 0) perTurn.set(t, [...(perTurn.get(t) ?? []), performance.now() - t0]);
      }
    }
    const rows: BenchRow[] = [];
    const live = AT.map((T) => median(perTurn.get(T)!));
    AT.forEach((T, i) => {
      log(`credit live, shipped critic: landing turn ${T} takes ${live[i].toFixed(2)} ms (score it + ${LIVE.join(', ')})`);
      rows.push({
        case: `live credit, shipped critic (node), landing turn T=${T}`,
        metric: 'per-turn update (median)',
        value: live[i],
        unit: 'ms',
        note: `scores the new turn only; pushes into ${LIVE.join(', ')}`,
      });
    });
    const ratio = live[1] / live[0];
    log(`credit live: T=${AT[1]} / T=${AT[0]} = ${ratio.toFixed(2)}×`);
    rows.push({
      case: `live credit, shipped critic (node), T=${AT[1]} vs T=${AT[0]}`,
      metric: 'ratio of per-turn update',
      value: ratio,
      unit: '×',
      note: 'target ≤ 2',
    });
    const old: number[] = [];
    for (const T of AT) {
      const turns = e.turns.slice(0, T);
      const t = await time(
        async () => {
          const [input] = await criticInputs(engine, [{ task: e.task, turns }]);
          for (const name of LIVE) computeCredit(name, [input]);
        },
        { warmup: 1, iterations: 5, budgetMs: 20_000 },
      );
      old.push(t.medianMs);
      log(`credit re-scoring the prefix (before issue 16), T=${T}: ${t.medianMs.toFixed(1)} ms per turn`);
      rows.push({ case: `re-scoring the whole prefix (the path before issue 16), T=${T}`, metric: 'per-turn update (median)', value: t.medianMs, unit: 'ms' });
    }
    rows.push({ case: `re-scoring the whole prefix, T=${AT[1]} vs T=${AT[0]}`, metric: 'ratio of per-turn update', value: old[1] / old[0], unit: '×' });
    return rows;
  } finally {
    await engine.dispose();
  }
}

export const credit: BenchEntry = {
  name: 'credit',
  description: 'credit: live per-turn update with the shipped critic at T = 4 and 40, per-estimator landing cost, live GRPO, batch GAE over 100,000 turns',
  byDefault: true,
  async run(log) {
    const rows: BenchRow[] = [...(await liveRows(log))];
    const rng = new Rng('bench-credit');
    const episodes = Array.from({ length: EPISODES }, () => randomTurns(rng, Math.max(...AT)));
    for (const name of SCOPED) {
      const us = AT.map((T) => landing(name, T, episodes));
      log(
        `credit ${name}: landing turn ${AT[0]} ${us[0].toFixed(2)} µs, turn ${AT[1]} ${us[1].toFixed(2)} µs (${(us[1] / us[0]).toFixed(2)}×; ${TOKENS} tokens/turn)`,
      );
      AT.forEach((T, i) =>
        rows.push({
          case: `incremental ${name}, landing turn T=${T}, ${TOKENS} tokens/turn`,
          metric: 'per-turn update (median)',
          value: us[i],
          unit: 'µs',
          note: 'push + read every credit; no model calls',
        }),
      );
    }
    {
      const TURNS = 10;
      const t = await time(
        () => {
          for (let g = 0; g < EPISODES / K; g++) {
            const group = new IncrementalGroupAdvantage(K);
            for (let step = 0; step < TURNS; step++) {
              for (let i = 0; i < K; i++) {
                group.push(i, episodes[g * K + i][step]);
                for (let j = 0; j < K; j++) group.result(j);
              }
            }
          }
        },
        { warmup: 2, iterations: 30, budgetMs: 3000 },
      );
      const us = (t.medianMs * 1000) / (EPISODES * TURNS);
      log(`credit grpo: ${us.toFixed(2)} µs per turn (push + all ${K} episodes' results)`);
      rows.push({ case: `incremental grpo, K=${K}, T=${TURNS} (reads all K after each turn)`, metric: 'per-turn update (median)', value: us, unit: 'µs' });
    }
    {
      const N = 100_000;
      const r = new Rng('bench-gae');
      const rewards = Float32Array.from({ length: N }, () => r.normal());
      const values = Float32Array.from({ length: N + 1 }, () => r.normal());
      const t = await time(() => gaeAdvantages(rewards, values, 0.99, 0.95, true), { warmup: 3, iterations: 50, budgetMs: 3000 });
      log(
        `credit batch GAE (fold of IncrementalGae), 100,000 turns: median ${t.medianMs.toFixed(3)} ms (${(((N / t.medianMs) * 1000) / 1e6).toFixed(1)} M turns/s)`,
      );
      rows.push(...timingRows('batch GAE, 100,000 turns', t));
      rows.push({ case: 'batch GAE, 100,000 turns', metric: 'turns/s', value: (N / t.medianMs) * 1000, unit: '1/s' });
    }
    return rows;
  },
};
