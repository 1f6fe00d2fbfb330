// Batch credit is the fold of the incremental estimator (src/rl/credit/fold.ts); this checks the
// fold against a second implementation: each paper's backward recursion written as a plain loop
// over whole arrays (the batch code the estimators had before issue 16), on random episodes
// (fast-check, seed 16), terminal and live.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { computeCredit } from '../../../src/rl/credit/registry.ts';
import type { EpisodeCreditInput } from '../../../src/rl/credit/types.ts';
import { expectClose } from './helpers.ts';

const num = (lo: number, hi: number) => fc.float({ min: Math.fround(lo), max: Math.fround(hi), noNaN: true, noDefaultInfinity: true });
const turnArb = fc.record({
  reward: num(-5, 5),
  value: num(-3, 3),
  q: num(-3, 3),
  tokens: fc.array(fc.tuple(num(-2, 2), num(-8, 0), num(-8, 0)), { minLength: 1, maxLength: 4 }),
});
const episodeArb = fc.record({ v0: num(-3, 3), turns: fc.array(turnArb, { minLength: 0, maxLength: 12 }), terminal: fc.boolean() });
type Drawn = typeof episodeArb extends fc.Arbitrary<infer D> ? D : never;

function episode({ v0, turns, terminal }: Drawn): EpisodeCreditInput {
  const offsets = [0];
  for (const t of turns) offsets.push(offsets[offsets.length - 1] + t.tokens.length);
  const flat = turns.flatMap((t) => t.tokens);
  return {
    rewards: Float32Array.from(turns, (t) => t.reward),
    values: Float32Array.from([v0, ...turns.map((t) => t.value)]),
    terminal,
    q: Float32Array.from(turns, (t) => t.q),
    tokenOffsets: Int32Array.from(offsets),
    tokenValues: Float32Array.from(flat, (k) => k[0]),
    criticLogprobs: Float32Array.from(flat, (k) => k[1]),
    refLogprobs: Float32Array.from(flat, (k) => k[2]),
  };
}

/** Plain loops over whole arrays. */
const plain = {
  mc(e: EpisodeCreditInput, gamma: number): number[] {
    const out: number[] = [];
    let g = 0;
    for (let t = e.rewards.length - 1; t >= 0; t--) out[t] = g = e.rewards[t] + gamma * g;
    return out;
  },
  gae(e: EpisodeCreditInput, gamma: number, lambda: number): number[] {
    const T = e.rewards.length;
    const v = e.values!;
    const out: number[] = [];
    let a = 0;
    for (let t = T - 1; t >= 0; t--) {
      const next = t === T - 1 && e.terminal ? 0 : v[t + 1];
      out[t] = a = e.rewards[t] + gamma * next - v[t] + gamma * lambda * a;
    }
    return out;
  },
  bilevel(e: EpisodeCreditInput, g: number, l: number, gh: number, lh: number): { perTurn: number[]; perToken: number[] } {
    const T = e.rewards.length;
    const off = e.tokenOffsets!;
    const tv = e.tokenValues!;
    const perTurn: number[] = [];
    let a = 0;
    for (let i = T - 1; i >= 0; i--) {
      const next = i === T - 1 ? (e.terminal ? 0 : e.values![T]) : tv[off[i + 2] - 1];
      perTurn[i] = a = e.rewards[i] + gh * next - tv[off[i + 1] - 1] + gh * lh * a;
    }
    const perToken: number[] = [];
    for (let i = 0; i < T; i++) {
      let at = perTurn[i];
      perToken[off[i + 1] - 1] = at;
      for (let j = off[i + 1] - 2; j >= off[i]; j--) perToken[j] = at = g * tv[j + 1] - tv[j] + g * l * at;
    }
    return { perTurn, perToken };
  },
  sweet(e: EpisodeCreditInput, beta: number): number[] {
    const off = e.tokenOffsets!;
    return Array.from(e.rewards, (_, t) => {
      let s = 0;
      for (let j = off[t]; j < off[t + 1]; j++) s += beta * (e.criticLogprobs![j] - e.refLogprobs![j]);
      return off[t + 1] > off[t] ? s / (off[t + 1] - off[t]) : 0;
    });
  },
  archer: (e: EpisodeCreditInput): number[] => Array.from(e.q!, (q, t) => q - e.values![t]),
};

describe('batch credit (fold of the incremental estimator) equals a plain loop', () => {
  const run = (check: (e: EpisodeCreditInput) => void) =>
    fc.assert(
      fc.property(episodeArb, (x) => check(episode(x))),
      { numRuns: 200, seed: 16 },
    );
  it('mc', () => run((e) => expectClose(computeCredit('mc', [e], { gamma: 0.9 })[0].perTurn, plain.mc(e, 0.9), 1e-5)));
  it('gae', () => run((e) => expectClose(computeCredit('gae', [e], { gamma: 0.9, lambda: 0.7 })[0].perTurn, plain.gae(e, 0.9, 0.7), 1e-5)));
  it('bilevel-gae', () =>
    run((e) => {
      const [r] = computeCredit('bilevel-gae', [e], { gamma: 0.95, lambda: 0.9, turnGamma: 0.8, turnLambda: 0.6 });
      const want = plain.bilevel(e, 0.95, 0.9, 0.8, 0.6);
      expectClose(r.perTurn, want.perTurn, 1e-5);
      expectClose(r.perToken!, want.perToken, 1e-5);
    }));
  it('sweet', () => run((e) => expectClose(computeCredit('sweet', [e], { beta: 0.3 })[0].perTurn, plain.sweet(e, 0.3), 1e-5)));
  it('archer', () => run((e) => expectClose(computeCredit('archer', [e])[0].perTurn, plain.archer(e), 1e-5)));
  it('grpo (mean only: R − mean R over the group)', () =>
    fc.assert(
      fc.property(fc.array(episodeArb, { minLength: 1, maxLength: 5 }), (xs) => {
        const eps = xs.map((x) => ({ ...episode(x), group: 'g' }));
        const R = eps.map((e) => plain.mc(e, 1)[0] ?? 0);
        const mean = R.reduce((a, b) => a + b, 0) / R.length;
        const spread = Math.max(...R) - Math.min(...R) > 1e-6 * Math.max(1, ...R.map(Math.abs));
        computeCredit('grpo', eps, { divideByStd: false }).forEach((r, i) =>
          expectClose(r.perTurn, new Array<number>(eps[i].rewards.length).fill(spread && eps.length > 1 ? R[i] - mean : 0), 1e-4),
        );
      }),
      { numRuns: 200, seed: 16 },
    ));
});
