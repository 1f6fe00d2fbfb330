// The Train view's "Turn-level credit" group (issue #19): which credit options of src/rl/algos/algoSettings.ts and config.ts
// apply to an algorithm and family, the config overrides the form's choice stands for, and the run's
// summary line. Pure, so the form holds no RL logic (docs/style.md point 8) and the mapping is unit-tested.
// The form's overrides go through the same path as the "Config overrides (JSON)" box
// (resolveLoopConfig → overrideConfig → validateLoopConfig); the box is merged over them and wins.
import type { LoopConfig } from '../../rl/algos/config.ts';
import { defaultSettings, PPO_DEFAULTS, RFT_DEFAULTS, SWEET_DEFAULTS } from '../../rl/algos/algoSettings.ts';
import type { AlgoName } from '../../rl/algos/types.ts';
import type { FamilyName, JsonObject, JsonValue } from '../../rl/envs/types.ts';

/** What the group's fields hold; each maps to one config field. */
export interface CreditChoice {
  /**
   * GRPO: 'gigpo' adds step-level credit from anchor-state groups (starpo.stepWeight = stepWeight);
   * 'reroll' adds Monte-Carlo re-roll advantages (starpo.rerollWeight = stepWeight, starpo.rerolls = rerolls).
   */
  stepCredit: 'off' | 'gigpo' | 'reroll';
  /** ω of the step-level advantage when stepCredit is not 'off'. */
  stepWeight: number;
  /** M when stepCredit is 'reroll': each state's and move's mean pools at least M + 1 returns. */
  rerolls: number;
  /** infoGainReward: weight of a question's information gain (bits) in its turn reward; 0 = off. */
  infoGain: number;
  /** PPO / StarPO-S: starpo.whiten. */
  whiten: boolean;
  /** PPO / StarPO-S: starpo.targetKl; 0 = off. */
  targetKl: number;
  /** RFT: rft.keep. */
  rftKeep: 'above-mean' | 'success';
  /** SWEET-RL: sweet.criticReplay. */
  criticReplay: number;
  /** SWEET-RL: sweet.criticEpochs. */
  criticEpochs: number;
}

/** A field of the group. */
export type CreditField = 'stepCredit' | 'infoGain' | 'whiten' | 'targetKl' | 'rftKeep' | 'criticReplay' | 'criticEpochs';

/** GiGPO's ω (arXiv 2505.10978 uses 1): the weight a step-credit choice starts at. */
export const GIGPO_WEIGHT = 1;

/** The choice that leaves an algorithm's config at its defaults (algoSettings.ts defaultSettings, infoGainReward 0). */
export function defaultCreditChoice(algo: AlgoName): CreditChoice {
  const s = defaultSettings(algo);
  // an algorithm without a section keeps the others' defaults, unused until the algorithm changes
  const starpo = 'starpo' in s ? s.starpo : PPO_DEFAULTS;
  const sweet = 'sweet' in s ? s.sweet : SWEET_DEFAULTS;
  const rft = 'rft' in s ? s.rft : RFT_DEFAULTS;
  return {
    stepCredit: starpo.stepWeight > 0 ? 'gigpo' : starpo.rerollWeight > 0 ? 'reroll' : 'off',
    stepWeight: starpo.stepWeight > 0 ? starpo.stepWeight : starpo.rerollWeight > 0 ? starpo.rerollWeight : GIGPO_WEIGHT,
    rerolls: starpo.rerolls,
    infoGain: 0,
    whiten: starpo.whiten,
    targetKl: starpo.targetKl,
    rftKeep: rft.keep,
    criticReplay: sweet.criticReplay,
    criticEpochs: sweet.criticEpochs,
  };
}

/**
 * The fields that apply to a run of `algo` on `family`: GRPO's step credit, the information-gain
 * reward for `guess` (the only family whose steps report info.informationGain), and each
 * algorithm's own options.
 */
export function creditFields(algo: AlgoName, family: FamilyName): CreditField[] {
  const own: Record<AlgoName, CreditField[]> = {
    grpo: ['stepCredit'],
    ppo: ['whiten', 'targetKl'],
    starpo: ['whiten', 'targetKl'],
    rft: ['rftKeep'],
    sweet: ['criticReplay', 'criticEpochs'],
    mtdpo: [],
  };
  return [...own[algo], ...(family === 'guess' ? (['infoGain'] as const) : [])];
}

/** The config overrides the choice stands for: the applicable fields only, in overrideConfig's shape. */
export function creditOverrides(choice: CreditChoice, algo: AlgoName, family: FamilyName): JsonObject {
  const fields = new Set(creditFields(algo, family));
  const out: JsonObject = {};
  const section: JsonObject = {};
  if (fields.has('stepCredit')) {
    section.stepWeight = choice.stepCredit === 'gigpo' ? choice.stepWeight : 0;
    section.rerollWeight = choice.stepCredit === 'reroll' ? choice.stepWeight : 0;
    if (choice.stepCredit === 'reroll') section.rerolls = choice.rerolls;
  }
  if (fields.has('whiten')) section.whiten = choice.whiten;
  if (fields.has('targetKl')) section.targetKl = choice.targetKl;
  if (fields.has('rftKeep')) section.keep = choice.rftKeep;
  if (fields.has('criticReplay')) section.criticReplay = choice.criticReplay;
  if (fields.has('criticEpochs')) section.criticEpochs = choice.criticEpochs;
  if (Object.keys(section).length) out[algo === 'grpo' || algo === 'ppo' ? 'starpo' : algo] = section;
  if (fields.has('infoGain')) out.infoGainReward = choice.infoGain;
  return out;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `over` merged into `base` field by field (nested objects too); `over` wins where both set a field. */
export function mergeOverrides(base: JsonObject, over: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const cur = out[k];
    out[k] = isObject(cur) && isObject(v) ? mergeOverrides(cur, v) : v;
  }
  return out;
}

const ALGO_LABEL: Record<AlgoName, string> = { grpo: 'GRPO', ppo: 'PPO', starpo: 'StarPO-S', sweet: 'SWEET-RL', mtdpo: 'multi-turn DPO', rft: 'RFT' };

/** The run's summary line from its resolved config: the algorithm and its turn-level credit, e.g. "GRPO · step credit ω 1 · info-gain 0.05". */
export function creditSummary(c: LoopConfig): string {
  const s = c.settings;
  const parts = [ALGO_LABEL[s.algo]];
  if (s.algo === 'grpo') {
    if (s.starpo.stepWeight > 0) parts.push(`step credit ω ${s.starpo.stepWeight}`);
    if (s.starpo.rerollWeight > 0) parts.push(`re-roll credit ω ${s.starpo.rerollWeight}, M ${s.starpo.rerolls}${s.starpo.rerollPool ? ', pooled by state' : ''}`);
    if (!(s.starpo.stepWeight > 0 || s.starpo.rerollWeight > 0)) parts.push('episode credit');
  }
  if (s.algo === 'ppo' || s.algo === 'starpo') parts.push(s.starpo.whiten ? 'whitened advantages' : 'raw advantages', s.starpo.targetKl > 0 ? `target KL ${s.starpo.targetKl}` : 'no KL early stop');
  if (s.algo === 'rft') parts.push(s.rft.keep === 'success' ? 'keeps every success' : 'keeps above the group mean');
  if (s.algo === 'sweet') parts.push(`critic replay ${s.sweet.criticReplay} × ${s.sweet.criticEpochs} epoch${s.sweet.criticEpochs === 1 ? '' : 's'}`);
  if (c.infoGainReward > 0) parts.push(`info-gain ${c.infoGainReward}`);
  return parts.join(' · ');
}
