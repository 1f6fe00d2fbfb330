// Ground truths that judge the estimators (issue #6 point 3), as pure aggregation; the re-rolls
// themselves are run by src/rl/rollout.
//
// Counterfactual Q: from each turn's prefix s_t the rest of the episode is re-rolled with the
// current policy and collaborator. Continuations that keep the turn actually taken, a_t, estimate
// Q^π(s_t, a_t); continuations that sample a fresh turn a' ~ π(·|s_t) estimate V^π(s_t). Then
//   A*_t = mean(taken returns) − mean(alternative returns),
// with the standard error √(s²_taken/m_taken + s²_alt/m_alt) (sample variances; 0 for one sample).
// Returns are measured from turn t on: Σ_{k≥t} γ^{k−t} r_k of each continuation.
//
// Information gain (`guess`): a yes/no (or k-way) question that splits N equally likely candidates
// into groups of sizes s_i has expected gain H = log2 N − Σ (s_i/N) log2 s_i = −Σ p_i log2 p_i bits.

import { checkFinite, CreditError } from './errors.ts';

/** Re-roll returns for one turn. */
export interface CounterfactualTurn {
  /** Returns from turn t of continuations that keep the taken turn a_t (≥ 1; the episode's own return-to-go counts). */
  taken: ArrayLike<number>;
  /** Returns from turn t of continuations with a freshly sampled turn a' ~ π(·|s_t) (≥ 1). */
  alternatives: ArrayLike<number>;
}

/** The counterfactual ground truth of one episode. */
export interface CounterfactualResult {
  /** [T] A*_t = Q̂(s_t, a_t) − V̂(s_t). */
  perTurn: Float32Array;
  /** [T] Q̂(s_t, a_t): mean of the taken returns. */
  q: Float32Array;
  /** [T] V̂(s_t): mean of the alternative returns. */
  v: Float32Array;
  /** [T] standard error of A*_t. */
  stderr: Float32Array;
}

function meanVar(xs: ArrayLike<number>): [number, number] {
  let m = 0;
  for (let i = 0; i < xs.length; i++) m += xs[i];
  m /= xs.length;
  let ss = 0;
  for (let i = 0; i < xs.length; i++) ss += (xs[i] - m) ** 2;
  return [m, xs.length > 1 ? ss / (xs.length - 1) : 0];
}

/** Counterfactual advantage of each taken turn over the mean of re-rolled alternatives. */
export function counterfactualAdvantage(turns: readonly CounterfactualTurn[]): CounterfactualResult {
  const T = turns.length;
  const out: CounterfactualResult = { perTurn: new Float32Array(T), q: new Float32Array(T), v: new Float32Array(T), stderr: new Float32Array(T) };
  turns.forEach((turn, t) => {
    if (turn.taken.length === 0) throw new CreditError('bad-sample', `turn ${t} has no taken-turn returns`);
    if (turn.alternatives.length === 0) throw new CreditError('bad-sample', `turn ${t} has no alternative returns`);
    checkFinite(`turn ${t} taken returns`, turn.taken);
    checkFinite(`turn ${t} alternative returns`, turn.alternatives);
    const [q, vq] = meanVar(turn.taken);
    const [v, va] = meanVar(turn.alternatives);
    out.q[t] = q;
    out.v[t] = v;
    out.perTurn[t] = q - v;
    out.stderr[t] = Math.sqrt(vq / turn.taken.length + va / turn.alternatives.length);
  });
  return out;
}

/** Expected information gain in bits of a question splitting equally likely candidates into groups of `sizes`. */
export function partitionInformationGain(sizes: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < sizes.length; i++) {
    if (!Number.isInteger(sizes[i]) || sizes[i] < 0) throw new CreditError('bad-sample', `group size ${sizes[i]} must be a non-negative integer`);
    total += sizes[i];
  }
  let h = 0;
  for (let i = 0; i < sizes.length; i++) {
    if (sizes[i] > 0) {
      const p = sizes[i] / total;
      h -= p * Math.log2(p);
    }
  }
  return h;
}

/** Per-turn information gains (e.g. each step's info.informationGain, 0 for non-questions) as a checked ground-truth array. */
export function informationGainTruth(gains: ArrayLike<number>): Float32Array {
  checkFinite('information gains', gains);
  for (let t = 0; t < gains.length; t++) {
    if (gains[t] < 0) throw new CreditError('bad-sample', `information gain of turn ${t} is ${gains[t]} < 0`);
  }
  return Float32Array.from(gains);
}
