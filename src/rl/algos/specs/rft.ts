// Rejection fine-tuning as a spec (spec.ts): SFT on the agent turns of the episodes it keeps (rft.ts).
import * as v from 'valibot';
import { POLICY_LR, RFT_DEFAULTS, type RftConfig } from '../algoSettings.ts';
import { Rft } from '../rft.ts';
import { oneOf, sectionField, type AlgoSpec } from '../spec.ts';

export const rftSpec: AlgoSpec<'rft', 'rft', RftConfig> = {
  name: 'rft',
  label: 'RFT',
  summary: 'Rejection fine-tuning: SFT on successful episodes (baseline)',
  section: 'rft',
  defaults: RFT_DEFAULTS,
  schema: v.looseObject({
    keep: oneOf(['success', 'above-mean'], (x) => `rft.keep must be "success" or "above-mean", got ${JSON.stringify(x)}`),
  }),
  lr: POLICY_LR,
  needsCritic: () => false,
  fields: [
    sectionField('keep', {
      kind: 'choice',
      key: 'rftKeep',
      label: 'Imitate',
      testid: 'credit-rft-keep',
      options: [
        { value: 'above-mean', label: "episodes above their group's mean" },
        { value: 'success', label: 'every successful episode' },
      ],
      help: "every success is close to imitating itself (81% of guess rollouts); above the mean keeps each group's better half (default above-mean)",
    }),
  ],
  describe: (c) => [c.keep === 'success' ? 'keeps every success' : 'keeps above the group mean'],
  create: (ctx, c) => Rft.create(ctx, c),
};
