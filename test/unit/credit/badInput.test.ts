// Bad input: empty and one-turn episodes, NaN/±Infinity, mismatched lengths, missing inputs, bad
// parameters and pushes after the end give named CreditErrors or the documented safe values.
import { describe, expect, it } from 'vitest';
import { IncrementalGroupAdvantage } from '../../../src/rl/credit/groupAdvantage.ts';
import { computeCredit, createIncremental, ESTIMATOR_NAMES, resolveParams } from '../../../src/rl/credit/registry.ts';
import type { EpisodeCreditInput } from '../../../src/rl/credit/types.ts';
import { expectCreditError, f32, i32 } from './helpers.ts';

const full = (T: number, tokensPerTurn = 2): EpisodeCreditInput => ({
  rewards: new Float32Array(T).fill(1),
  values: new Float32Array(T + 1).fill(0.5),
  q: new Float32Array(T).fill(0.25),
  tokenOffsets: Int32Array.from({ length: T + 1 }, (_, t) => t * tokensPerTurn),
  tokenValues: new Float32Array(T * tokensPerTurn).fill(0.1),
  criticLogprobs: new Float32Array(T * tokensPerTurn).fill(-1),
  refLogprobs: new Float32Array(T * tokensPerTurn).fill(-2),
  group: 'g',
});

describe('episode length', () => {
  it('an empty episode gets empty credit from every estimator', () => {
    for (const name of ESTIMATOR_NAMES) {
      const [r] = computeCredit(name, [full(0)]);
      expect(r.perTurn.length).toBe(0);
      if (r.perToken) expect(r.perToken.length).toBe(0);
    }
  });
  it('a one-turn episode gets one finite credit from every estimator', () => {
    for (const name of ESTIMATOR_NAMES) {
      const [r] = computeCredit(name, [full(1)]);
      expect(r.perTurn.length).toBe(1);
      expect(Number.isFinite(r.perTurn[0])).toBe(true);
    }
  });
  it('all-equal rewards across a group give zero GRPO credit, not NaN', () => {
    const rs = computeCredit('grpo', [full(3), full(3), full(3)]);
    for (const r of rs) expect(Array.from(r.perTurn)).toEqual([0, 0, 0]);
  });
});

describe('non-finite numbers are refused by name', () => {
  const cases: [string, (e: EpisodeCreditInput) => void, string[], RegExp][] = [
    ['NaN reward', (e) => (e.rewards[1] = NaN), ['mc', 'gae', 'bilevel-gae', 'grpo', 'archer'], /rewards\[1\] is NaN/],
    ['Infinity value', (e) => (e.values![2] = Infinity), ['gae', 'archer'], /values\[2\] is Infinity/],
    ['-Infinity critic log-prob', (e) => (e.criticLogprobs![3] = -Infinity), ['sweet'], /criticLogprobs\[3\] is -Infinity/],
    ['NaN token value', (e) => (e.tokenValues![0] = NaN), ['bilevel-gae'], /tokenValues\[0\] is NaN/],
    ['NaN Q', (e) => (e.q![0] = NaN), ['archer'], /q\[0\] is NaN/],
  ];
  for (const [label, spoil, names, pattern] of cases) {
    it(label, () => {
      for (const name of names) {
        const e = full(3);
        spoil(e);
        expectCreditError(() => computeCredit(name as (typeof ESTIMATOR_NAMES)[number], [e]), 'non-finite', pattern);
      }
    });
  }
  it('incremental pushes too', () => {
    expectCreditError(() => createIncremental('mc').push({ reward: NaN }), 'non-finite', /reward of turn 0 is NaN/);
    expectCreditError(() => createIncremental('gae').push({ reward: 1, nextValue: Infinity }), 'non-finite', /nextValue of turn 0 is Infinity/);
    expectCreditError(() => new IncrementalGroupAdvantage(2).push(1, { reward: NaN }), 'non-finite', /episode 1 is NaN/);
  });
});

describe('mismatched lengths and offsets', () => {
  it('values must have T + 1 entries', () => {
    expectCreditError(() => computeCredit('gae', [{ ...full(3), values: f32([0, 0, 0]) }]), 'length-mismatch', /values has length 3, expected 4/);
  });
  it('q must have T entries', () => {
    expectCreditError(() => computeCredit('archer', [{ ...full(3), q: f32([0, 0]) }]), 'length-mismatch', /q has length 2, expected 3/);
  });
  it('reference and critic log-probs must align', () => {
    expectCreditError(
      () => computeCredit('sweet', [{ ...full(2), refLogprobs: f32([-1, -1, -1]) }]),
      'length-mismatch',
      /refLogprobs has length 3, expected 4/,
    );
  });
  it('offsets must cover the tokens', () => {
    expectCreditError(() => computeCredit('sweet', [{ ...full(2), tokenOffsets: i32([0, 2, 3]) }]), 'bad-offsets', /end at 3 but there are 4 tokens/);
    expectCreditError(
      () => computeCredit('sweet', [{ ...full(2), tokenOffsets: i32([0, 3, 2, 4]) }]),
      'length-mismatch',
      /tokenOffsets has length 4, expected 3/,
    );
    expectCreditError(() => computeCredit('bilevel-gae', [{ ...full(2), tokenOffsets: i32([0, 3, 2]) }]), 'bad-offsets', /decrease at turn 1/);
  });
  it('bi-level GAE needs a token in every turn', () => {
    expectCreditError(() => computeCredit('bilevel-gae', [{ ...full(2), tokenOffsets: i32([0, 0, 4]) }]), 'bad-offsets', /turn 0 has none/);
  });
});

describe('missing inputs, parameters, order', () => {
  it('names the missing input', () => {
    expectCreditError(() => computeCredit('gae', [{ rewards: f32([1]) }]), 'missing-input', /gae needs values/);
    expectCreditError(() => computeCredit('archer', [{ rewards: f32([1]), values: f32([0, 0]) }]), 'missing-input', /archer needs q/);
    expectCreditError(() => computeCredit('grpo', [{ rewards: f32([1]) }]), 'missing-input', /episode 0 has none/);
    expectCreditError(() => computeCredit('bilevel-gae', [{ ...full(2), terminal: false, values: undefined }]), 'missing-input', /bootstrap/);
    expectCreditError(() => createIncremental('gae').push({ reward: 1 }), 'missing-input', /nextValue/);
  });
  it('refuses parameters out of range, of the wrong type, or unknown', () => {
    expectCreditError(() => computeCredit('gae', [full(1)], { lambda: 1.5 }), 'bad-param', /lambda = 1.5 is outside \[0, 1\]/);
    expectCreditError(() => computeCredit('mc', [full(1)], { gamma: NaN }), 'bad-param', /gamma = NaN/);
    expectCreditError(() => resolveParams('grpo', { divideByStd: 1 }), 'bad-param', /must be a boolean/);
    expectCreditError(() => resolveParams('archer', { beta: 1 }), 'bad-param', /archer has no parameter "beta"/);
    expectCreditError(() => createIncremental('grpo'), 'bad-param', /group-scoped/);
  });
  it('refuses a turn after the terminal one', () => {
    const inc = createIncremental('mc');
    inc.push({ reward: 1, done: true });
    expectCreditError(() => inc.push({ reward: 1 }), 'episode-ended', /turn 1 pushed after the terminal turn/);
  });
});
