// Rank correlations for the fidelity report: Spearman's ρ (Pearson correlation of average ranks,
// so ties get the mean of the ranks they span) and Kendall's τ_b (Kendall 1945, the tie-corrected
// τ) computed in O(n log n) by Knight's algorithm (Knight 1966, JASA 61:436): sort by (x, y),
// count discordant pairs as the inversions of y by merge sort, and correct for ties:
//   τ_b = (n0 − n1 − n2 + n3 − 2·D) / √((n0 − n1)(n0 − n2))
// with n0 = n(n−1)/2, n1 / n2 the pairs tied in x / in y, n3 the pairs tied in both, D discordant.
// Both return null when undefined (fewer than two points, or x or y constant), never NaN.

import { checkFinite, checkLength } from './errors.ts';

/** 1-based ranks of x, ties given the average of the ranks they span. */
export function averageRanks(x: ArrayLike<number>): Float64Array {
  const n = x.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => x[a] - x[b]);
  const ranks = new Float64Array(n);
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && x[order[j + 1]] === x[order[i]]) j++;
    const r = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]] = r;
    i = j + 1;
  }
  return ranks;
}

function checkPair(x: ArrayLike<number>, y: ArrayLike<number>): void {
  checkLength('y', y, x.length, 'paired with x');
  checkFinite('x', x);
  checkFinite('y', y);
}

/** Pearson correlation; null when either side has zero variance or n < 2. */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  checkPair(x, y);
  const n = x.length;
  if (n < 2) return null;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i] - mx;
    const dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return null;
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
}

/** Spearman's ρ with average ranks for ties; null when undefined. */
export function spearman(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  checkPair(x, y);
  return pearson(averageRanks(x), averageRanks(y));
}

/** Pairs tied within runs of equal values of `v` read through `order` (which groups equal values together). */
function tiedPairs(order: Int32Array, same: (a: number, b: number) => boolean): number {
  let pairs = 0;
  let run = 1;
  for (let i = 1; i <= order.length; i++) {
    if (i < order.length && same(order[i - 1], order[i])) run++;
    else {
      pairs += (run * (run - 1)) / 2;
      run = 1;
    }
  }
  return pairs;
}

/** Sorts `a` by key ascending in place (stable merge sort) and returns the number of inversions (strict). */
function mergeCountInversions(a: Int32Array, key: ArrayLike<number>): number {
  const n = a.length;
  let buf: Int32Array = new Int32Array(n);
  let src: Int32Array = a;
  let swaps = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        if (key[src[j]] < key[src[i]]) {
          buf[k++] = src[j++];
          swaps += mid - i;
        } else buf[k++] = src[i++];
      }
      while (i < mid) buf[k++] = src[i++];
      while (j < hi) buf[k++] = src[j++];
    }
    [src, buf] = [buf, src];
  }
  if (src !== a) a.set(src);
  return swaps;
}

/** Kendall's τ_b (tie-corrected), O(n log n); null when undefined. */
export function kendallTauB(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  checkPair(x, y);
  const n = x.length;
  if (n < 2) return null;
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => x[a] - x[b] || y[a] - y[b]);
  const n0 = (n * (n - 1)) / 2;
  const n1 = tiedPairs(order, (a, b) => x[a] === x[b]);
  const n3 = tiedPairs(order, (a, b) => x[a] === x[b] && y[a] === y[b]);
  const discordant = mergeCountInversions(order, y);
  const n2 = tiedPairs(order, (a, b) => y[a] === y[b]);
  const denom = Math.sqrt((n0 - n1) * (n0 - n2));
  if (denom === 0) return null;
  return Math.max(-1, Math.min(1, (n0 - n1 - n2 + n3 - 2 * discordant) / denom));
}
