// SWEET-RL's critic data (Zhou et al., arXiv 2503.15478, §4 and its released training scripts):
// trajectories of the same task from many policies are paired, each task's best successful
// trajectory (highest return) against each failed one, and the critic is trained with
// Bradley–Terry on L = −log σ(Σ_t A(chosen_t) − Σ_t A(rejected_t)) (eq. 4). This module is the
// pure part: which episodes pair, and which tasks are held out to measure pair accuracy.
// Ties in return are broken by episode index, never by length: a "shorter wins" rule would teach
// the critic the very shortcut issue #19 point 5 measured.
import { Rng } from '../util/rng.ts';

/** What pairing reads of an episode. */
export interface PairEpisode {
  /** Index of the task (episodes of one task share it). */
  task: number;
  /** Return Σ_t r_t. */
  reward: number;
  success: boolean;
}

/** A trajectory pair: indices into the episode list, [chosen, rejected]. */
export type TrajectoryPair = [number, number];

/**
 * Per task: the successful episode of highest return (ties: lowest index) against each failed
 * episode of the same task, at most `maxRejected` of them (a seeded sample, so no task with many
 * failures dominates). Tasks without a success give no pair, as in SWEET-RL.
 */
export function sweetPairs(episodes: readonly PairEpisode[], maxRejected: number, seed: number | string): TrajectoryPair[] {
  const byTask = new Map<number, number[]>();
  episodes.forEach((e, i) => {
    const list = byTask.get(e.task) ?? [];
    list.push(i);
    byTask.set(e.task, list);
  });
  const rng = new Rng(`critic-pairs/${seed}`);
  const pairs: TrajectoryPair[] = [];
  for (const task of [...byTask.keys()].sort((a, b) => a - b)) {
    const idx = byTask.get(task) as number[];
    let best = -1;
    for (const i of idx) if (episodes[i].success && (best < 0 || episodes[i].reward > episodes[best].reward)) best = i;
    if (best < 0) continue;
    let failed = idx.filter((i) => !episodes[i].success);
    if (failed.length > maxRejected)
      failed = rng
        .fork(`task ${task}`)
        .shuffle(failed)
        .slice(0, maxRejected)
        .sort((a, b) => a - b);
    for (const i of failed) pairs.push([best, i]);
  }
  return pairs;
}

/**
 * Branch pairs: per group of trajectories that share their first turns (an episode and the re-rolls
 * played from one of its states, by the policy or from another player's move there), the member of
 * highest return against each member of lower return (ties: lowest index first). The shared turns are
 * the same tokens under the same reference, so their advantages cancel in the Bradley–Terry
 * difference and the pair's whole signal falls on the turns that differ, starting with the one choice
 * the branches made differently — the turn-level contrast that best-against-failed pairs of whole
 * trajectories leave to chance (there, a critic can separate the sides by how the whole dialogue
 * looks). Against each worse member, not only the worst: a group with the expert's and a random
 * player's move at the same state would otherwise pair just those two, and the policy's own choices
 * there would teach nothing.
 */
export function branchPairs(groups: readonly (readonly number[])[], reward: (episode: number) => number): TrajectoryPair[] {
  const pairs: TrajectoryPair[] = [];
  for (const g of groups) {
    let best = g[0];
    for (const i of g) if (reward(i) > reward(best) || (reward(i) === reward(best) && i < best)) best = i;
    for (const i of [...g].sort((a, b) => a - b)) if (reward(i) < reward(best)) pairs.push([best, i]);
  }
  return pairs;
}

/** Branch pairs as Bradley–Terry will see them (SweetCriticConfig.branchRows), over `episodes` played episodes. */
export interface BranchSides {
  /** The pairs, each side a row key: an episode index ('trajectory'), or episodes + index for a cut episode ('turn'). */
  pairs: TrajectoryPair[];
  /** Turns a cut row keeps (the branch turn's index + 1), by row key; absent: the whole episode. */
  cutAfter: Map<number, number>;
  /** The episode behind a row key. */
  episodeOf: (key: number) => number;
}

