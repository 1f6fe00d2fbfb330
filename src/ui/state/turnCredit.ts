// The Train view's "Turn-level credit" group (issue #19): which fields of the algorithms' specs
// (src/rl/algos/specs, spec.ts FormField) and of the loop apply to an algorithm and family, the config
// overrides the form's choice stands for, and the run's summary line. Pure, so the form holds no RL logic (docs/style.md point 8) and the mapping is unit-tested.
// The form's overrides go through the same path as the "Config overrides (JSON)" box
// (resolveLoopConfig → overrideConfig → validateLoopConfig); the box is merged over them and wins.
import type { LoopConfig } from '../../rl/algos/config.ts';
import { ALGO_SPECS, algoSpec, sectionOf, type AlgoName } from '../../rl/algos/registry.ts';
import { writeFields, type FormField, type FormValues } from '../../rl/algos/spec.ts';
import type { JsonObject, JsonValue } from '../../rl/envs/types.ts';
import { FAMILIES, type FamilyName } from '../../rl/envs/registry.ts';

/** What the group's fields hold, by field key (each algorithm's spec names its fields: specs/*.ts), plus infoGain. */
export type CreditChoice = FormValues;

/** A field of the group: an algorithm's (its spec's `fields`) or the family's information-gain reward. */
export type CreditField = string;

/** infoGainReward: weight of a question's information gain (bits) in its turn reward; 0 = off. A loop field, for families whose steps report it. */
const INFO_GAIN_FIELD: FormField<{ infoGainReward: number }> = {
  kind: 'number',
  key: 'infoGain',
  label: 'Information-gain reward',
  min: 0,
  step: 0.01,
  testid: 'credit-info-gain',
  help: "each question's expected information gain (bits) × this joins its turn reward for the update (IGPO / ECHO; default 0 = off)",
  read: (c) => c.infoGainReward,
  write: (f) => ({ infoGainReward: f.infoGain as number }),
};

/**
 * The choice that leaves an algorithm's config at its defaults (its spec's defaults, infoGainReward 0):
 * every registered algorithm's fields, read from this algorithm's section where they share it
 * (GRPO's whiten is false, PPO's true) and from their own defaults otherwise (unused until the
 * algorithm changes).
 */
export function defaultCreditChoice(algo: AlgoName): CreditChoice {
  const mine = algoSpec(algo);
  const out: CreditChoice = {};
  for (const spec of ALGO_SPECS as readonly (typeof mine)[]) {
    const section = spec.section === mine.section ? mine.defaults : spec.defaults;
    for (const f of spec.fields) out[f.key] ??= f.read(section);
  }
  out.infoGain = INFO_GAIN_FIELD.read({ infoGainReward: 0 });
  return out;
}

/** Whether a family's steps report info.informationGain (its spec says: envs/family.ts). */
function reportsInformationGain(family: FamilyName): boolean {
  return FAMILIES[family].informationGain;
}

/** The fields (with their specs) that apply to a run of `algo` on `family`: the algorithm's own, then the information-gain reward where the family reports it. */
export function creditFormFields(algo: AlgoName, family: FamilyName): FormField<never>[] {
  return [...(algoSpec(algo).fields as FormField<never>[]), ...(reportsInformationGain(family) ? [INFO_GAIN_FIELD as FormField<never>] : [])];
}

/** The top-level fields that apply to a run of `algo` on `family` (those shown whatever the other fields hold). */
export function creditFields(algo: AlgoName, family: FamilyName): CreditField[] {
  return creditFormFields(algo, family)
    .filter((f) => !f.showIf)
    .map((f) => f.key);
}

/** Whether a field is shown for the current values (its showIf). */
export function fieldShown(f: FormField<never>, values: FormValues): boolean {
  return !f.showIf || f.showIf.is.includes(String(values[f.showIf.key]));
}

/** The config overrides the choice stands for: the applicable fields only, in overrideConfig's shape. */
export function creditOverrides(choice: CreditChoice, algo: AlgoName, family: FamilyName): JsonObject {
  const spec = algoSpec(algo);
  const out: JsonObject = {};
  const section = writeFields(spec.fields, choice);
  if (Object.keys(section).length) out[spec.section] = section;
  if (reportsInformationGain(family)) Object.assign(out, writeFields([INFO_GAIN_FIELD], choice));
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

/** The run's summary line from its resolved config: the algorithm and its turn-level credit, e.g. "GRPO · step credit ω 1 · info-gain 0.05". */
export function creditSummary(c: LoopConfig): string {
  const spec = algoSpec(c.settings.algo);
  const parts = [spec.label, ...spec.describe(sectionOf(c.settings))];
  if (c.infoGainReward > 0) parts.push(`info-gain ${c.infoGainReward}`);
  return parts.join(' · ');
}
