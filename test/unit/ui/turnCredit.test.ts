// The Train view's "Turn-level credit" group (src/ui/state/turnCredit.ts): which fields apply per
// algorithm and family, how a choice maps to the run's config through resolveLoopConfig (the JSON box
// merged over it and winning), that validateLoopConfig still refuses bad values, and the summary line.
import { describe, expect, it } from 'vitest';
import { resolveLoopConfig, type LoopConfig } from '../../../src/rl/algos/config.ts';
import type { AlgoName } from '../../../src/rl/algos/types.ts';
import type { JsonObject } from '../../../src/rl/envs/types.ts';
import type { FamilyName } from '../../../src/rl/envs/registry.ts';
import { creditFields, creditOverrides, creditSummary, defaultCreditChoice, mergeOverrides, type CreditChoice } from '../../../src/ui/state/turnCredit.ts';

/** The config the Train view resolves: the form's credit choice with the JSON box merged over it. */
function resolve(algo: AlgoName, family: FamilyName, choice: Partial<CreditChoice>, box: JsonObject = {}): LoopConfig {
  const overrides = mergeOverrides(creditOverrides({ ...defaultCreditChoice(algo), ...choice }, algo, family), box);
  return resolveLoopConfig({ algo, family, seed: 1, tasksPerIteration: 8, k: 8, overrides }, undefined);
}

