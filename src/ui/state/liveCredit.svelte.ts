// Live credit for the Play view: which estimators are shown, their parameters (sliders), and the
// per-turn credit of the episode so far, updated as each turn lands (only that turn is scored by
// the critic) or a slider moves (the stored per-turn inputs are refolded, no model call). The
// incremental bookkeeping is src/rl/rollout/liveCredit.ts, the math src/rl/credit; this class
// keeps the person's selection and makes the result reactive. SWEET-RL's row is centred at each turn's
// state (issue #46; rollout/centredSweet.ts): while it is shown and the critic has an adapter, K candidate
// turns are sampled by the policy at each landed turn's state (centre()), and the row waits for them.
import { criticFailure } from './criticFailure.ts';
import { centredLabel, clampCentre, SWEET_CENTRE_DEFAULT } from '../../rl/credit/centredSweet.ts';
import type { Turn } from '../../rl/envs/turn.ts';
import type { SamplingParams } from '../../rl/runtime/api.ts';
import { PolicyBatchAgent } from '../../rl/rollout/agents.ts';
import { LiveSweetCentring } from '../../rl/rollout/centredSweet.ts';
import type { PolicyClient } from '../engine/policyClient.ts';
import { ESTIMATORS, resolveParams, type EstimatorName } from '../../rl/credit/registry.ts';
import type { CreditInputName, CreditParams } from '../../rl/credit/types.ts';
import type { EpisodeTurn, Task } from '../../rl/envs/types.ts';
import type { ScoreApi } from '../../rl/rollout/criticInputs.ts';
import { LiveEpisodeCredit, type CriticScores } from '../../rl/rollout/liveCredit.ts';
import { paramText } from './creditModel.ts';

/** One estimator's credit for every turn so far. */
export interface GutterRow {
  name: EstimatorName;
  label: string;
  values: Float32Array;
  /** "γ 0.95, λ 0.9" — shown on hover with each number. */
  paramText: string;
  /** The parameters the values were computed with (stored with them). */
  params: CreditParams;
  /** [N] per-token credit over the episode's scored tokens (bi-level GAE, SWEET-RL), cut by TokenLayout.offsets. */
  perToken?: Float32Array;
}

/** The tokens the critic scored, for drawing per-token credit: turn t owns [offsets[t], offsets[t+1]). */
export interface TokenLayout {
  offsets: number[];
  text: string[];
  /** The critic (and adapter) that scored them. */
  version: string;
}

/** The ground truth shown as an outline beside the estimates. */
export interface TruthRow {
  label: string;
  values: Float32Array;
}

/** Inputs a live episode supplies from the environment alone, and with the critic loaded. */
const FROM_ENV: ReadonlySet<CreditInputName> = new Set(['rewards']);
const FROM_CRITIC: ReadonlySet<CreditInputName> = new Set(['rewards', 'values', 'tokenOffsets', 'criticLogprobs', 'refLogprobs', 'tokenValues']);

export class LiveCredit {
  selected = $state<EstimatorName[]>(['mc']);
  params = $state<Record<string, CreditParams>>(Object.fromEntries(ESTIMATORS.map((e) => [e.name, resolveParams(e.name)])));
  /** Turns of the episode whose critic inputs are known (rows() reads the critic's once it covers them all). */
  scored = $state(0);
  /** The critic that scored the latest turn ("critic" or "critic@<adapter>"), null before any. */
  criticVersion = $state<string | null>(null);
  criticError = $state<string | null>(null);
  /** K, the candidate turns sampled per state to centre SWEET-RL (0: the raw log-ratio). */
  centreK = $state(SWEET_CENTRE_DEFAULT);
  /** States of the episode whose K candidates are in (rows() reads SWEET-RL's once they cover every turn). */
  centred = $state(0);
  /** While candidates are sampled: "SWEET-RL: sampling 8 candidates at turn 2 of 3…"; or why centring failed. */
  centreNote = $state<string | null>(null);
  private readonly live = new LiveEpisodeCredit();
  private readonly centring = new LiveSweetCentring();
  private task: Pick<Task, 'prompt' | 'hidden'> | null = null;

  constructor(private readonly criticLoaded: () => boolean = () => false) {}

  /** Estimators with what they need to run now, and why the others cannot. */
  readonly choices = $derived(
    ESTIMATORS.map((spec) => {
      const available = this.criticLoaded() ? FROM_CRITIC : FROM_ENV;
      const missing = spec.needs.filter((n) => !available.has(n) && n !== 'group');
      const reason =
        spec.scope === 'group'
          ? 'needs K episodes of the same task (Credit view)'
          : spec.needsAdapter && this.criticVersion !== null && !this.criticVersion.includes('@')
            ? 'the loaded critic has no SWEET-RL adapter, so its log-ratio against its own base is 0 on every turn'
            : missing.includes('q')
              ? 'needs a Q head; the shipped critic has a value head only'
              : missing.length
                ? `needs ${missing.join(', ')} from the critic (not loaded)`
                : null;
      return { spec, reason };
    }),
  );

