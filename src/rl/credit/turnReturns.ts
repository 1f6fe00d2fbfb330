// Turn-level advantages of one task group from each turn's own rewards onwards, for GRPO without a
// critic. GRPO's episode credit gives every turn of episode i the same z(R_i), so a question that
// halved the candidates and one that wasted a turn share one number; with turn rewards (guess's
// information gain, LoopConfig.infoGainReward) each turn can be credited by what followed it:
//  - 'igpo' — IGPO (Wang et al., "Information Gain-based Policy Optimization", arXiv 2510.14967, §3.3):
//    every turn reward of the group's K episodes is z-normalised together,
//      ẑ_{i,t} = (r_{i,t} − mean_{j,s} r_{j,s}) / std_{j,s} r_{j,s},
//    and turn t's advantage is the discounted sum of the normalised rewards from t on,
//      A_{i,t} = Σ_{s≥t} γ^{s−t} ẑ_{i,s}.
//    The pooled mean is subtracted once per remaining turn, so with rewards ≥ 0 a turn with more turns
//    after it is credited less: a bias towards short episodes.
//  - 'toGo' — the return from t on, G_{i,t} = Σ_{s≥t} γ^{s−t} r_{i,s}, against the group's mean return
//    from the same turn index (the episodes that reached turn t): A_{i,t} = G_{i,t} − mean_j G_{j,t},
//    ÷ their std with divideByStd. At t = 0 every episode of a task acts in the same state, so there
//    the baseline is a state's; later it is a time-dependent one. No length bias: each turn is compared
//    only with turns at its own index.
// Safe values as groupAdvantage.ts: a set of returns with no spread gives zeros, never NaN.

import { spreadOf } from './groupAdvantage.ts';

export type TurnReturnCredit = 'igpo' | 'toGo';

export interface TurnReturnOptions {
  /** Discount γ of the sums over later turns. */
  gamma: number;
  /** 'toGo': divide by the same-index returns' (unbiased) std, as GRPO does; IGPO always divides. */
  divideByStd: boolean;
}

/** G_t = Σ_{s≥t} γ^{s−t} r_s for every turn t of one episode (the Monte-Carlo return, monteCarlo.ts, in plain numbers). */
export function returnsToGo(xs: readonly number[], gamma: number): number[] {
  const out = new Array<number>(xs.length).fill(0);
  for (let t = xs.length - 1, acc = 0; t >= 0; t--) out[t] = acc = xs[t] + gamma * acc;
  return out;
}

/** rewards: per episode of one task group, its turn rewards → per episode, per turn, the advantage. */
export function turnReturnAdvantages(rewards: readonly (readonly number[])[], credit: TurnReturnCredit, opts: TurnReturnOptions): number[][] {
  if (credit === 'igpo') {
    const s = spreadOf(rewards.flat());
    if (!s) return rewards.map((r) => r.map(() => 0));
    return rewards.map((r) =>
      returnsToGo(
        r.map((x) => (x - s.mean) / s.std),
        opts.gamma,
      ),
    );
  }
  const toGo = rewards.map((r) => returnsToGo(r, opts.gamma));
  const out = rewards.map((r) => r.map(() => 0));
  const longest = Math.max(0, ...rewards.map((r) => r.length));
  for (let t = 0; t < longest; t++) {
    const at = toGo.flatMap((g, i) => (t < g.length ? [[i, g[t]] as const] : []));
    const s = spreadOf(at.map(([, g]) => g));
    if (!s) continue;
    for (const [i, g] of at) out[i][t] = opts.divideByStd ? (g - s.mean) / s.std : g - s.mean;
  }
  return out;
}
