// The validation guard's second draw (validation.ts ValidationGuard.confirm): a gain over the best
// adapters is taken only if it holds when both sides' sampled episodes are played again with fresh
// seeds. The host here plays scripted outcomes per adapter and draw, so each case is exact.
import { describe, expect, it } from 'vitest';
import { defaultLoopConfig, overrideConfig } from '../../../src/rl/algos/config.ts';
import type { LearnerState } from '../../../src/rl/algos/types.ts';
import { ValidationGuard, type ValidationHost, type ValidationPlay } from '../../../src/rl/algos/validation.ts';

const TASKS = 128;

/** Successes on tasks [from, from + count), failures elsewhere. */
function wins(from: number, count: number): number[] {
  return Array.from({ length: TASKS }, (_, i) => (i >= from && i < from + count ? 1 : 0));
}

/** A learner state that names its adapters (the guard only stores, loads and compares them). */
function stateOf(name: string): LearnerState[] {
  return [{ target: 'policy', spec: { rank: 1, alpha: 1, targets: [] }, trainer: { step: 0, tensors: {} }, dims: { [name]: [] } } as unknown as LearnerState];
}

/** Every adapter's greedy episodes win the same 110 tasks (greedy play is the same in every draw). */
const GREEDY = wins(0, 110);

/**
 * A guard whose host plays adapters `name` as `sampled[name][draw]` (draw 0 when a draw is not
 * scripted) and GREEDY greedy, and lists the plays as "name@draw"; begun on the adapters "start",
 * then trained to the adapters "tuned" (`train(name)` moves on to others).
 */
function trained(sampled: Record<string, Record<number, number[]>>, validateBar: 'best' | 'start' = 'best') {
  let current = 'start';
  const plays: string[] = [];
  const host: ValidationHost = {
    states: () => stateOf(current),
    load: (s) => (current = Object.keys(s[0].dims)[0]),
    play: async (draw): Promise<ValidationPlay> => {
      plays.push(`${current}@${draw}`);
      const s = sampled[current][draw] ?? sampled[current][0];
      return { outcomes: s.map((x, i) => (x + GREEDY[i]) / 2), sampled: s, greedy: GREEDY };
    },
  };
  const guard = new ValidationGuard(host, { validateEvery: 8, validateDrop: 0.05, validateBar });
  guard.begin(0);
  current = 'tuned';
  return { guard, plays, loaded: () => Object.keys(host.states()[0].dims)[0], train: (name: string) => (current = name) };
}

describe('validation guard: the second draw', () => {
  it("does not take a gain that came from the best adapters' unlucky first draw", async () => {
    // the start's first sampled draw wins 100 tasks, the candidate's 108 (a gain past 2 standard
    // errors); played again, both win 104 (different tasks), so the lead was the first draw's luck
    const { guard, plays, loaded } = trained({ start: { 0: wins(0, 100), 8: wins(0, 104) }, tuned: { 0: wins(0, 108), 8: wins(10, 104) } });
    const v = await guard.check(8);
    expect(v?.confirmation).toMatchObject({ against: 0, held: false });
    expect(v?.confirmation?.candidate).toBeGreaterThan(v?.confirmation?.reference ?? 1);
    expect(plays).toEqual(['tuned@0', 'start@0', 'tuned@8', 'start@8']);
    // the best stays the start, now scored over both its draws; the run ends on it and says why
    expect(guard.best?.iteration).toBe(0);
    expect(guard.best?.outcomes[100]).toBe(0.75);
    const end = await guard.finish(8);
    expect(end).toMatchObject({ kind: 'kept' });
    expect(end?.kind === 'kept' && end.warning).toMatch(
      /^kept the adapters of iteration 0, .*: the final adapters scored \d+%, a gain not confirmed on a second draw of the sampled episodes \(over both draws [\d.]+% against [\d.]+% for the adapters of iteration 0\)$/,
    );
    expect(loaded()).toBe('start');
  });

  it('takes a gain that holds on the second draw, scored over both', async () => {
    const { guard, loaded } = trained({ start: { 0: wins(0, 96), 16: wins(5, 95) }, tuned: { 0: wins(0, 115), 16: wins(0, 116) } });
    const v = await guard.check(16);
    expect(v?.confirmation).toMatchObject({ against: 0, held: true });
    expect(guard.best?.iteration).toBe(16);
    expect(guard.best?.outcomes[115]).toBe(0.5 * 0 + 0.5 * 0.5);
    expect(guard.best?.outcomes[0]).toBe(1);
    expect(await guard.finish(16)).toBeNull();
    expect(loaded()).toBe('tuned');
  });

  it('plays no second draw when there is no gain to confirm', async () => {
    const { guard, plays } = trained({ start: { 0: wins(0, 100) }, tuned: { 0: wins(0, 101) } });
    const v = await guard.check(8);
    expect(v?.confirmation).toBeUndefined();
    expect(plays).toEqual(['tuned@0', 'start@0']);
  });
});

