// What a credit estimator is, in one object (issue #44): its name and label, the paper and
// equation, a plain-words line for the views, its parameters, the inputs it needs, which past
// credits a new turn can change, and its compute functions (batch and incremental). Each estimator's
// spec sits at the end of its own module (monteCarlo.ts, gae.ts, …); registry.ts lists them, and the
// views, the CLI and the stored-credit readers loop over that list. To add an estimator: write its
// module with a spec, and add one line to registry.ts ESTIMATORS.
import type { CreditInputName, CreditParams, CreditResult, EpisodeCreditInput, IncrementalCredit, IncrementalStart } from './types.ts';

/** A numeric parameter. */
export interface NumberParamSpec {
  type: 'number';
  name: string;
  label: string;
  description: string;
  default: number;
  min: number;
  max: number;
}

/** An on/off parameter. */
export interface BooleanParamSpec {
  type: 'boolean';
  name: string;
  label: string;
  description: string;
  default: boolean;
}

type ParamSpec = NumberParamSpec | BooleanParamSpec;

/** One estimator: what the views and the CLI list, and how its credit is computed. */
export interface EstimatorSpec<N extends string = string> {
  name: N;
  /** Short label for a column header. */
  label: string;
  /** Paper and equation. */
  source: string;
  /** What its credit says about a turn, in words for a person who has not read the papers (the Play view's legend). */
  description: string;
  /** 'episode': computed per episode; 'group': needs the K episodes of a task together. */
  scope: 'episode' | 'group';
  params: readonly ParamSpec[];
  /** Inputs it reads; credit fails with CreditError 'missing-input' without them. */
  needs: readonly CreditInputName[];
  /**
   * True when its credit is 0 on every turn unless the critic carries a trained adapter: SWEET-RL's
   * log-ratio of the critic against its own base (the views hide it, saying why).
   */
  needsAdapter: boolean;
  /** Which credits a new turn can change: all past turns, none, or every episode in the group. */
  changesPast: 'all' | 'none' | 'group';
  /** True when it also gives per-token credit. */
  perToken: boolean;
  /** Batch credit of many episodes (a group-scoped one groups them by `group`), parameters resolved; result i belongs to episodes[i]. */
  batch(episodes: readonly EpisodeCreditInput[], params: CreditParams): CreditResult[];
  /**
   * Its incremental form for one episode, parameters resolved. A group-scoped estimator throws
   * CreditError 'bad-param' naming its group-wise class instead (one episode has no group).
   */
  incremental(params: CreditParams, start: IncrementalStart): IncrementalCredit;
}

/** The discount parameter γ ∈ [0, 1], per turn or per token. */
export const gammaParam = (d: number, what: string): NumberParamSpec => ({
  type: 'number',
  name: 'gamma',
  label: 'γ',
  description: `discount per ${what}`,
  default: d,
  min: 0,
  max: 1,
});
