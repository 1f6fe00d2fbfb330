// Fits the tokenizer's vocabulary to a corpus: the most frequent pre-tokens (words with their
// leading space, symbols) become whole tokens, after the special tokens, the 256 byte tokens and the
// printable ASCII characters. Word-level pieces are what a ~1M-parameter model learns fastest
// (docs/design.md, calibration facts); byte fallback keeps it lossless for anything unseen.
import { BASE_CHARS, SPECIAL_TOKENS, Tokenizer, TokenizerError, byteToken, pretokenize } from './tokenizer.ts';

export interface FitOptions {
  /** Upper bound on the vocabulary size, base tokens included (default 2048). */
  maxVocab?: number;
  /** A piece must occur at least this often to get a token (default 2). */
  minCount?: number;
}

/** The base vocabulary every tokenizer starts with: specials, bytes, ASCII characters. */
export function baseVocab(): string[] {
  return [...SPECIAL_TOKENS, ...Array.from({ length: 256 }, (_, b) => byteToken(b)), ...BASE_CHARS];
}

/**
 * Counts pre-tokens over `corpus` and keeps the most frequent ones (ties by code-unit order, so the
 * result depends only on the corpus, not on iteration order of equal counts).
 */
export function fitTokenizer(corpus: Iterable<string>, opts: FitOptions = {}): Tokenizer {
  const maxVocab = opts.maxVocab ?? 2048;
  const minCount = opts.minCount ?? 2;
  const vocab = baseVocab();
  if (maxVocab < vocab.length) throw new TokenizerError('bad-vocab', `maxVocab ${maxVocab} is below the ${vocab.length} base tokens`);
  const known = new Set(vocab);
  const counts = new Map<string, number>();
  for (const text of corpus) {
    for (const piece of pretokenize(text)) if (!known.has(piece)) counts.set(piece, (counts.get(piece) ?? 0) + 1);
  }
  const ranked = [...counts.entries()].filter(([, c]) => c >= minCount).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [piece] of ranked) {
    if (vocab.length >= maxVocab) break;
    vocab.push(piece);
  }
  return new Tokenizer(vocab);
}
