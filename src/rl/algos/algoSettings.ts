// The settings of the shipped algorithms and the papers' defaults (their specs, specs/*.ts, hold the
// checks, the Train view's fields and the factories), and the learning rates. Sources:
//  - SWEET-RL (arXiv 2503.15478): N = 16 candidate replies per turn, top half vs bottom half paired,
//    DPO β = 0.1 with an NLL term 0.01 on the chosen replies; critic trained with Bradley–Terry on
//    rank pairs of trajectories (§4), which we replace by default with gap pairs (groups.ts).
//  - RAGEN / StarPO(-S) (arXiv 2504.20073): PPO with a critic or GRPO; StarPO-S keeps the 25% of
//    groups with the highest reward spread, clips 0.2 / 0.28 and drops the KL term.
//  - PPO (Schulman et al. 2017): clip 0.2, GAE γ = 1 (episodic), λ = 0.95 at turn level.
import type { TurnReturnCredit } from '../credit/turnReturns.ts';
import type { Pairing } from './groups.ts';
import type { ALGO_SPECS } from './registry.ts';
import type { AlgoSpec } from './spec.ts';

/** SWEET-RL: critic BT on trajectory pairs, then per-turn DPO on critic-ranked candidates. */
export interface SweetConfig {
  /**
   * How the critic's trajectory pairs are built (groups.ts). 'rank': the i-th best vs the i-th worst
   * episode of a task by realised return, SWEET-RL's construction (arXiv 2503.15478 §4); it ignores
   * the size of the return gap and, with stochastic rewards, prefers a safe mediocre action over an
   * unlucky better one (bandit 59.5 → 8.0%,
   * docs/experiments/2026-11-30-trajectory-pairs-rank-vs-gap.md). 'gap' (default; our deviation for
   * stochastic rewards): ⌊K/2⌋·G pairs in all, drawn over the iteration's G groups with probability
   * ∝ r_i − r_j by the iteration's seeded rng, so the expected signal on an episode is ∝ r_i − mean
   * r; two episodes with the same agent replies are not paired (margin 0 by construction).
   */
  pairing: Pairing;
  /** Bradley–Terry β of the critic's advantage β·mean log(π_critic/π_ref) (credit/sweetAdvantage.ts default). */
  criticBeta: number;
  /**
   * Passes over the critic's trajectory pairs (this iteration's and the replayed ones). 0: the critic
   * stays as loaded (a forged one with its SWEET-RL adapter), the paper's order: critic offline, then actor.
   */
  criticEpochs: number;
  /**
   * Iterations whose trajectory pairs the critic trains on (1: this iteration's only). The paper's
   * critic sees ~15k offline trajectories for 4 epochs; one epoch on one iteration's ~64 pairs learned
   * shortcuts ("fewer turns win": issue #19 point 5). The replay is not checkpointed: a resumed run
   * starts it anew.
   */
  criticReplay: number;
  /**
   * Iterations at the start that train only the critic. The paper trains the critic on the whole
   * offline data first; online, a fresh critic ranks candidates by noise, and DPO on noise pairs
   * moves the policy far (docs/experiments/2026-11-30-grpo-first-runs-and-step-size.md).
   */
  criticWarmup: number;
  /** Pairs need a critic-advantage gap above this (0: any strict gap). */
  minMargin: number;
  /** Agent turns per iteration (drawn from the rollouts) that get N candidate replies. */
  turnsPerIteration: number;
  /** N: candidate replies per sampled turn (paper: 16). */
  candidates: number;
  /** Pairs per turn: rank i vs rank N−1−i for i < this (paper: top half vs bottom half, 4 pairs). */
  pairsPerTurn: number;
  /** DPO β (paper 0.1). */
  beta: number;
  /** NLL coefficient on chosen replies (paper 0.01). */
  nllCoef: number;
  /** Passes over the iteration's DPO pairs. */
  policyEpochs: number;
  /** Pairs per graph run (B = 2P rows). */
  pairBatch: number;
}

