// Colour scales of the lab (UI.md, "Visual language"): credit is always one diverging,
// colour-blind-safe scale (blue negative, grey zero, orange positive) symmetric around zero;
// sequential quantities (success, Pass@(K,T)) use viridis. Pure functions: tested in Node.

type Rgb = [number, number, number];

// Endpoints of the diverging scale (PuOr/RdBu-like, distinguishable under deuteranopia).
const NEG: Rgb = [44, 123, 182];
const ZERO: Rgb = [189, 189, 189];
const POS: Rgb = [230, 97, 1];

// Viridis at eleven stops (matplotlib's _viridis_data, every 25.5th entry).
const VIRIDIS: Rgb[] = [
  [68, 1, 84],
  [72, 36, 117],
  [65, 68, 135],
  [53, 95, 141],
  [42, 120, 142],
  [33, 145, 140],
  [34, 168, 132],
  [68, 191, 112],
  [122, 209, 81],
  [189, 223, 38],
  [253, 231, 37],
];

function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [0, 1, 2].map((i) => Math.round(a[i] + (b[i] - a[i]) * t)) as Rgb;
}

function css([r, g, b]: Rgb): string {
  return `rgb(${r}, ${g}, ${b})`;
}

/**
 * Colour of a credit value on the symmetric scale [−range, range]. Values beyond the range clamp;
 * a non-finite value or a zero range gives the neutral grey.
 */
export function creditColor(value: number, range: number): string {
  if (!Number.isFinite(value) || !(range > 0)) return css(ZERO);
  const t = Math.max(-1, Math.min(1, value / range));
  return css(t < 0 ? mix(ZERO, NEG, -t) : mix(ZERO, POS, t));
}

/** The symmetric range that covers every finite value (at least `floor`, so all-zero rows stay grey). */
export function symmetricRange(values: Iterable<number>, floor = 1e-6): number {
  let m = floor;
  for (const v of values) if (Number.isFinite(v)) m = Math.max(m, Math.abs(v));
  return m;
}

/** Viridis colour of t in [0, 1] (clamped); non-finite t gives a neutral grey. */
export function viridis(t: number): string {
  if (!Number.isFinite(t)) return css(ZERO);
  const x = Math.max(0, Math.min(1, t)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  return css(mix(VIRIDIS[i], VIRIDIS[i + 1], x - i));
}

/** Black or white, whichever reads better on the given rgb() background (WCAG relative luminance). */
export function textOn(background: string): string {
  const m = /rgb\((\d+), (\d+), (\d+)\)/.exec(background);
  if (!m) return '#000';
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const L = 0.2126 * lin(+m[1]) + 0.7152 * lin(+m[2]) + 0.0722 * lin(+m[3]);
  return L > 0.179 ? '#000' : '#fff';
}
