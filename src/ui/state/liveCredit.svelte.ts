// Live credit for the Play view: which estimators are shown, their parameters (sliders), and the
// per-turn credit of the episode so far, recomputed as each turn lands or a slider moves. The math
// is src/rl/credit; this class only chooses inputs and keeps the person's selection.
import { computeCredit, ESTIMATORS, resolveParams, type EstimatorSpec } from '../../rl/credit/registry.ts';
import type { CreditInputName, CreditParams, EpisodeCreditInput, EstimatorName } from '../../rl/credit/types.ts';
import type { EpisodeTurn } from '../../rl/envs/types.ts';

/** One estimator's credit for every turn so far. */
export interface CreditRow {
  name: EstimatorName;
  label: string;
  values: Float32Array;
  /** "γ 0.95, λ 0.9" — shown on hover with each number. */
  paramText: string;
}

/** The ground truth shown as an outline beside the estimates. */
export interface TruthRow {
  label: string;
  values: Float32Array;
}

/** Inputs a live episode can supply now; critic-based inputs arrive with the shipped critic. */
const AVAILABLE: ReadonlySet<CreditInputName> = new Set(['rewards']);

function paramText(spec: EstimatorSpec, params: CreditParams): string {
  return spec.params.map((p) => `${p.label} ${String(params[p.name])}`).join(', ');
}

export class LiveCredit {
  selected = $state<EstimatorName[]>(['mc']);
  params = $state<Record<string, CreditParams>>(Object.fromEntries(ESTIMATORS.map((e) => [e.name, resolveParams(e.name)])));

  /** Estimators with what they need to run now, and why the others cannot. */
  readonly choices = ESTIMATORS.map((spec) => {
    const missing = spec.needs.filter((n) => !AVAILABLE.has(n) && n !== 'group');
    const reason = spec.scope === 'group' ? 'needs K episodes of the same task (Credit view)' : missing.length ? `needs ${missing.join(', ')} from the critic` : null;
    return { spec, reason };
  });

  toggle(name: EstimatorName): void {
    this.selected = this.selected.includes(name) ? this.selected.filter((n) => n !== name) : [...this.selected, name];
  }

  setParam(name: EstimatorName, param: string, value: number | boolean): void {
    this.params[name] = { ...this.params[name], [param]: value };
  }

  /** Credit rows for the selected estimators over the turns so far (the episode may be unfinished). */
  rows(turns: readonly EpisodeTurn[]): CreditRow[] {
    if (turns.length === 0) return [];
    const input: EpisodeCreditInput = { rewards: Float32Array.from(turns, (t) => t.reward), terminal: turns[turns.length - 1].done };
    return this.selected.flatMap((name) => {
      const choice = this.choices.find((c) => c.spec.name === name);
      if (!choice || choice.reason) return [];
      const params = this.params[name];
      const [result] = computeCredit(name, [input], params);
      return [{ name, label: choice.spec.label, values: result.perTurn, paramText: paramText(choice.spec, params) }];
    });
  }

  /** Information gain per question (bits) for families that report it, else null. */
  truth(turns: readonly EpisodeTurn[]): TruthRow | null {
    if (!turns.some((t) => typeof t.info.informationGain === 'number')) return null;
    return { label: 'information gain (bits)', values: Float32Array.from(turns, (t) => (typeof t.info.informationGain === 'number' ? t.info.informationGain : 0)) };
  }
}