describe('turn-level credit in the Train view', () => {
  it('shows only the fields that apply to the algorithm and family', () => {
    expect(creditFields('grpo', 'guess')).toEqual(['turnCredit', 'stepCredit', 'infoGain']);
    expect(creditFields('grpo', 'bandit')).toEqual(['turnCredit', 'stepCredit']);
    expect(creditFields('ppo', 'bandit')).toEqual(['whiten', 'targetKl']);
    expect(creditFields('starpo', 'guess')).toEqual(['whiten', 'targetKl', 'infoGain']);
    expect(creditFields('rft', 'frozenlake')).toEqual(['rftKeep']);
    expect(creditFields('sweet', 'backend')).toEqual(['criticReplay', 'criticEpochs']);
    expect(creditFields('mtdpo', 'sokoban')).toEqual([]);
    expect(creditFields('mtdpo', 'guess')).toEqual(['infoGain']);
  });

  it('leaves every algorithm at its defaults when nothing is chosen', () => {
    for (const algo of ['grpo', 'ppo', 'starpo', 'rft', 'sweet', 'mtdpo'] as const) {
      for (const family of ['guess', 'bandit'] as const) {
        expect(resolve(algo, family, {})).toEqual(resolveLoopConfig({ algo, family, seed: 1, tasksPerIteration: 8, k: 8 }, undefined));
      }
    }
    expect(defaultCreditChoice('ppo').whiten).toBe(true);
    expect(defaultCreditChoice('grpo').whiten).toBe(false);
  });

  it('maps each field to its config field, and only where it applies', () => {
    const grpo = resolve('grpo', 'guess', { stepCredit: 'gigpo', stepWeight: 0.5, infoGain: 0.05 });
    expect(grpo.settings.algo === 'grpo' && grpo.settings.starpo.stepWeight).toBe(0.5);
    expect(grpo.infoGainReward).toBe(0.05);
    // the weight is kept while step credit is off, but does not reach the config
    const off = resolve('grpo', 'guess', { stepCredit: 'off', stepWeight: 0.5 });
    expect(off.settings.algo === 'grpo' && off.settings.starpo.stepWeight).toBe(0);
    const reroll = resolve('grpo', 'guess', { stepCredit: 'reroll', stepWeight: 0.5, rerolls: 3 });
    expect(reroll.settings.algo === 'grpo' && [reroll.settings.starpo.rerollWeight, reroll.settings.starpo.rerolls, reroll.settings.starpo.stepWeight]).toEqual(
      [0.5, 3, 0],
    );
    expect(grpo.settings.algo === 'grpo' && [grpo.settings.starpo.rerollWeight, grpo.settings.starpo.turnCredit]).toEqual([0, 'episode']);
    const toGo = resolve('grpo', 'guess', { turnCredit: 'toGo', infoGain: 1 });
    expect(toGo.settings.algo === 'grpo' && [toGo.settings.starpo.turnCredit, toGo.infoGainReward]).toEqual(['toGo', 1]);
    // info gain is guess's: another family's run never gets it
    expect(resolve('grpo', 'bandit', { infoGain: 0.05 }).infoGainReward).toBe(0);
    const ppo = resolve('ppo', 'bandit', { whiten: false, targetKl: 0.02, stepCredit: 'gigpo' });
    expect(ppo.settings.algo === 'ppo' && [ppo.settings.starpo.whiten, ppo.settings.starpo.targetKl, ppo.settings.starpo.stepWeight]).toEqual([false, 0.02, 0]);
    const starpo = resolve('starpo', 'bandit', { targetKl: 0.01 });
    expect(starpo.settings.algo === 'starpo' && [starpo.settings.starpo.targetKl, starpo.settings.starpo.keepFraction]).toEqual([0.01, 0.25]);
    const rft = resolve('rft', 'bandit', { rftKeep: 'success' });
    expect(rft.settings.algo === 'rft' && rft.settings.rft.keep).toBe('success');
    const sweet = resolve('sweet', 'bandit', { criticReplay: 4, criticEpochs: 2 });
    expect(sweet.settings.algo === 'sweet' && [sweet.settings.sweet.criticReplay, sweet.settings.sweet.criticEpochs]).toEqual([4, 2]);
  });

  it('merges the JSON box over the form: other fields kept, the box winning a field both set', () => {
    const c = resolve('grpo', 'guess', { stepCredit: 'gigpo', stepWeight: 1, infoGain: 0.05 }, { starpo: { stepWeight: 0.25, divideByStd: false }, lr: 0.002 });
    expect(c.settings.algo === 'grpo' && [c.settings.starpo.stepWeight, c.settings.starpo.divideByStd]).toEqual([0.25, false]);
    expect([c.infoGainReward, c.lr]).toEqual([0.05, 0.002]);
    expect(mergeOverrides({ a: { b: 1, c: 2 }, d: 3 }, { a: { c: 4 }, e: 5 })).toEqual({ a: { b: 1, c: 4 }, d: 3, e: 5 });
  });

  it('is validated by validateLoopConfig like any override', () => {
    expect(() => resolve('ppo', 'bandit', { targetKl: -1 })).toThrow(/targetKl must be a finite number ≥ 0 \(0 = off\), got -1/);
    expect(() => resolve('grpo', 'guess', { infoGain: -0.1 })).toThrow(/infoGainReward must be a finite number ≥ 0/);
    expect(() => resolve('grpo', 'guess', { stepCredit: 'reroll', rerolls: 0 })).toThrow(/rerolls must be a whole number in \[1, 64\], got 0/);
    expect(() => resolve('grpo', 'guess', { turnCredit: 'outcome' })).toThrow(/turnCredit must be "episode", "toGo" or "igpo"/);
    expect(() => resolve('ppo', 'guess', {}, { starpo: { turnCredit: 'igpo' } })).toThrow(/turnCredit needs the grpo advantage/);
    expect(() => resolve('sweet', 'bandit', { criticReplay: 0 })).toThrow(/criticReplay must be a positive integer, got 0/);
  });

  it('says the algorithm and its credit in the run summary', () => {
    expect(creditSummary(resolve('grpo', 'guess', { stepCredit: 'gigpo', stepWeight: 1, infoGain: 0.05 }))).toBe('GRPO · step credit ω 1 · info-gain 0.05');
    expect(creditSummary(resolve('grpo', 'bandit', {}))).toBe('GRPO · episode credit');
    expect(creditSummary(resolve('grpo', 'guess', { turnCredit: 'toGo', infoGain: 1 }))).toBe('GRPO · return-to-go turn credit · info-gain 1');
    expect(creditSummary(resolve('grpo', 'guess', { turnCredit: 'igpo', stepCredit: 'gigpo', stepWeight: 1 }))).toBe(
      'GRPO · IGPO turn credit · step credit ω 1',
    );
    expect(creditSummary(resolve('grpo', 'bandit', { stepCredit: 'reroll', stepWeight: 1, rerolls: 2 }))).toBe(
      'GRPO · re-roll credit ω 1, M 2, pooled by state',
    );
    expect(creditSummary(resolve('ppo', 'bandit', { targetKl: 0.02 }))).toBe('PPO · whitened advantages · target KL 0.02');
    expect(creditSummary(resolve('starpo', 'bandit', { whiten: false }))).toBe('StarPO-S · raw advantages · no KL early stop');
    expect(creditSummary(resolve('rft', 'bandit', { rftKeep: 'success' }))).toBe('RFT · keeps every success');
    expect(creditSummary(resolve('sweet', 'bandit', { criticReplay: 4, criticEpochs: 2 }))).toBe('SWEET-RL · critic replay 4 × 2 epochs');
    expect(creditSummary(resolve('mtdpo', 'guess', { infoGain: 0.1 }))).toBe('multi-turn DPO · info-gain 0.1');
  });
});
