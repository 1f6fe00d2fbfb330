// Axis labels for the lab's line charts. Iterations are whole numbers, so the x axis ticks only at
// integers; a y axis shows the fewest decimals that still tell its ticks apart (no "0 0 0" under a
// small spread, no "0.30000000000000004"). Pure functions: tested in Node.

/** Tick steps for an axis of whole numbers (uPlot `incrs`). */
export const INTEGER_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000];

/** Labels for integer ticks; a tick between integers gets none. */
export function integerLabels(splits: readonly number[]): string[] {
  return splits.map((v) => (Number.isInteger(v) ? String(v) : ''));
}

/** Labels with the fewest decimals (0–6) that keep distinct ticks distinct; −0 reads as 0. */
export function distinctLabels(splits: readonly number[]): string[] {
  const distinct = new Set(splits).size;
  for (let d = 0; d <= 6; d++) {
    const labels = splits.map((v) => (Math.abs(v) < 0.5 * 10 ** -d ? 0 : v).toFixed(d));
    if (new Set(labels).size === distinct) return labels;
  }
  // below a millionth: the shortest exponent form that tells the ticks apart ("5e-13", not "5.00e-13")
  for (let p = 1; p <= 3; p++) {
    const labels = splits.map((v) => String(Number(v.toPrecision(p))));
    if (new Set(labels).size === distinct) return labels;
  }
  return splits.map((v) => String(v));
}

/** A range for an axis whose data may be a single value (uPlot would otherwise centre a zero-width range on fractions). */
export function paddedRange(min: number, max: number): [number, number] {
  return min === max ? [min - 1, max + 1] : [min, max];
}