/** StarPO: PPO (turn-level GAE from the critic's value head) or GRPO, with StarPO-S's options. */
export interface StarpoConfig {
  /** 'gae': PPO with turn-level GAE from the critic; 'grpo': group-relative episode advantages. */
  advantage: 'gae' | 'grpo';
  /** Share of task groups kept, those with the highest reward spread (StarPO-S: 0.25; 1 keeps all). */
  keepFraction: number;
  /** Skip groups whose returns are all equal (no learning signal; docs/design.md collapse modes). */
  skipZeroSpread: boolean;
  /** GRPO: divide by the group's standard deviation (paper: true; docs/design.md calibration: false). */
  divideByStd: boolean;
  /**
   * grpo: what each turn's base advantage is. 'episode' (GRPO): the episode's group-normalised return on
   * every turn. 'igpo': IGPO's discounted sum of the group's z-normalised turn rewards from the turn on;
   * 'toGo': the turn's return from there on against the group's mean at the same turn index
   * (credit/turnReturns.ts). The latter two tell the turns of one episode apart only through turn
   * rewards (infoGainReward, a person's thumbs): with the outcome alone and episodes of one length,
   * 'toGo' is the episode credit. On guess's lesson 'toGo' with infoGainReward 1 gained +22.3 / +16.0
   * (sampled / greedy, 3 seeds) against the episode credit's +16.7 / +11.3 at 0.1
   * (docs/experiments/2026-12-06-turn-credit-lesson.md).
   */
  turnCredit: 'episode' | TurnReturnCredit;
  /** ε_low of the ratio clip. */
  clipLow: number;
  /** ε_high of the ratio clip (StarPO-S: 0.28). */
  clipHigh: number;
  /** k3 KL-to-reference coefficient (StarPO-S: 0, none). */
  klCoef: number;
  /** GAE discount γ over turns. */
  gamma: number;
  /** GAE λ over turns. */
  lambda: number;
  /** PPO epochs over the iteration's turn rows. */
  epochs: number;
  /** Rows per policy graph run. */
  batch: number;
  /** Value-MSE epochs of the critic per iteration (gae only). */
  valueEpochs: number;
  /**
   * gae: iterations at the start that train only the critic (its LoRA and value-head delta), so the
   * first advantages come from values fitted to this policy's returns: with a frozen head, PPO's
   * first iteration on guess saw value mean 0.49 against return mean 0.77 and reinforced almost
   * everything it sampled (issue #19 point 4). 0 = off.
   */
  criticWarmup: number;
  /**
   * grpo: weight ω of the step-level advantage from anchor-state groups added to each turn's episode
   * advantage (GiGPO, credit/stepGroups.ts); 0 = episode-level credit only. Discounted by gamma.
   */
  stepWeight: number;
  /**
   * grpo: divide each step group's advantages by the group's std, as GiGPO's default. Off by
   * default: a step group's returns often differ only by the 0.01 turn cost, and ÷ std blows that
   * into a full unit of advantage for whatever was one turn shorter (the length bias Dr. GRPO, arXiv
   * 2503.20783, removes by not dividing). Measured on guess (train split,
   * docs/experiments/2026-12-02-turn-level-credit-guess.md): with ÷ std the step credit lowered wasted
   * questions 0.72 → 0.48 but raised early guesses 0.01 → 0.30.
   */
  stepDivideByStd: boolean;
  /**
   * grpo: weight ω of each turn's Monte-Carlo re-roll advantage added to its episode advantage: from
   * the turn's state the current policy re-plays the rest of the episode `rerolls` times keeping the
   * turn it took and `rerolls` times with a fresh turn, A*_t = mean(kept) − mean(fresh) (the
   * counterfactual ground truth's estimator, rollout/counterfactual.ts; issue #19 point c). 0 = off.
   * Costs 2 × rerolls partial episodes per turn; rewards are the environment's (no infoGainReward, no thumbs: UpdateInput.played).
   */
  rerollWeight: number;
  /** M of rerollWeight: re-rolls per turn and kind (≥ 1); pooled, the samples per mean are at least M + 1. */
  rerolls: number;
  /**
   * grpo with rerollWeight: pool the re-roll credit's samples by state within each task group
   * (rollout/pooledReroll.ts): V̂(s) and Q̂ share the returns of every turn that acted in the same
   * state, and re-rolls only top up states and moves seen fewer than M + 1 times. Default on: on
   * the same guess rollouts it took 0.55× the re-rolls and 0.40× the seconds of the per-turn
   * estimator (docs/training.md); false re-rolls every turn 2M times.
   */
  rerollPool: boolean;
  /**
   * Whiten the advantages over the iteration's kept turns, (A − mean)/std (PPO practice: cleanrl's
   * norm_adv). Raw turn-level GAE from a value head that lags the returns is positive almost
   * everywhere (issue #19: value mean 0.49 against return mean 0.77 in iteration 1), so PPO then
   * reinforces nearly everything it sampled. Default on for PPO and StarPO-S; GRPO's group
   * normalisation already centres its advantages.
   */
  whiten: boolean;
  /**
   * Stop the policy's epochs within an iteration once a minibatch's approximate KL from the rollout
   * policy (k3, measured before its step) exceeds 1.5 × targetKl (Stable-Baselines3's PPO rule);
   * 0 = off. Off by default until calibrated on the train split.
   */
  targetKl: number;
}

/** Multi-turn DPO on trajectory pairs (best vs worse episode of the same task). */
export interface MtdpoConfig {
  /** How the trajectory pairs are built, as SweetConfig.pairing ('rank' collapsed bandit 59.5 → 0.5%). */
  pairing: Pairing;
  /** DPO β. */
  beta: number;
  /** NLL coefficient on the chosen trajectory's agent tokens. */
  nllCoef: number;
  /** Passes over the iteration's pairs. */
  epochs: number;
  /** Pairs per graph run. */
  pairBatch: number;
}

