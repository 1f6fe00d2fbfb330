// SWEET-RL as a spec (spec.ts): an asymmetric critic trained with Bradley–Terry on trajectory pairs,
// then per-turn DPO on critic-ranked candidates (Zhou et al. 2025, arXiv 2503.15478 §4; sweet.ts).
import * as v from 'valibot';
import { PAIRWISE_LR, SWEET_DEFAULTS, type SweetConfig } from '../algoSettings.ts';
import { PAIRINGS } from '../groups.ts';
import { numberThat, oneOf, positive, sectionField, type AlgoSpec } from '../spec.ts';
import { Sweet } from '../sweet.ts';

export const sweetSpec: AlgoSpec<'sweet', 'sweet', SweetConfig> = {
  name: 'sweet',
  label: 'SWEET-RL',
  summary: 'SWEET-RL: asymmetric critic (Bradley–Terry), per-turn DPO (Zhou et al. 2025)',
  section: 'sweet',
  defaults: SWEET_DEFAULTS,
  schema: v.pipe(
    v.looseObject({
      pairing: oneOf(PAIRINGS, (x) => `sweet.pairing must be one of ${PAIRINGS.join(', ')}, got ${JSON.stringify(x)}`),
      candidates: v.pipe(
        positive('candidates', true),
        v.check((n) => n >= 2, 'candidates must be at least 2'),
      ),
      criticReplay: positive('criticReplay', true),
      criticEpochs: numberThat(
        (n) => Number.isInteger(n) && n >= 0,
        (x) => `sweet.criticEpochs must be a whole number ≥ 0 (0 keeps the loaded critic), got ${JSON.stringify(x)}`,
      ),
      pairsPerTurn: v.number(),
      beta: positive('beta'),
      pairBatch: positive('pairBatch', true),
    }),
    v.check(
      (s) => s.pairsPerTurn <= Math.floor(s.candidates / 2),
      (i) => `pairsPerTurn ${i.input.pairsPerTurn} exceeds half of the ${i.input.candidates} candidates`,
    ),
  ),
  lr: PAIRWISE_LR,
  needsCritic: () => true,
  fields: [
    sectionField('criticReplay', {
      kind: 'number',
      key: 'criticReplay',
      label: 'Critic replay',
      min: 1,
      step: 1,
      testid: 'credit-critic-replay',
      help: "iterations whose trajectory pairs the critic trains on; the paper's critic sees its whole offline set (SWEET-RL; default 1)",
    }),
    sectionField('criticEpochs', {
      kind: 'number',
      key: 'criticEpochs',
      label: 'Critic epochs',
      min: 0,
      step: 1,
      testid: 'credit-critic-epochs',
      help: 'passes over those pairs per iteration (SWEET-RL trains 4 offline; default 1; 0 keeps the loaded critic, as the paper trains the actor)',
    }),
  ],
  describe: (c) => [`critic replay ${c.criticReplay} × ${c.criticEpochs} epoch${c.criticEpochs === 1 ? '' : 's'}`],
  create: (ctx, c) => Sweet.create(ctx, c),
};
