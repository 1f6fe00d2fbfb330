// StarPO-S, PPO and GRPO as specs (spec.ts): RAGEN's StarPO (Wang et al. 2025, arXiv 2504.20073) with
// PPO's critic and turn-level GAE or GRPO's group-normalised returns; one implementation (starpo.ts)
// and one config section, 'starpo', with each algorithm's own defaults.
import * as v from 'valibot';
import { GRPO_DEFAULTS, POLICY_LR, PPO_DEFAULTS, STARPO_S_DEFAULTS, type StarpoConfig } from '../algoSettings.ts';
import { numberThat, offOrPositive, positive, sectionField, type AlgoSpec, type FormField } from '../spec.ts';
import { Starpo } from '../starpo.ts';

/** GiGPO's ω (arXiv 2505.10978 uses 1): the weight a step-credit choice starts at. */
const GIGPO_WEIGHT = 1;

/** Each turn credit (StarpoConfig.turnCredit): its line in the form and its words in a run's description. */
const TURN_CREDITS: Record<StarpoConfig['turnCredit'], { option: string; describe: string[] }> = {
  episode: { option: "episode: every turn gets its episode's group advantage (GRPO)", describe: [] },
  toGo: { option: 'from the turn on: its return from there against the same turn of the group', describe: ['return-to-go turn credit'] },
  igpo: { option: "IGPO: the group's z-normalised turn rewards summed from the turn on", describe: ['IGPO turn credit'] },
};
const turnCredits = Object.keys(TURN_CREDITS) as StarpoConfig['turnCredit'][];
const quoted = turnCredits.map((c) => `"${c}"`);

const schema = v.pipe(
  v.looseObject({
    advantage: v.string(),
    turnCredit: v.picklist(turnCredits, `turnCredit must be ${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`),
    keepFraction: numberThat(
      (x) => x > 0 && x <= 1,
      (x) => `keepFraction must lie in (0, 1], got ${String(x)}`,
    ),
    clipLow: v.number(),
    clipHigh: v.number(),
    batch: positive('batch', true),
    criticWarmup: numberThat(
      (x) => Number.isInteger(x) && x >= 0,
      (x) => `criticWarmup must be a whole number ≥ 0, got ${String(x)}`,
    ),
    stepWeight: offOrPositive('stepWeight'),
    targetKl: offOrPositive('targetKl'),
    rerollWeight: offOrPositive('rerollWeight'),
    rerolls: numberThat(
      (x) => Number.isInteger(x) && x >= 1 && x <= 64,
      (x) => `rerolls must be a whole number in [1, 64], got ${String(x)}`,
    ),
  }),
  v.check(
    (s) => s.clipLow > 0 && s.clipLow < 1 && s.clipHigh > 0,
    (i) => `clip range must be 0 < clipLow < 1 and clipHigh > 0, got ${i.input.clipLow} / ${i.input.clipHigh}`,
  ),
  v.check((s) => !(s.criticWarmup > 0 && s.advantage !== 'gae'), 'criticWarmup needs the critic (PPO / StarPO-S); GRPO has none'),
  v.check(
    (s) => !(s.stepWeight > 0 && s.advantage !== 'grpo'),
    'stepWeight (step-level GiGPO credit) needs the grpo advantage; PPO credits turns through its critic',
  ),
  v.check((s) => !(s.turnCredit !== 'episode' && s.advantage !== 'grpo'), 'turnCredit needs the grpo advantage; PPO credits turns through its critic'),
  v.check(
    (s) => !(s.rerollWeight > 0 && s.advantage !== 'grpo'),
    'rerollWeight (Monte-Carlo re-roll credit) needs the grpo advantage; PPO credits turns through its critic',
  ),
);

