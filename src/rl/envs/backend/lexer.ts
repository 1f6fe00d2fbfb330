// Tokenizer of the backend family's expression language (our stand-in for ColBench's Python, so
// that agent code is parsed and interpreted, never eval'd). Grammar in parser.ts.
import { CodedError } from '../../util/errors.ts';

/** A DSL failure; code 'syntax': cannot be parsed; 'runtime': failed while running; 'limit': a size or step limit was hit. */
export class DslError extends CodedError<'syntax' | 'runtime' | 'limit'> {
  override name = 'DslError';
}

/** Limits that keep every parse and run bounded whatever the agent writes. */
export const DSL_LIMITS = {
  /** Longest source text, in characters. */
  sourceChars: 2000,
  /** Most tokens. */
  tokens: 600,
  /** Deepest nesting of the syntax tree. */
  depth: 48,
  /** Most evaluation steps (syntax-tree node visits) per run. */
  steps: 20_000,
  /** Longest string value. */
  stringChars: 1000,
} as const;

export type Token =
  | { t: 'num'; v: number; at: number }
  | { t: 'str'; v: string; at: number }
  | { t: 'id'; v: string; at: number }
  | { t: 'kw'; v: 'if' | 'then' | 'else' | 'and' | 'or' | 'not' | 'true' | 'false'; at: number }
  | { t: 'op'; v: string; at: number }
  | { t: 'end'; at: number };

const KEYWORDS = new Set(['if', 'then', 'else', 'and', 'or', 'not', 'true', 'false']);
const OPS = ['==', '!=', '<=', '>=', '<', '>', '+', '-', '*', '/', '%', '(', ')', ','];

export function tokenize(source: string): Token[] {
  if (source.length > DSL_LIMITS.sourceChars)
    throw new DslError('limit', `code is too long (${source.length} characters; the limit is ${DSL_LIMITS.sourceChars})`);
  const out: Token[] = [];
  let i = 0;
  while (i < source.length) {
    if (out.length >= DSL_LIMITS.tokens) throw new DslError('limit', `too many tokens (limit ${DSL_LIMITS.tokens})`);
    const ch = source[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const m = /^[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?/.exec(source.slice(i, i + 64))!;
      const v = Number(m[0]);
      if (!Number.isFinite(v)) throw new DslError('syntax', `number out of range at ${i}`);
      out.push({ t: 'num', v, at: i });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i, i + 64))!;
      if (m[0].length > 48) throw new DslError('syntax', `name too long at ${i}`);
      const w = m[0];
      out.push(KEYWORDS.has(w) ? { t: 'kw', v: w as 'if', at: i } : { t: 'id', v: w, at: i });
      i += w.length;
      continue;
    }
    if (ch === '"' || ch === "'") {
      let j = i + 1;
      let v = '';
      while (j < source.length && source[j] !== ch) {
        if (source[j] === '\\' && j + 1 < source.length) j++;
        v += source[j];
        j++;
      }
      if (j >= source.length) throw new DslError('syntax', `unterminated string at ${i}`);
      out.push({ t: 'str', v, at: i });
      i = j + 1;
      continue;
    }
    const op = OPS.find((o) => source.startsWith(o, i));
    if (!op) throw new DslError('syntax', `unexpected character ${JSON.stringify(ch)} at ${i}`);
    out.push({ t: 'op', v: op, at: i });
    i += op.length;
  }
  out.push({ t: 'end', at: source.length });
  return out;
}
