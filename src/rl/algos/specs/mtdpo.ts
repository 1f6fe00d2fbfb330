// Multi-turn DPO as a spec (spec.ts): DPO on trajectory pairs, the better vs the worse episode of a
// task (the SWEET-RL paper's baseline; mtdpo.ts).
import * as v from 'valibot';
import { MTDPO_DEFAULTS, PAIRWISE_LR, type MtdpoConfig } from '../algoSettings.ts';
import { PAIRINGS } from '../groups.ts';
import { Mtdpo } from '../mtdpo.ts';
import { oneOf, positive, type AlgoSpec } from '../spec.ts';

export const mtdpoSpec: AlgoSpec<'mtdpo', 'mtdpo', MtdpoConfig> = {
  name: 'mtdpo',
  label: 'multi-turn DPO',
  summary: 'Multi-turn DPO on trajectory pairs (baseline)',
  section: 'mtdpo',
  defaults: MTDPO_DEFAULTS,
  schema: v.looseObject({
    pairing: oneOf(PAIRINGS, (x) => `mtdpo.pairing must be one of ${PAIRINGS.join(', ')}, got ${JSON.stringify(x)}`),
    beta: positive('beta'),
    pairBatch: positive('pairBatch', true),
  }),
  lr: PAIRWISE_LR,
  needsCritic: () => false,
  fields: [],
  describe: () => [],
  create: (ctx, c) => Mtdpo.create(ctx, c),
};