/**
 * The branch pairs of `groups` (branchPairs) with their sides as rows: with 'trajectory' each side is its
 * whole episode; with 'turn' it is the episode cut after the turn its group parts at, keyed apart from
 * the whole episode (which a trajectory pair may also use), so the pair compares two candidate turns of
 * one state and the outcome each led to is the label. With 'turn', the members of a group that played the
 * same candidate turn (`branchTurn`, its text; the policy repeats itself often) are one side whose label is
 * the mean return of all of them: a label from several continuations instead of one, and no pair of two
 * identical rows, which carries no signal and which pairAccuracy counts as wrong; and every two candidates
 * whose labels differ are a pair, not only the best against the rest.
 */
export function branchSides(
  groups: readonly { members: readonly number[]; turn: number }[],
  reward: (episode: number) => number,
  rows: 'trajectory' | 'turn',
  episodes: number,
  branchTurn: (episode: number, turn: number) => string,
): BranchSides {
  const cutAfter = new Map<number, number>();
  const episodeOf = (k: number) => (k >= episodes ? k - episodes : k);
  if (rows === 'trajectory') {
    const pairs = branchPairs(
      groups.map((g) => g.members),
      reward,
    );
    return { pairs, cutAfter, episodeOf };
  }
  const pooled = new Map<number, number>();
  const candidates = groups.map((g) => {
    const byTurn = new Map<string, number[]>();
    for (const i of g.members) {
      const text = branchTurn(i, g.turn);
      byTurn.set(text, [...(byTurn.get(text) ?? []), i]);
    }
    return [...byTurn.values()].map((same) => {
      pooled.set(same[0], same.reduce((a, i) => a + reward(i), 0) / same.length);
      cutAfter.set(episodes + same[0], g.turn + 1);
      return same[0];
    });
  });
  // every two candidates of a state whose labels differ: the whole ranking the within-state test scores
  const label = (i: number) => pooled.get(i) as number;
  const pairs = candidates.flatMap((c) => c.flatMap((x) => c.flatMap((y): TrajectoryPair[] => (label(x) > label(y) ? [[x, y]] : []))));
  return { pairs: pairs.map(([c, r]): TrajectoryPair => [episodes + c, episodes + r]), cutAfter, episodeOf };
}

/** Splits pairs into training and held-out ones by task: every `every`-th task (task % every === 0) is held out. */
export function splitByTask(
  pairs: readonly TrajectoryPair[],
  taskOf: (episode: number) => number,
  every: number,
): { train: TrajectoryPair[]; heldOut: TrajectoryPair[] } {
  const train: TrajectoryPair[] = [];
  const heldOut: TrajectoryPair[] = [];
  for (const p of pairs) (every > 0 && taskOf(p[0]) % every === 0 ? heldOut : train).push(p);
  return { train, heldOut };
}

/**
 * The Bradley–Terry score of one row: Σ_j w_j · β (log π(ids[j+1]) − log π_ref(ids[j+1])) with
 * w = turn_weights (1/len(turn) on agent tokens), i.e. Σ_t A(o_t, a_t, c) over the row's turns —
 * exactly what the 'bradley-terry' loss (model/train/losses.ts) differences between a pair.
 */
export function rowAdvantageSum(logp: ArrayLike<number>, refLogp: ArrayLike<number>, turnWeights: ArrayLike<number>, beta: number): number {
  let s = 0;
  for (let j = 0; j < turnWeights.length; j++) if (turnWeights[j] !== 0) s += turnWeights[j] * beta * (logp[j] - refLogp[j]);
  return s;
}

/** Fraction of pairs whose chosen score exceeds the rejected one (a tie counts as wrong). */
export function pairAccuracy(pairs: readonly TrajectoryPair[], score: (episode: number) => number): number {
  if (pairs.length === 0) return Number.NaN;
  return pairs.filter(([c, r]) => score(c) > score(r)).length / pairs.length;
}