  /**
   * Follows the episode after each turn: a new task (or fewer turns) starts over; with a critic,
   * the turns that landed since the last call, normally one, are scored (values, critic and
   * reference log-probs of that turn only).
   */
  async rescore(engine: ScoreApi | null, task: Pick<Task, 'prompt' | 'hidden'>, turns: readonly EpisodeTurn[]): Promise<void> {
    if (task !== this.task || turns.length < this.live.scored) {
      this.live.reset();
      this.task = task;
      this.scored = 0;
    }
    if (!engine || turns.length === 0) return;
    try {
      await this.live.score(engine, { task, turns });
      if (task === this.task) {
        this.scored = this.live.scored;
        this.criticVersion = this.live.criticVersion;
        this.criticError = null;
      }
    } catch (e) {
      if (task === this.task) this.criticError = criticFailure(e as Error);
    }
  }

  /**
   * Samples K candidate turns with the policy (the adapter the episode is played with) at the state of
   * each turn that landed since the last call, and scores them with the critic (its live adapter, as
   * rescore scores the taken turns). Only while SWEET-RL is shown, K > 0 and the critic has an adapter:
   * without one the log-ratio is 0 by construction and nothing is sampled.
   */
  async centre(
    engine: PolicyClient | null,
    play: { adapter: string | null; sampling: Partial<Omit<SamplingParams, 'seed'>> },
    task: Task,
    turns: readonly Turn[],
  ): Promise<void> {
    const sweet = this.choices.find((c) => c.spec.name === 'sweet');
    if (!this.selected.includes('sweet') || sweet?.reason || this.centreK === 0 || this.criticVersion === null || turns.length === 0) return;
    if (!engine) {
      this.centreNote = 'SWEET-RL is centred over candidate turns the policy samples: load the policy (Settings → Models), or set K = 0 for the raw log-ratio';
      return;
    }
    if (this.centring.done >= turns.length && this.centring.sameAs(task, this.centreK)) return;
    const k = this.centreK;
    try {
      const agent = await PolicyBatchAgent.create(engine, { sampling: play.sampling, adapter: play.adapter });
      await this.centring.extend({ agent, critic: engine }, task, turns, {
        k,
        seed: task.spec.seed,
        onState: (done, total) => (this.centreNote = done < total ? `SWEET-RL: sampling ${k} candidates at turn ${done + 1} of ${total}…` : null),
      });
      if (this.centring.sameAs(task, k)) this.centred = this.centring.done;
    } catch (e) {
      this.centreNote = `SWEET-RL could not be centred: ${(e as Error).message}`;
    }
  }

  /** A new K: SWEET-RL's candidates are sampled again over the episode's turns (Play calls centre()). */
  setCentre(k: number): void {
    this.centreK = clampCentre(k);
    this.centred = 0;
  }

  toggle(name: EstimatorName): void {
    this.selected = this.selected.includes(name) ? this.selected.filter((n) => n !== name) : [...this.selected, name];
  }

  setParam(name: EstimatorName, param: string, value: number | boolean): void {
    this.params[name] = { ...this.params[name], [param]: value };
  }

  /** Credit rows for the selected estimators over the turns so far (the episode may be unfinished). */
  rows(turns: readonly EpisodeTurn[]): GutterRow[] {
    return this.rowsOf(this.selected, turns);
  }

  /** Credit rows for every estimator that can run here, selected or not (what a finished episode stores). */
  allRows(turns: readonly EpisodeTurn[]): GutterRow[] {
    return this.rowsOf(
      this.choices.map((c) => c.spec.name),
      turns,
    );
  }

  private rowsOf(names: readonly EstimatorName[], turns: readonly EpisodeTurn[]): GutterRow[] {
    // Read so that a newly scored turn re-derives the rows; until the critic catches up, only reward-based estimators show.
    void this.scored;
    return names.flatMap((name) => {
      const choice = this.choices.find((c) => c.spec.name === name);
      if (!choice || choice.reason) return [];
      const params = this.params[name];
      const out = this.live.credit(name, params, turns);
      if (!out) return [];
      let row: GutterRow = { name, label: choice.spec.label, values: out.result.perTurn, paramText: paramText(choice.spec, params), params: { ...params } };
      if (name === 'sweet') {
        // centred at each state, or left out until its candidates are in; perToken stays the raw log-ratio (tokenStrips.ts aligns it to the bar)
        void this.centred;
        const values =
          this.centreK === 0 ? out.result.perTurn : this.centring.centred(out.result.perTurn, Number(out.result.params.beta), this.task, this.centreK);
        if (!values) return [];
        row = { ...row, label: centredLabel(choice.spec.label, this.centreK), values, params: { ...params, centre: this.centreK } };
      }
      return [out.result.perToken ? { ...row, perToken: out.result.perToken } : row];
    });
  }

  /**
   * The critic's scores of every turn so far (what the finished episode stores so that its credit
   * can be recomputed without the critic), or null until all are scored.
   */
  criticScores(turns: readonly EpisodeTurn[]): CriticScores | null {
    void this.scored;
    return this.live.scores(turns.length);
  }

  /** Where each turn's tokens lie in the rows' perToken arrays, with their text; null until every turn is scored. */
  tokenLayout(turns: readonly EpisodeTurn[]): TokenLayout | null {
    const s = this.criticScores(turns);
    return s ? { offsets: s.tokenOffsets, text: s.tokenText, version: s.version } : null;
  }

  /** Information gain per question (bits) for families that report it, else null. */
  truth(turns: readonly EpisodeTurn[]): TruthRow | null {
    if (!turns.some((t) => typeof t.info.informationGain === 'number')) return null;
    return {
      label: 'information gain (bits)',
      values: Float32Array.from(turns, (t) => (typeof t.info.informationGain === 'number' ? t.info.informationGain : 0)),
    };
  }
}