/** GRPO's base advantage per turn (turnCredit), then its step credit: off, GiGPO's anchor-state groups or Monte-Carlo re-rolls, each weighted by ω. */
const stepCreditFields: FormField<StarpoConfig>[] = [
  sectionField('turnCredit', {
    kind: 'choice',
    key: 'turnCredit',
    label: 'Turn advantage',
    testid: 'credit-turn',
    options: turnCredits.map((value) => ({ value, label: TURN_CREDITS[value].option })),
    help: 'the last two tell turns of one episode apart by their turn rewards (the information-gain reward, thumbs); default episode',
  }),
  {
    kind: 'choice',
    key: 'stepCredit',
    label: 'Step credit',
    testid: 'credit-step',
    options: [
      { value: 'off', label: 'off: episode-level advantages only' },
      { value: 'gigpo', label: 'GiGPO step groups, weight ω' },
      { value: 'reroll', label: 'Monte-Carlo re-rolls, weight ω' },
    ],
    help: "GiGPO: turns acting on the same history within a group are compared by their return from there on (arXiv 2505.10978). Re-rolls: from each turn's state the policy plays the rest M times keeping its turn and M times afresh; the difference of the mean returns is the turn's advantage (slower: 2M partial episodes per turn). Default off.",
    read: (c) => (c.stepWeight > 0 ? 'gigpo' : c.rerollWeight > 0 ? 'reroll' : 'off'),
    write: (f) => ({
      stepWeight: f.stepCredit === 'gigpo' ? Number(f.stepWeight) : 0,
      rerollWeight: f.stepCredit === 'reroll' ? Number(f.stepWeight) : 0,
      ...(f.stepCredit === 'reroll' ? { rerolls: Number(f.rerolls) } : {}),
    }),
  },
  {
    kind: 'number',
    key: 'stepWeight',
    label: 'Step weight ω',
    min: 0,
    step: 0.1,
    testid: 'credit-step-weight',
    showIf: { key: 'stepCredit', is: ['gigpo', 'reroll'] },
    help: "added to the episode advantage (GiGPO's default 1)",
    read: (c) => (c.stepWeight > 0 ? c.stepWeight : c.rerollWeight > 0 ? c.rerollWeight : GIGPO_WEIGHT),
    write: () => ({}),
  },
  {
    kind: 'number',
    key: 'rerolls',
    label: 'Re-rolls M',
    min: 1,
    max: 64,
    step: 1,
    testid: 'credit-rerolls',
    showIf: { key: 'stepCredit', is: ['reroll'] },
    help: "a state's and a move's returns are topped up to M + 1",
    read: (c) => c.rerolls,
    write: () => ({}),
  },
];

/** PPO's and StarPO-S's advantage options. */
const ppoFields: FormField<StarpoConfig>[] = [
  sectionField('whiten', {
    kind: 'boolean',
    key: 'whiten',
    label: 'Whiten advantages',
    testid: 'credit-whiten',
    help: "(A − mean)/std over the iteration's turns, as cleanrl's norm_adv (default on)",
  }),
  sectionField('targetKl', {
    kind: 'number',
    key: 'targetKl',
    label: 'Target KL',
    min: 0,
    step: 0.005,
    testid: 'credit-target-kl',
    help: "stop the epochs once a minibatch's KL exceeds 1.5 × this (Stable-Baselines3's PPO rule; default 0 = off)",
  }),
];

const ppoWords = (c: StarpoConfig): string[] => [
  c.whiten ? 'whitened advantages' : 'raw advantages',
  c.targetKl > 0 ? `target KL ${c.targetKl}` : 'no KL early stop',
];

export const starpoSpec: AlgoSpec<'starpo', 'starpo', StarpoConfig> = {
  name: 'starpo',
  label: 'StarPO-S',
  summary: 'StarPO-S: PPO with critic, top 25% groups by spread, clip 0.2/0.28, no KL (RAGEN)',
  section: 'starpo',
  defaults: STARPO_S_DEFAULTS,
  schema,
  lr: POLICY_LR,
  needsCritic: (c) => c.advantage === 'gae',
  fields: ppoFields,
  describe: ppoWords,
  create: (ctx, c) => Starpo.create(ctx, 'starpo', c),
};

export const grpoSpec: AlgoSpec<'grpo', 'starpo', StarpoConfig> = {
  name: 'grpo',
  label: 'GRPO',
  summary: 'GRPO: group-normalised episode returns, no critic',
  section: 'starpo',
  defaults: GRPO_DEFAULTS,
  schema,
  lr: POLICY_LR,
  needsCritic: (c) => c.advantage === 'gae',
  fields: stepCreditFields,
  describe: (c) => [
    ...TURN_CREDITS[c.turnCredit].describe,
    ...(c.stepWeight > 0 ? [`step credit ω ${c.stepWeight}`] : []),
    ...(c.rerollWeight > 0 ? [`re-roll credit ω ${c.rerollWeight}, M ${c.rerolls}${c.rerollPool ? ', pooled by state' : ''}`] : []),
    ...(c.stepWeight > 0 || c.rerollWeight > 0 || c.turnCredit !== 'episode' ? [] : ['episode credit']),
  ],
  create: (ctx, c) => Starpo.create(ctx, 'grpo', c),
};

export const ppoSpec: AlgoSpec<'ppo', 'starpo', StarpoConfig> = {
  name: 'ppo',
  label: 'PPO',
  summary: 'PPO with turn-level GAE from the value head',
  section: 'starpo',
  defaults: PPO_DEFAULTS,
  schema,
  lr: POLICY_LR,
  needsCritic: (c) => c.advantage === 'gae',
  fields: ppoFields,
  describe: ppoWords,
  create: (ctx, c) => Starpo.create(ctx, 'ppo', c),
};
