// The algorithm registry (src/rl/algos/registry.ts, spec.ts): an algorithm is its spec plus one
// registry line, so the Train view's form, the CLI's usage, the config checks, the defaults, the
// learning rate, the critic and the factory must all follow from the specs. This walks every
// registered spec through each of those, and a toy spec through the helpers a new one would use.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { train } from '../../../src/cli/commands/train.ts';
import { defaultLoopConfig, overrideConfig, validateLoopConfig } from '../../../src/rl/algos/config.ts';
import { ALGO_NAMES, ALGO_SPECS, algoSpec, defaultLr, defaultSettings, needsCritic, sectionOf } from '../../../src/rl/algos/registry.ts';
import { firstIssue, positive, sectionField, writeFields, type AlgoSpec } from '../../../src/rl/algos/spec.ts';
import { creditFields, creditFormFields, creditOverrides, creditSummary, defaultCreditChoice } from '../../../src/ui/state/turnCredit.ts';

describe('the algorithm registry', () => {
  it('names every spec once, in order', () => {
    expect(ALGO_NAMES).toEqual(ALGO_SPECS.map((s) => s.name));
    expect(new Set(ALGO_NAMES).size).toBe(ALGO_NAMES.length);
    expect(() => algoSpec('nope')).toThrow(/unknown algorithm "nope" \(known: sweet, starpo/);
  });

  describe.each(ALGO_SPECS.map((s) => [s.name, s as AlgoSpec] as const))('%s', (name, spec) => {
    it('gives the defaults, learning rate and critic of its spec', () => {
      const settings = defaultSettings(name);
      expect(sectionOf(settings)).toEqual(spec.defaults);
      expect(sectionOf(settings)).not.toBe(spec.defaults); // a copy: a run never edits the spec
      expect(defaultLr(name)).toBe(spec.lr);
      expect(needsCritic(settings)).toBe(spec.needsCritic(spec.defaults));
      expect(defaultLoopConfig(name, 'bandit').lr).toBe(spec.lr);
    });

    it('validates its section with its schema', () => {
      expect(firstIssue(spec.schema, spec.defaults)).toBeNull();
      const config = defaultLoopConfig(name, 'bandit');
      expect(validateLoopConfig(config)).toBe(config);
      const broken = { ...config, settings: { algo: name, [spec.section]: 'not an object' } } as unknown as typeof config;
      const issue = firstIssue(spec.schema, 'not an object');
      expect(issue).not.toBeNull();
      expect(() => validateLoopConfig(broken)).toThrow(issue!);
      // --config reaches its section by the spec's name for it, and no other algorithm's
      expect(() => overrideConfig(config, { [spec.section]: { nope: 1 } })).toThrow(`unknown config field "${spec.section}.nope"`);
      const other = ALGO_SPECS.find((s) => s.section !== spec.section)!;
      expect(() => overrideConfig(config, { [other.section]: {} })).toThrow(`config section "${other.section}" does not belong to --algo ${name}`);
    });

    it('draws its Train-view fields, and the form stands for its defaults', () => {
      expect(creditFormFields(name, 'bandit')).toEqual(spec.fields);
      expect(creditFields(name, 'bandit')).toEqual(spec.fields.filter((f) => !f.showIf).map((f) => f.key));
      for (const f of spec.fields) expect([f.label, f.help, f.testid].every((s) => s.length > 0)).toBe(true);
      const choice = defaultCreditChoice(name);
      for (const f of spec.fields) expect(choice[f.key]).toBe(f.read(spec.defaults));
      const over = creditOverrides(choice, name, 'bandit');
      const config = overrideConfig(defaultLoopConfig(name, 'bandit'), over);
      expect(sectionOf(config.settings)).toEqual(spec.defaults);
      expect(creditSummary(config).startsWith(spec.label)).toBe(true);
    });

    it('is in the CLI usage with its summary and its section', () => {
      expect(train.usage).toContain(`  ${name.padEnd(7)}${spec.summary}`);
      expect(train.usage).toContain(`"${spec.section}": ${JSON.stringify(spec.defaults)}`);
      expect(train.usage).toMatch(new RegExp(`--algo [a-z|]*\\b${name}\\b`));
    });
  });

  it('builds a toy spec from the helpers a new algorithm uses', () => {
    interface Toy {
      steps: number;
      loud: boolean;
    }
    const toy: AlgoSpec<'toy', 'toy', Toy> = {
      name: 'toy',
      label: 'Toy',
      summary: 'a toy',
      section: 'toy',
      defaults: { steps: 2, loud: false },
      schema: v.looseObject({ steps: positive('steps', true) }),
      lr: 1e-4,
      needsCritic: () => false,
      fields: [
        sectionField('steps', {
          kind: 'number',
          key: 'toySteps',
          label: 'Steps',
          step: 1,
          min: 1,
          testid: 'credit-toy-steps',
          help: 'steps per iteration (default 2)',
        }),
        sectionField('loud', { kind: 'boolean', key: 'loud', label: 'Loud', testid: 'credit-loud', help: 'say more (default off)' }),
      ],
      describe: (c) => [`${c.steps} steps`],
      create: () => Promise.reject(new Error('a toy')),
    };
    expect(toy.fields.map((f) => f.read(toy.defaults))).toEqual([2, false]);
    expect(writeFields(toy.fields, { toySteps: 3, loud: true })).toEqual({ steps: 3, loud: true });
    expect(firstIssue(toy.schema, { steps: 0 })).toBe('steps must be a positive integer, got 0');
    expect(firstIssue(toy.schema, { steps: 3 })).toBeNull();
  });
});
