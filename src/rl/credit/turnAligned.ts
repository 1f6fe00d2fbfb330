// Per-token credit drawn so that it agrees with its turn's credit (issue #49, item 6). A token-level
// estimator gives two numbers per turn, a turn value A_i and token values A_j, and they need not
// average to each other:
//   - RAGEN's bi-level GAE (arXiv 2504.20073; biLevelGae.ts) seeds the token-level GAE at the turn's
//     last token with A_i, so A_j = B_j + (γλ)^{e−j} A_i, where B_j = Σ (γλ)^k δ_{j+k} comes from the
//     critic's values *inside* the turn (with γ = λ = 1, B_j = V_e − V_j). The turn is one action to
//     the turn-level GAE, and B_j only says which of its tokens the critic valued more: a strip of
//     +0.96, +1.90 over a −0.16 turn is a turn the critic rates below expectation whose early tokens
//     it valued below its last one, not a turn it credits.
//   - SWEET-RL (arXiv 2503.15478 §4, eq. 3) defines the turn's advantage as β times the mean of the
//     per-token log-ratios, so its tokens already average to the turn value.
// The aligned value keeps what the tokens add (their deviation from the turn's token mean) on top of
// the turn's value:  Â_j = A_i + (A_j − mean_{k∈turn i} A_k),  so mean_j Â_j = A_i exactly. For
// SWEET-RL Â_j = A_j up to rounding; for bi-level GAE it keeps the within-turn ordering of the A_j and
// their differences, and moves their level to the turn's. The raw A_j stay what trains (RAGEN whitens
// them) and what the readouts show beside Â_j.

import { checkOffsets, CreditError } from './errors.ts';

/**
 * Â_j = A_i + (A_j − mean of turn i's A_k) for every token. perToken: [N] flat, turn-major; perTurn:
 * [T]; offsets: [T+1], turn i owns [offsets[i], offsets[i+1]). A turn with no tokens has none to draw.
 * Accumulates in float64.
 */
export function turnAlignedTokens(perToken: ArrayLike<number>, perTurn: ArrayLike<number>, offsets: readonly number[]): Float32Array {
  const T = perTurn.length;
  if (offsets.length < T + 1) throw new CreditError('bad-offsets', `token offsets cover ${offsets.length - 1} turns, the credit ${T}`);
  checkOffsets(Int32Array.from(offsets.slice(0, T + 1)), T, offsets[T]);
  if (perToken.length < offsets[T]) throw new CreditError('length-mismatch', `perToken has ${perToken.length} values, the turns' tokens are ${offsets[T]}`);
  const out = new Float32Array(offsets[T]);
  for (let i = 0; i < T; i++) {
    const lo = offsets[i];
    const hi = offsets[i + 1];
    let sum = 0;
    for (let j = lo; j < hi; j++) sum += perToken[j];
    const shift = perTurn[i] - sum / Math.max(1, hi - lo);
    for (let j = lo; j < hi; j++) out[j] = perToken[j] + shift;
  }
  return out;
}
