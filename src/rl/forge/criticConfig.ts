// Settings of the forge's SWEET-RL critic phase (critic.ts; Zhou et al., arXiv 2503.15478 §4):
// which trajectories are paired, how long Bradley–Terry trains. Kept apart from critic.ts so the
// forge configuration (config.ts) can name them without importing the engine.

/** The SWEET-RL critic phase's settings (ForgeConfig.sweetCritic). */
export interface SweetCriticConfig {
  /** Train-split tasks per family of the mixture whose trajectories are paired. */
  tasks: number;
  /** Sampled (T = 1) episodes of the forged policy per task. */
  policyEpisodes: number;
  /**
   * Re-rolls the policy plays from one random state of each of its episodes (0: none); each episode
   * and its re-rolls share that state's prefix and give one branch pair (criticPairs.ts branchPairs).
   */
  branches: number;
  /**
   * Players whose move replaces the policy's at each branch state, the policy playing on after it
   * (one more member of the branch group each): the expert's move and a random one give the critic
   * the contrasts the policy alone rarely plays, such as asking a question on guess's last turn.
   */
  swaps: ('expert' | 'random')[];
  /** Noise levels of the noisy experts: one episode each per task (the expert and random add one each). */
  noises: number[];
  /**
   * Whether each task's best success is paired against its failed trajectories (SWEET-RL's pairs). false:
   * branch pairs only, every pair two trajectories that share their first turns (criticPairs.ts branchPairs).
   */
  trajectoryPairs: boolean;
  /**
   * What a branch pair's two sides hold: 'trajectory', each branch's whole dialogue (the shared turns
   * cancel, so Σ_t A covers the branch turn and every turn the policy played after it, as SWEET-RL's
   * pairs do); 'turn', the dialogue up to and including the branch turn only, the branch's outcome its
   * label, so Bradley–Terry compares the candidate turns of one state and nothing after them
   * (issue #46's within-state test asks exactly that ranking); branches that played the same turn are
   * one candidate labelled by their mean return, and every two candidates of different labels a pair
   * (criticPairs.ts branchSides).
   */
  branchRows: 'trajectory' | 'turn';
  /**
   * With 'turn' rows: each distinct candidate turn of a branch group is played until it has this many
   * continuations (forced re-rolls that keep the turn, the environment re-seeded; criticPlay.ts
   * playCandidateRerolls), so its label is the mean of M returns, the within-state truth's Q̂, instead of
   * one continuation's outcome (whose reliability on guess's lesson is about 0.3). 1: as played.
   */
  candidateRerolls: number;
  /** At most this many failed trajectories are paired with each task's best. */
  maxRejected: number;
  /** Every this-many-th task's pairs are held out to measure pair accuracy (0: none). */
  heldOutEvery: number;
  /** Passes over the training pairs (SWEET-RL: 4). */
  epochs: number;
  /** Pairs per Bradley–Terry step (2 × this many rows). */
  pairBatch: number;
  /** Peak AdamW learning rate of the adapter (cosine over the epochs to 10%). */
  lr: number;
  /** β of A = β · mean log-ratio (the SWEET-RL trainer's criticBeta; rankings do not depend on it). */
  beta: number;
  /**
   * λ of the ridge on per-token advantages added to the Bradley–Terry loss (model/train/losses.ts):
   * pulls the log-ratio toward 0 on turns the pairs do not contrast, so that levels might compare across
   * states; measured at 0.1–10 it did not reliably improve turn ranking
   * (docs/experiments/2026-12-04-sweet-critic-ridge-and-ceiling.md, "A ridge on the log-ratio"). 0: none.
   */
  ridge: number;
}

/**
 * The `--critic-only` default: ~6k trajectories and ~2.5k pairs were sized to stay within ~15 minutes
 * on 2 cores before swaps; the expert and random swaps add two branches per policy episode and more
 * branch pairs (at 100 tasks: 1,094 training pairs instead of 414, 24 min on 2 loaded cores).
 */
export const DEFAULT_SWEET_CRITIC: SweetCriticConfig = {
  tasks: 300,
  policyEpisodes: 4,
  branches: 3,
  swaps: ['expert', 'random'],
  noises: [0.3, 0.5, 0.7],
  trajectoryPairs: true,
  branchRows: 'trajectory',
  candidateRerolls: 1,
  maxRejected: 3,
  heldOutEvery: 10,
  epochs: 4,
  pairBatch: 8,
  lr: 1e-3,
  beta: 1,
  ridge: 0,
};

/** Seconds-long (tests, --smoke). */
export const SMOKE_SWEET_CRITIC: SweetCriticConfig = {
  tasks: 12,
  policyEpisodes: 2,
  branches: 2,
  swaps: ['expert', 'random'],
  noises: [0.5],
  trajectoryPairs: true,
  branchRows: 'trajectory',
  candidateRerolls: 1,
  maxRejected: 2,
  heldOutEvery: 4,
  epochs: 2,
  pairBatch: 2,
  lr: 1e-3,
  beta: 1,
  ridge: 0,
};
