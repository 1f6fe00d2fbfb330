// Shared pieces of RAGEN's text games (arXiv 2504.20073): reading an action from
// `<answer>…</answer>` (or from the bare message), grid rendering with one token per cell, and
// direction vectors.
export const DIRECTIONS = ['Left', 'Down', 'Right', 'Up'] as const;

/** Row and column steps, in DIRECTIONS order. */
export const DELTAS: readonly (readonly [number, number])[] = [
  [0, -1],
  [1, 0],
  [0, 1],
  [-1, 0],
];

/** The text inside the last <answer>…</answer>, or the whole message when there is none. */
export function answerText(message: string): string {
  const tags = [...message.matchAll(/<answer>([\s\S]*?)<\/answer>/gi)];
  return tags.length ? tags[tags.length - 1][1] : message;
}

/** The one word from `choices` (case-insensitive, whole words) the answer names; null if none or several. */
export function readChoice<T extends string>(message: string, choices: readonly T[]): T | null {
  const text = answerText(message).toLowerCase().slice(0, 200);
  const found = choices.filter((c) => new RegExp(`(^|[^a-z])${c.toLowerCase()}([^a-z]|$)`).test(text));
  return found.length === 1 ? found[0] : null;
}

/** A grid as rows of space-separated cell symbols. */
export function renderGrid(cells: readonly string[][]): string {
  return cells.map((row) => row.join(' ')).join('\n');
}

/** Parses a grid rendered by renderGrid from the text after `marker` (rows until a blank/non-grid line). */
export function parseGrid(text: string, marker: string, size: number): string[][] | null {
  const at = text.lastIndexOf(marker);
  if (at < 0) return null;
  const lines = text
    .slice(at + marker.length)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const rows = lines.slice(0, size).map((l) => l.split(' '));
  if (rows.length !== size || rows.some((r) => r.length !== size)) return null;
  return rows;
}
