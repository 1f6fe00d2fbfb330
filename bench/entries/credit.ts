// Credit estimators: per-turn incremental update latency of every estimator (push one turn, then
// read all credits, as live credit does after each turn; no model calls), and batch turn-level GAE
// over one 100,000-turn episode.
import { time, timingRows, type BenchEntry, type BenchRow } from '../harness.ts';
import { gaeAdvantages } from '../../src/rl/credit/gae.ts';
import { IncrementalGroupAdvantage } from '../../src/rl/credit/groupAdvantage.ts';
import { createIncremental } from '../../src/rl/credit/registry.ts';
import type { EstimatorName, TurnCreditInput } from '../../src/rl/credit/types.ts';
import { Rng } from '../../src/rl/util/rng.ts';

const EPISODES = 200;
const TURNS = 10;
const TOKENS = 32;
const K = 8;

function makeTurns(rng: Rng): TurnCreditInput[][] {
  const tokens = () => Float32Array.from({ length: TOKENS }, () => rng.normal());
  return Array.from({ length: EPISODES }, () =>
    Array.from({ length: TURNS }, (_, t) => ({
      reward: rng.normal(),
      nextValue: rng.normal(),
      done: t === TURNS - 1,
      q: rng.normal(),
      tokenValues: tokens(),
      criticLogprobs: tokens().map((x) => -Math.abs(x)),
      refLogprobs: tokens().map((x) => -Math.abs(x)),
    })),
  );
}

export const credit: BenchEntry = {
  name: 'credit',
  description: 'credit estimators: per-turn incremental update latency (all estimators), batch GAE over 100,000 turns',
  byDefault: true,
  async run(log) {
    const rows: BenchRow[] = [];
    const episodes = makeTurns(new Rng('bench-credit'));
    const pushes = EPISODES * TURNS;
    const scoped: EstimatorName[] = ['mc', 'gae', 'bilevel-gae', 'sweet', 'archer'];
    for (const name of scoped) {
      const t = await time(
        () => {
          for (const turns of episodes) {
            const inc = createIncremental(name, {}, { initialValue: 0.1 });
            for (const turn of turns) {
              inc.push(turn);
              inc.result();
            }
          }
        },
        { warmup: 2, iterations: 30, budgetMs: 3000 },
      );
      const us = (t.medianMs * 1000) / pushes;
      log(`credit ${name}: ${us.toFixed(2)} µs per turn (push + result, T=${TURNS}, ${TOKENS} tokens/turn)`);
      rows.push({ case: `incremental ${name}, T=${TURNS}, ${TOKENS} tokens/turn`, metric: 'per-turn update (median)', value: us, unit: 'µs' });
    }
    {
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
      const us = (t.medianMs * 1000) / pushes;
      log(`credit grpo: ${us.toFixed(2)} µs per turn (push + all ${K} episodes' results)`);
      rows.push({ case: `incremental grpo, K=${K}, T=${TURNS} (reads all K after each turn)`, metric: 'per-turn update (median)', value: us, unit: 'µs' });
    }
    {
      const N = 100_000;
      const rng = new Rng('bench-gae');
      const rewards = Float32Array.from({ length: N }, () => rng.normal());
      const values = Float32Array.from({ length: N + 1 }, () => rng.normal());
      const t = await time(() => gaeAdvantages(rewards, values, 0.99, 0.95, true), { warmup: 3, iterations: 50, budgetMs: 3000 });
      log(`credit batch GAE, 100,000 turns: median ${t.medianMs.toFixed(3)} ms (${((N / t.medianMs) * 1000 / 1e6).toFixed(1)} M turns/s)`);
      rows.push(...timingRows('batch GAE, 100,000 turns', t));
      rows.push({ case: 'batch GAE, 100,000 turns', metric: 'turns/s', value: (N / t.medianMs) * 1000, unit: '1/s' });
    }
    return rows;
  },
};
