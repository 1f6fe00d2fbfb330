// Summary statistics shared across src/rl (metrics, guards, credit).

/** The arithmetic mean; 0 for an empty list (a metric over no episodes reads 0, not NaN). */
export function meanOf(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}
