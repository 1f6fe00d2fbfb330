// Incremental == batch: for random episodes (fast-check), after every pushed turn each incremental
// estimator gives the batch estimator's credit on the prefix (terminal only after a done turn), and
// every credit before the index push() returns is unchanged, as each module's update rule says.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IncrementalGroupAdvantage, groupCredit } from '../../../src/rl/credit/groupAdvantage.ts';
import { computeCredit, createIncremental, type EstimatorName } from '../../../src/rl/credit/registry.ts';
import type { EpisodeCreditInput, TurnCreditInput } from '../../../src/rl/credit/types.ts';
import { expectClose } from './helpers.ts';

const num = (lo: number, hi: number) => fc.float({ min: Math.fround(lo), max: Math.fround(hi), noNaN: true, noDefaultInfinity: true });

const turnArb = fc.record({
  reward: num(-5, 5),
  nextValue: num(-3, 3),
  q: num(-3, 3),
  tokens: fc.array(fc.tuple(num(-2, 2), num(-8, 0), num(-8, 0)), { minLength: 1, maxLength: 5 }),
});

const episodeArb = fc.record({
  initialValue: num(-3, 3),
  turns: fc.array(turnArb, { minLength: 1, maxLength: 10 }),
  done: fc.boolean(),
});

type Turn = { reward: number; nextValue: number; q: number; tokens: [number, number, number][] };

function turnInput(t: Turn, done: boolean): TurnCreditInput {
  return {
    reward: t.reward,
    nextValue: t.nextValue,
    done,
    q: t.q,
    tokenValues: Float32Array.from(t.tokens, (k) => k[0]),
    criticLogprobs: Float32Array.from(t.tokens, (k) => k[1]),
    refLogprobs: Float32Array.from(t.tokens, (k) => k[2]),
  };
}

/** The batch input of the first n turns. */
function prefix(initialValue: number, turns: Turn[], n: number, terminal: boolean): EpisodeCreditInput {
  const ts = turns.slice(0, n);
  const offsets = [0];
  for (const t of ts) offsets.push(offsets[offsets.length - 1] + t.tokens.length);
  const flat = ts.flatMap((t) => t.tokens);
  return {
    rewards: Float32Array.from(ts, (t) => t.reward),
    values: Float32Array.from([initialValue, ...ts.map((t) => t.nextValue)]),
    terminal,
    q: Float32Array.from(ts, (t) => t.q),
    tokenOffsets: Int32Array.from(offsets),
    tokenValues: Float32Array.from(flat, (k) => k[0]),
    criticLogprobs: Float32Array.from(flat, (k) => k[1]),
    refLogprobs: Float32Array.from(flat, (k) => k[2]),
  };
}

const EPISODE_SCOPED: EstimatorName[] = ['mc', 'gae', 'bilevel-gae', 'sweet', 'archer'];
const PARAMS: Record<string, Record<string, number>> = {
  mc: { gamma: 0.9 },
  gae: { gamma: 0.9, lambda: 0.7 },
  'bilevel-gae': { gamma: 0.95, lambda: 0.9, turnGamma: 0.8, turnLambda: 0.6 },
  sweet: { beta: 0.3 },
  archer: {},
};

describe('incremental credit equals batch credit on every prefix', () => {
  for (const name of EPISODE_SCOPED) {
    it(name, () => {
      fc.assert(
        fc.property(episodeArb, ({ initialValue, turns, done }) => {
          const inc = createIncremental(name, PARAMS[name], { initialValue });
          let previous: Float32Array = new Float32Array(0);
          turns.forEach((t, i) => {
            const last = i === turns.length - 1;
            const changedFrom = inc.push(turnInput(t, done && last));
            expect(inc.turns).toBe(i + 1);
            const got = inc.result();
            const [want] = computeCredit(name, [prefix(initialValue, turns, i + 1, done && last)], PARAMS[name]);
            expectClose(got.perTurn, want.perTurn, 1e-5);
            if (want.perToken) expectClose(got.perToken!, want.perToken, 1e-5);
            expect(got.params).toEqual(want.params);
            // Credits before changedFrom are untouched by this push.
            for (let k = 0; k < Math.min(changedFrom, previous.length); k++) expect(got.perTurn[k]).toBe(previous[k]);
            previous = got.perTurn;
          });
        }),
        { numRuns: 150, seed: 6 },
      );
    });
  }

  it('grpo (turns of K episodes interleaved)', () => {
    const groupArb = fc.array(fc.array(num(-2, 2), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(groupArb, fc.boolean(), (rewardsPerEpisode, divideByStd) => {
        const K = rewardsPerEpisode.length;
        const params = { divideByStd, epsilon: 1e-6 };
        const group = new IncrementalGroupAdvantage(K, params);
        const pushed = new Array<number>(K).fill(0);
        const longest = Math.max(...rewardsPerEpisode.map((r) => r.length));
        for (let step = 0; step < longest; step++) {
          for (let i = 0; i < K; i++) {
            const rs = rewardsPerEpisode[i];
            if (step >= rs.length) continue;
            group.push(i, { reward: rs[step], done: step === rs.length - 1 });
            pushed[i]++;
            const batch = groupCredit(
              rewardsPerEpisode.map((r, j) => ({ rewards: Float32Array.from(r.slice(0, pushed[j])), group: 'g' })),
              params,
            );
            for (let j = 0; j < K; j++) {
              expect(group.result(j).perTurn.length).toBe(pushed[j]);
              expectClose(group.result(j).perTurn, batch[j].perTurn, 1e-6);
            }
          }
        }
      }),
      { numRuns: 50, seed: 6 },
    );
  });
});