/** Rejection fine-tuning: SFT on the agent turns of the episodes it keeps. */
export interface RftConfig {
  /**
   * Which episodes are imitated: 'success' keeps every successful one (81% of guess rollouts, close to
   * imitating itself: issue #19 point 6); 'above-mean' (default) keeps those whose return is above
   * their task group's mean — the better half of each group, e.g. the successes without wasted
   * questions when a whole group succeeds (guess charges each useless question).
   */
  keep: 'success' | 'above-mean';
  /** Passes over the kept turns per iteration. */
  epochs: number;
  /** Rows per graph run. */
  batch: number;
}

/**
 * An algorithm's settings: its name and its config section (spec.ts), one member per registered
 * algorithm (registry.ts), e.g. `{ algo: 'grpo'; starpo: StarpoConfig }`.
 */
export type AlgoSettings = SettingsOf<(typeof ALGO_SPECS)[number]>;
type SettingsOf<S> = S extends AlgoSpec<infer N, infer K, infer C> ? { algo: N } & { [P in K]: C } : never;

export const SWEET_DEFAULTS: SweetConfig = {
  pairing: 'gap',
  criticBeta: 1,
  criticEpochs: 1,
  criticReplay: 1,
  criticWarmup: 0,
  minMargin: 0,
  turnsPerIteration: 8,
  candidates: 16,
  pairsPerTurn: 4,
  beta: 0.1,
  nllCoef: 0.01,
  policyEpochs: 1,
  pairBatch: 4,
};
const STARPO_BASE: StarpoConfig = {
  advantage: 'gae',
  keepFraction: 1,
  skipZeroSpread: true,
  divideByStd: true,
  turnCredit: 'episode',
  clipLow: 0.2,
  clipHigh: 0.2,
  klCoef: 0,
  gamma: 1,
  lambda: 0.95,
  epochs: 1,
  batch: 8,
  valueEpochs: 1,
  criticWarmup: 0,
  stepWeight: 0,
  stepDivideByStd: false,
  rerollWeight: 0,
  rerolls: 2,
  rerollPool: true,
  whiten: true,
  targetKl: 0,
};
/** PPO as StarPO runs it: critic, turn-level GAE, symmetric clip. */
export const PPO_DEFAULTS: StarpoConfig = STARPO_BASE;
/** GRPO: group-normalised episode returns, no critic. */
export const GRPO_DEFAULTS: StarpoConfig = { ...STARPO_BASE, advantage: 'grpo', whiten: false };
/** StarPO-S: PPO with the critic, top 25% groups by spread, clip 0.2 / 0.28, no KL. */
export const STARPO_S_DEFAULTS: StarpoConfig = { ...STARPO_BASE, keepFraction: 0.25, clipHigh: 0.28 };
export const MTDPO_DEFAULTS: MtdpoConfig = { pairing: 'gap', beta: 0.1, nllCoef: 0.01, epochs: 1, pairBatch: 4 };
export const RFT_DEFAULTS: RftConfig = { keep: 'above-mean', epochs: 1, batch: 8 };

/**
 * Default AdamW learning rate of the critics' LoRA adapters (PPO's and StarPO's value critic,
 * SWEET-RL's critic). With A at 1/√d_model, 1e-3 moved the first-generation policy steadily (KL to
 * the base 0.005 → 0.11 over 8 GRPO iterations on guess, no collapse in 16) and lifted bandit's
 * held-out success 59.5% → 87% in 10 iterations; 2e-4 barely moved it (KL:
 * docs/experiments/2026-11-30-grpo-first-runs-and-step-size.md; bandit:
 * docs/experiments/2026-11-30-bandit-four-stage-policy.md; 2e-4: docs/training.md, "Algorithms and defaults").
 */
export const CRITIC_LR = 1e-3;

/**
 * Default policy learning rate of the policy-gradient methods (GRPO, PPO, StarPO) and rejection
 * fine-tuning, calibrated on the train split for the shipped six-f policy (2026-12-03): over 50
 * iterations (seed 1) its 64 validation tasks scored on average 0.87–0.90 at 3e-4 against 0.79–0.85 at
 * 1e-3 on guess (start 0.86; GRPO, GRPO + info-gain, GRPO + re-roll, PPO, StarPO) and 0.93–0.95
 * against 0.88–0.90 on backend (start 0.92; GRPO, StarPO, RFT): at 1e-3 the sharper policy drifted
 * below where it began (docs/experiments/2026-12-03-learning-rate-six-f.md).
 */
export const POLICY_LR = 3e-4;

/**
 * Default policy learning rate of the pairwise, DPO-loss methods (multi-turn DPO and SWEET-RL's
 * actor), as DPO is usually run with a much smaller step than policy gradient. At 1e-3 their
 * training diverged on bandit (gradient norm 25–67× its median, replies 9 → 48 tokens, KL to the
 * base 13 by iteration 5; docs/experiments/2026-11-30-trajectory-pairs-rank-vs-gap.md); their critics
 * keep CRITIC_LR.
 */
export const PAIRWISE_LR = 1e-4;
