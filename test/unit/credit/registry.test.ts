// Every registered estimator spec (credit/registry.ts ESTIMATORS) walked through what follows from it
// (issue #44: an estimator is its module plus one registry line): its words for the views, its
// parameters' defaults, the inputs it says it needs (each one left out fails by name), its batch and
// incremental forms (the batch credit is the fold of the incremental one; a group-scoped estimator
// refuses one episode alone), and where the lab lists it — the Credit view's rewards-only and
// critic rows, and `turnwise credit`'s "all", which refuses what the shipped critic cannot feed.
import { describe, expect, it } from 'vitest';
import { parseEstimators } from '../../../src/cli/commands/credit.ts';
import { computeCredit, createIncremental, ESTIMATOR_NAMES, ESTIMATORS, estimatorSpec, resolveParams } from '../../../src/rl/credit/registry.ts';
import { forEachTurn } from '../../../src/rl/credit/fold.ts';
import type { EpisodeCreditInput } from '../../../src/rl/credit/types.ts';
import { CRITIC_ESTIMATORS, estimatorNeedsCritic, REWARD_ESTIMATORS } from '../../../src/rl/rollout/stored.ts';
import { expectClose, expectCreditError, f32, i32 } from './helpers.ts';

// Every input any estimator reads, on three turns (turn 0 has 2 tokens, turn 1 one, turn 2 three).
const episode: EpisodeCreditInput = {
  rewards: f32([1, 0, 2]),
  values: f32([0.5, 1, 0.5, 0]),
  terminal: true,
  q: f32([1, 0.5, 2]),
  tokenOffsets: i32([0, 2, 3, 6]),
  tokenValues: f32([0.25, 0.5, 1, 0, 1, 0.5]),
  criticLogprobs: f32([-1, -2, -0.5, -1, -1, -3]),
  refLogprobs: f32([-2, -2, -1, -0.5, -1, -1]),
  group: 'task-a',
};

describe.each(ESTIMATORS.map((s) => [s.name, s] as const))('estimator %s', (name, spec) => {
  it('is found by name, and says in words what it is and where it comes from', () => {
    expect(estimatorSpec(name)).toBe(spec);
    expect(spec.label.length).toBeGreaterThan(0);
    expect(spec.source, 'the source names a paper or book').toMatch(/arXiv|Sutton/);
    // the plain-words line the Play view's legend shows: a sentence (it follows the label), not a citation
    expect(spec.description).toMatch(/^\S.{20,}\.$/);
    expect(spec.description).not.toMatch(/arXiv/);
  });

  it('has its defaults inside their ranges, and resolveParams fills them', () => {
    const names = spec.params.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    for (const p of spec.params) {
      expect(p.description.length).toBeGreaterThan(5);
      if (p.type === 'number') expect(p.default >= p.min && p.default <= p.max).toBe(true);
    }
    expect(resolveParams(name)).toEqual(Object.fromEntries(spec.params.map((p) => [p.name, p.default])));
  });

  it('gives one finite credit per turn by name, and per token where it says so', () => {
    const [r] = computeCredit(name, [episode]);
    expect(r.estimator).toBe(name);
    expect(r.perTurn.length).toBe(3);
    expect(r.perTurn.every(Number.isFinite)).toBe(true);
    expect(r.perToken?.length).toBe(spec.perToken ? 6 : undefined);
  });

  it('fails by name without each input it says it needs', () => {
    for (const input of spec.needs) {
      if (input === 'rewards' || input === 'group') continue; // every episode has rewards; a missing group is a group of one
      const without = { ...episode, [input]: undefined };
      expectCreditError(() => computeCredit(name, [without]), 'missing-input', new RegExp(input));
    }
  });

  it(spec.scope === 'group' ? 'refuses an incremental form for one episode' : 'is the fold of its incremental form', () => {
    if (spec.scope === 'group') {
      expectCreditError(() => createIncremental(name), 'bad-param', /group-scoped/);
      return;
    }
    const inc = createIncremental(name, {}, { initialValue: episode.values![0] });
    forEachTurn(episode, (turn) => void inc.push(turn));
    const [batch] = computeCredit(name, [episode]);
    expectClose(inc.result().perTurn, batch.perTurn);
  });

  it('is listed where the lab can compute it, and refused where it cannot', () => {
    const fed = spec.needs.every((n) => n !== 'q');
    expect(REWARD_ESTIMATORS.includes(name)).toBe(fed && !estimatorNeedsCritic(name));
    expect(CRITIC_ESTIMATORS.includes(name)).toBe(fed && estimatorNeedsCritic(name));
    expect(parseEstimators('all', []).includes(name)).toBe(fed);
    if (fed) expect(parseEstimators(name, [])).toEqual([name]);
    else expect(() => parseEstimators(name, [])).toThrow(/Q critic/);
  });
});

describe('the registry', () => {
  it('lists each name once, and the names are the specs', () => {
    expect(new Set(ESTIMATOR_NAMES).size).toBe(ESTIMATORS.length);
    expect([...ESTIMATOR_NAMES]).toEqual(ESTIMATORS.map((s) => s.name));
    expectCreditError(() => estimatorSpec('nope'), 'bad-param', /known: mc, gae/);
  });
});
