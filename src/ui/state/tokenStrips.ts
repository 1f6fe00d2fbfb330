// What the token strips of a view draw, and the one colour scale they share with the turn bars
// (issue #49, item 6): each token-level row (bi-level GAE, SWEET-RL) becomes a strip whose values are
// aligned with the row's turn values (rl/credit/turnAligned.ts: the turn's value plus the token's
// deviation from the turn's token mean, so a strip averages to its bar), and Play's gutter, the Credit
// heatmap and every strip are coloured on one symmetric range over everything the view draws.
// Pure (no runes, no DOM): Play and the Credit view call it, unit tests check it.
import { turnAlignedTokens } from '../../rl/credit/turnAligned.ts';
import { symmetricRange } from '../charts/scales.ts';

/** A credit row as the views hold it: per-turn values, and per-token values for token-level estimators. */
export interface CreditRowLike {
  name: string;
  label: string;
  /** [T] the turn bars' values. */
  values: ArrayLike<number>;
  /** [N] the estimator's own per-token values over the view's token layout. */
  perToken?: ArrayLike<number>;
  paramText?: string;
}

/** One estimator's strip over the episode's tokens. */
export interface TokenStripRow {
  name: string;
  label: string;
  paramText: string;
  /** [N] drawn: turn value + (token value − the turn's token mean); each turn's mean is its bar's value. */
  shown: Float32Array;
  /** [N] the estimator's own per-token values (bi-level GAE's A_j, SWEET-RL's β·log-ratio), for the readout. */
  raw: Float32Array;
  /** [T] the turn values the strip is aligned with (the bars). */
  turns: Float32Array;
}

/** The strips of the token-level rows, aligned with their turn values; none without a token layout. */
export function tokenStrips(rows: readonly CreditRowLike[], offsets: readonly number[] | null): TokenStripRow[] {
  if (!offsets) return [];
  return rows.flatMap((r) => {
    if (!r.perToken) return [];
    const turns = Float32Array.from(r.values);
    return [
      {
        name: r.name,
        label: r.label,
        paramText: r.paramText ?? '',
        shown: turnAlignedTokens(r.perToken, turns, offsets),
        raw: Float32Array.from(r.perToken),
        turns,
      },
    ];
  });
}

/**
 * The view's one symmetric colour range: over the turn bars, the ground truth and the strips' drawn
 * values, so a cell of a strip and a bar of the same colour mean the same credit.
 */
export function viewRange(
  rows: readonly Pick<CreditRowLike, 'values'>[],
  truth: { values: ArrayLike<number> } | null,
  strips: readonly TokenStripRow[],
): number {
  const all: number[] = [];
  for (const r of rows) all.push(...Array.from(r.values));
  if (truth) all.push(...Array.from(truth.values));
  for (const s of strips) all.push(...s.shown);
  return symmetricRange(all);
}