describe("validation guard: the bar 'start'", () => {
  // the start wins 96 sampled tasks, "tuned" 112 (clearly more), "later" 115: 3 more than "tuned",
  // short of 2 paired standard errors (3 tasks' differences among 128 give a standard error of
  // about 0.0067 on a mean gain of 0.0117 in outcome units, i.e. 1.75 standard errors)
  const plays = { start: { 0: wins(0, 96) }, tuned: { 0: wins(0, 112) }, later: { 0: wins(0, 115) } };

  it("takes later adapters on a higher mean over both draws once the start is beaten ('start')", async () => {
    const { guard, loaded, train } = trained(plays, 'start');
    expect((await guard.check(8))?.confirmation).toMatchObject({ against: 0, held: true });
    train('later');
    expect((await guard.check(16))?.confirmation).toMatchObject({ against: 8, held: true });
    expect(guard.best).toMatchObject({ iteration: 16, cleared: true });
    expect(await guard.finish(16)).toBeNull();
    expect(loaded()).toBe('later');
  });

  it("keeps the first adapters past the start while later ones are not 2 standard errors above them ('best')", async () => {
    const { guard, loaded, train } = trained(plays, 'best');
    await guard.check(8);
    train('later');
    expect((await guard.check(16))?.confirmation).toBeUndefined();
    const end = await guard.finish(16);
    expect(end?.kind === 'kept' && end.warning).toMatch(/^kept the adapters of iteration 8, .*not 2 standard errors above them$/);
    expect(loaded()).toBe('tuned');
  });

  it("still asks 2 standard errors of a gain over the start ('start')", async () => {
    const { guard, loaded } = trained({ start: { 0: wins(0, 96) }, tuned: { 0: wins(0, 99) } }, 'start');
    expect((await guard.check(8))?.confirmation).toBeUndefined();
    expect(guard.best).toMatchObject({ iteration: 0 });
    expect(guard.best?.cleared).toBeUndefined();
    expect(await guard.finish(8)).toMatchObject({ kind: 'kept', iteration: 0 });
    expect(loaded()).toBe('start');
  });

  it("does not take later adapters whose lead fails on the second draw ('start')", async () => {
    const { guard, loaded, train } = trained({ ...plays, later: { 0: wins(0, 115), 16: wins(0, 100) } }, 'start');
    await guard.check(8);
    train('later');
    expect((await guard.check(16))?.confirmation).toMatchObject({ against: 8, held: false });
    const end = await guard.finish(16);
    expect(end?.kind === 'kept' && end.warning).toMatch(/a gain not confirmed on a second draw/);
    expect(loaded()).toBe('tuned');
  });

  it('is set by name in --config and refuses any other', () => {
    const base = defaultLoopConfig('grpo', 'guess');
    expect(base.rollback.validateBar).toBe('best');
    expect(overrideConfig(base, { rollback: { validateBar: 'start' } }).rollback.validateBar).toBe('start');
    expect(() => overrideConfig(base, { rollback: { validateBar: 'last' } })).toThrow(/rollback.validateBar must be 'best' or 'start', got "last"/);
  });
});
