// Shared types of the credit estimators (docs/design.md "Credit"; issue #6 point 2): what an episode
// offers an estimator, what one turn offers an incremental estimator, and what every estimator
// returns. Plain typed arrays, no classes, so results cross comlink and go to IndexedDB unchanged.
//
// Index conventions (all estimators): t = 0 … T−1 indexes the agent's turns; s_t is the state
// (dialogue so far) before turn t, a_t the agent's message at turn t, r_t the reward that turn
// earned. Token arrays are flat over the whole episode, turn-major: turn t owns tokens
// [tokenOffsets[t], tokenOffsets[t+1]).

// Only a type comes from the registry (the names of its specs), so the cycle registry → estimator
// modules → types.ts → registry exists for the type checker alone and never at run time.
import type { EstimatorName } from './registry.ts';

/** One episode (finished, or a prefix of one still running), as the batch estimators read it (credit/fold.ts cuts it into turns). */
export interface EpisodeCreditInput {
  /** r_t: [T] per-turn rewards. */
  rewards: Float32Array;
  /** V(s_t): [T+1] the value critic's estimate before each turn; values[T] bootstraps a prefix and is treated as 0 when terminal. */
  values?: Float32Array;
  /** True (default) when the episode ended after its last turn; false for a live prefix. */
  terminal?: boolean;
  /** Q(s_t, a_t): [T] a turn-level Q critic (ArCHer). */
  q?: Float32Array;
  /** [T+1] token boundaries: turn t owns tokens [tokenOffsets[t], tokenOffsets[t+1]); tokenOffsets[0] = 0. */
  tokenOffsets?: Int32Array;
  /** [N] per-token values of the agent's tokens (bi-level GAE), N = tokenOffsets[T]. */
  tokenValues?: Float32Array;
  /** [N] log π_critic(token | o_t, hidden): the asymmetric critic's log-probs of the agent's tokens (SWEET-RL). */
  criticLogprobs?: Float32Array;
  /** [N] log π_ref(token | o_t): the reference policy's log-probs of the same tokens (SWEET-RL). */
  refLogprobs?: Float32Array;
  /** Task group (the K episodes of one task) for group-normalised estimators (GRPO). */
  group?: string;
}

/** The inputs an estimator may need; the registry says which. */
export type CreditInputName = 'rewards' | 'values' | 'q' | 'tokenOffsets' | 'tokenValues' | 'criticLogprobs' | 'refLogprobs' | 'group';

/** One completed turn, as an incremental estimator receives it. */
export interface TurnCreditInput {
  /** r_t. */
  reward: number;
  /** V(s_{t+1}): the critic's value of the state after this turn; required unless done (then 0 is used), except by bi-level GAE, which needs it only on the newest turn when a non-terminal prefix is read. */
  nextValue?: number;
  /** True when the episode ended with this turn; no turn may follow. */
  done?: boolean;
  /** Q(s_t, a_t) (ArCHer). */
  q?: number;
  /** [n_t] per-token values of this turn's tokens (bi-level GAE). */
  tokenValues?: Float32Array;
  /** [n_t] log π_critic of this turn's tokens (SWEET-RL). */
  criticLogprobs?: Float32Array;
  /** [n_t] log π_ref of this turn's tokens (SWEET-RL). */
  refLogprobs?: Float32Array;
}

/** Estimator parameters as stored beside a result. */
export type CreditParams = Record<string, number | boolean>;

/** What every estimator returns for one episode. */
export interface CreditResult {
  estimator: EstimatorName;
  /** [T] credit of each turn. */
  perTurn: Float32Array;
  /** [N] credit of each agent token, for estimators that define one (bi-level GAE, SWEET-RL). */
  perToken?: Float32Array;
  /** The parameters used, defaults filled in. */
  params: CreditParams;
}

/** An estimator fed one turn at a time: the one definition of each estimator; its batch form on a prefix is the fold of push() over the prefix's turns. */
export interface IncrementalCredit {
  readonly estimator: EstimatorName;
  /** Turns received so far. */
  readonly turns: number;
  /** Adds one completed turn; returns the index of the earliest turn whose credit changed (turns − 1 if only the new one). */
  push(turn: TurnCreditInput): number;
  /** Credits of all turns so far, in fresh arrays. */
  result(): CreditResult;
}

/** Start of an incremental episode. */
export interface IncrementalStart {
  /** V(s_0): the critic's value before the first turn (GAE, ArCHer); default 0. */
  initialValue?: number;
}
