// The rollback guards' decisions on a run's success (TrainingLoop.step and validate act on them):
// pure functions of the figures, so they are tested by hand (test/unit/algos/groups.test.ts).
import { meanOf } from '../util/stats.ts';

/**
 * The mean and standard error of the paired differences best − current over the validation tasks
 * both were scored on: per task the outcome (in [0, 1]: the mean success of its sampled and greedy
 * episodes), played with the same task and sampling seeds, so unchanged behaviour cancels.
 */
function pairedFall(current: readonly number[], best: readonly number[]): { n: number; fell: number; se: number } {
  const n = Math.min(current.length, best.length);
  const d = Array.from({ length: n }, (_, i) => best[i] - current[i]);
  const fell = n ? meanOf(d) : 0;
  const se = n > 1 ? Math.sqrt(d.reduce((a, x) => a + (x - fell) ** 2, 0) / (n - 1) / n) : 0;
  return { n, fell, se };
}

/**
 * Why the validation score fell below the best adapters', or null: a fall of more than `drop`
 * (absolute) and 2.5 standard errors of the mean paired difference counts.
 */
export function validationDrop(current: readonly number[], best: readonly number[], drop: number): string | null {
  const { n, fell, se } = pairedFall(current, best);
  if (n < 2) return null;
  if (fell > drop && fell > 2.5 * se)
    return `validation success fell to ${(100 * meanOf(current.slice(0, n))).toFixed(0)}% from the best adapters' ${(100 * meanOf(best.slice(0, n))).toFixed(0)}% on the same ${n} tasks`;
  return null;
}

/**
 * Whether the current adapters beat the best ones so far on the validation tasks by more than `z`
 * standard errors of the mean paired difference, the bar for taking their place. A bare "higher"
 * keeps the luckiest of a run's validations: StarPO on guess (seed 1) ended on adapters that
 * scored 0.88 against the start's 0.86 and fell 2.5 greedy points under its base on the test split
 * (docs/experiments/2026-12-04-validation-guard-design.md). z 0 asks only for a higher mean
 * (ValidationGuard, `validateBar` 'start', once the start is beaten).
 */
export function validationGain(current: readonly number[], best: readonly number[], z = 2): boolean {
  const { n, fell, se } = pairedFall(current, best);
  return n >= 2 && -fell > z * se;
}

/**
 * Whether rollout success counts as collapsed (the fall, else null): more than `drop` (absolute) below the mean of the
 * recent iterations and more than 3 × their noise, the larger of a share's standard error over the
 * iteration's n tasks and the spread the recent iterations showed between themselves. Each iteration
 * draws new tasks, so its success swings with their difficulty beyond the binomial error: on guess with 16
 * tasks, iterations of one healthy run ranged 55–93%, and a guard measured from the best of them
 * rolled healthy runs back (docs/experiments/2026-12-02-turn-level-credit-guess.md, "The success guard"). n
 * counts tasks, not episodes: a task's K episodes share its difficulty, so they are not K independent
 * draws. Counted by episodes (64), the guard rolled back every algorithm on guess seed 1 at the same
 * iteration 7, whose 8 tasks the policy won 53–64% of the time against a mean of 86% (six-f, 2026-12-03).
 */
export function successCollapse(success: number, n: number, history: readonly number[], drop: number): SuccessFall | null {
  if (!history.length || drop >= 1) return null;
  const mean = meanOf(history);
  const binomial = Math.sqrt((mean * (1 - mean)) / Math.max(1, n));
  const spread = history.length > 1 ? Math.sqrt(history.reduce((a, b) => a + (b - mean) ** 2, 0) / (history.length - 1)) : 0;
  const fell = mean - success;
  return fell > drop && fell > 3 * Math.max(binomial, spread) ? { success, mean, iterations: history.length } : null;
}

/** A fall of rollout success below the mean of the recent iterations (successCollapse). */
export interface SuccessFall {
  success: number;
  mean: number;
  /** How many recent iterations the mean is over. */
  iterations: number;
}

/** The fall in words: "rollout success collapsed to 40% from a mean of 83% over the last 2 iterations" (or "fell to", when not confirmed). */
export function describeFall(f: SuccessFall, verb: 'collapsed' | 'fell'): string {
  return `rollout success ${verb} to ${(100 * f.success).toFixed(0)}% from a mean of ${(100 * f.mean).toFixed(0)}% over the last ${f.iterations} iterations`;
}

/**
 * Whether a success collapse is the adapters' and not the tasks': per task, the success share of its
 * K episodes by the current adapters and by those a rollback would return to, on the same tasks. Only
 * a reference clearly better (by more than half of `drop` and 2 standard errors of the mean paired
 * difference) confirms it. One iteration's 8 tasks can be hard for every adapter: on guess seed 1,
 * iteration 7's drew 53–64% from every algorithm against a recent mean of 86–89%, and the guard
 * rolled each run back and halved its learning rate
 * (docs/experiments/2026-12-02-turn-level-credit-guess.md, "The success guard";
 * docs/experiments/2026-12-03-learning-rate-six-f.md, "The success guard asks the same tasks").
 */
export function collapseConfirmed(current: readonly number[], reference: readonly number[], drop: number): boolean {
  const { n, fell, se } = pairedFall(current, reference);
  return n >= 2 && fell > drop / 2 && fell > 2 * se;
}
