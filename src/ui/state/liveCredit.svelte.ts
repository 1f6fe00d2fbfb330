// Live credit for the Play view: which estimators are shown, their parameters (sliders), and the
// per-turn credit of the episode so far, recomputed as each turn lands or a slider moves. The math
// is src/rl/credit; this class only chooses inputs and keeps the person's selection.
import { computeCredit, ESTIMATORS, resolveParams, type EstimatorSpec } from '../../rl/credit/registry.ts';
import type { CreditInputName, CreditParams, EpisodeCreditInput, EstimatorName } from '../../rl/credit/types.ts';
import type { EpisodeTurn, Task } from '../../rl/envs/types.ts';
import { criticInputs, type ScoreApi } from '../../rl/rollout/criticInputs.ts';

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

/** Inputs a live episode supplies from the environment alone, and with the critic loaded. */
const FROM_ENV: ReadonlySet<CreditInputName> = new Set(['rewards']);
const FROM_CRITIC: ReadonlySet<CreditInputName> = new Set(['rewards', 'values', 'tokenOffsets', 'criticLogprobs', 'refLogprobs', 'tokenValues']);

function paramText(spec: EstimatorSpec, params: CreditParams): string {
  return spec.params.map((p) => `${p.label} ${String(params[p.name])}`).join(', ');
}

export class LiveCredit {
  selected = $state<EstimatorName[]>(['mc']);
  params = $state<Record<string, CreditParams>>(Object.fromEntries(ESTIMATORS.map((e) => [e.name, resolveParams(e.name)])));
  /** The critic's inputs (values, log-probs) for the turns so far; null without a critic. */
  critic = $state.raw<EpisodeCreditInput | null>(null);
  criticError = $state<string | null>(null);
  private request = 0;

  constructor(private readonly criticLoaded: () => boolean = () => false) {}

  /** Estimators with what they need to run now, and why the others cannot. */
  readonly choices = $derived(
    ESTIMATORS.map((spec) => {
      const available = this.criticLoaded() ? FROM_CRITIC : FROM_ENV;
      const missing = spec.needs.filter((n) => !available.has(n) && n !== 'group');
      const reason =
        spec.scope === 'group'
          ? 'needs K episodes of the same task (Credit view)'
          : missing.includes('q')
            ? 'needs a Q head; the shipped critic has a value head only'
            : missing.length
              ? `needs ${missing.join(', ')} from the critic (not loaded)`
              : null;
      return { spec, reason };
    }),
  );

  /**
   * Scores the episode so far with the critic (values, critic and reference log-probs) after each
   * turn; a newer call supersedes an older one still running (latest request wins).
   */
  async rescore(engine: ScoreApi, task: Pick<Task, 'prompt' | 'hidden'>, turns: readonly EpisodeTurn[]): Promise<void> {
    const id = ++this.request;
    if (turns.length === 0) {
      this.critic = null;
      return;
    }
    try {
      const [input] = await criticInputs(engine, [{ task, turns }]);
      if (id === this.request) {
        this.critic = input;
        this.criticError = null;
      }
    } catch (e) {
      if (id === this.request) this.criticError = `Critic-based credit unavailable: ${(e as Error).message}`;
    }
  }

  toggle(name: EstimatorName): void {
    this.selected = this.selected.includes(name) ? this.selected.filter((n) => n !== name) : [...this.selected, name];
  }

  setParam(name: EstimatorName, param: string, value: number | boolean): void {
    this.params[name] = { ...this.params[name], [param]: value };
  }

  /** Credit rows for the selected estimators over the turns so far (the episode may be unfinished). */
  rows(turns: readonly EpisodeTurn[]): CreditRow[] {
    if (turns.length === 0) return [];
    const fromEnv: EpisodeCreditInput = { rewards: Float32Array.from(turns, (t) => t.reward), terminal: turns[turns.length - 1].done };
    // The critic's scores lag a turn behind while it works; until they catch up, only reward-based estimators show.
    const input = this.critic && this.critic.rewards.length === turns.length ? this.critic : fromEnv;
    return this.selected.flatMap((name) => {
      const choice = this.choices.find((c) => c.spec.name === name);
      if (!choice || choice.reason) return [];
      if (input === fromEnv && choice.spec.needs.some((n) => !FROM_ENV.has(n))) return [];
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
