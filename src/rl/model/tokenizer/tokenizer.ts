// A small, lossless tokenizer for the task suite's language: whole-word pieces fitted to a corpus
// (the calibration runs in docs/design.md used word-level tokens), every printable ASCII character as a
// token of its own, and byte fallback (<0x00> … <0xFF>, as in Llama/SentencePiece) for everything
// else, so any UTF-8 text round-trips exactly. The same algorithm as a Hugging Face BPE model with
// no merges, `ignore_merges` and `byte_fallback` behind a `Split` pre-tokenizer (hfJson.ts), so
// Hugging Face tokenizers encode identically:
//   1. pre-tokenize with PRETOKEN_PATTERN (words with their leading space, one digit, one symbol,
//      one whitespace character);
//   2. a piece in the vocabulary is one token; otherwise each character is, if in the vocabulary;
//   3. otherwise the character's UTF-8 bytes become byte tokens.
import { CodedError } from '../../util/errors.ts';

/** The special tokens: roles and turn boundaries. Their ids are 0 … 6 in this order. */
export const SPECIAL_TOKENS = ['<|pad|>', '<|bos|>', '<|end|>', '<|system|>', '<|hidden|>', '<|user|>', '<|agent|>'] as const;

/** Ids of the special tokens. `end` closes every message and is the end-of-sequence token. */
export interface SpecialIds {
  pad: number;
  bos: number;
  end: number;
  system: number;
  hidden: number;
  user: number;
  agent: number;
}

/**
 * Words (ASCII letters) with an optional leading space, a single digit, a single other character
 * with an optional leading space, or a single whitespace character. Also valid for Oniguruma (HF).
 */
export const PRETOKEN_PATTERN = ' ?[A-Za-z]+| ?[0-9]| ?[^A-Za-z0-9 \\t\\n\\r]|[ \\t\\n\\r]';
const PRETOKEN_RE = new RegExp(PRETOKEN_PATTERN, 'gu');

/** Characters always in the vocabulary: printable ASCII, tab, newline, carriage return. */
export const BASE_CHARS: readonly string[] = ['\t', '\n', '\r', ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))];

export const byteToken = (b: number): string => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
const BYTE_RE = /^<0x([0-9A-F]{2})>$/;

/** A tokenizer file or vocabulary that cannot be used. */
export class TokenizerError extends CodedError<'bad-vocab' | 'bad-json' | 'unsupported'> {
  override name = 'TokenizerError';
}

/** Splits text into pre-tokens; text the pattern skips (none, by construction) stays as its own piece. */
export function pretokenize(text: string): string[] {
  const out: string[] = [];
  let last = 0;
  for (const m of text.matchAll(PRETOKEN_RE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(m[0]);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export interface EncodeOptions {
  /** Treat special-token strings in the text as the special tokens (Hugging Face's default). Default false: text is literal. */
  parseSpecial?: boolean;
}

export interface DecodeOptions {
  /** Drop special tokens from the output. */
  skipSpecial?: boolean;
}

export class Tokenizer {
  readonly special: SpecialIds;
  private readonly ids = new Map<string, number>();
  private readonly byteIds: number[] = [];
  /** For each id, the byte it stands for, or −1. */
  private readonly byteOf: Int16Array;

  /** `vocab[id]` is the token's text; special tokens first, then all 256 byte tokens somewhere. */
  constructor(readonly vocab: readonly string[]) {
    vocab.forEach((t, i) => {
      if (this.ids.has(t)) throw new TokenizerError('bad-vocab', `token ${JSON.stringify(t)} appears twice (ids ${this.ids.get(t)} and ${i})`);
      this.ids.set(t, i);
    });
    SPECIAL_TOKENS.forEach((t, i) => {
      if (vocab[i] !== t) throw new TokenizerError('bad-vocab', `id ${i} must be the special token ${t}, found ${JSON.stringify(vocab[i])}`);
    });
    this.byteOf = new Int16Array(vocab.length).fill(-1);
    for (let b = 0; b < 256; b++) {
      const id = this.ids.get(byteToken(b));
      if (id === undefined) throw new TokenizerError('bad-vocab', `byte token ${byteToken(b)} is missing (byte fallback needs all 256)`);
      this.byteIds.push(id);
      this.byteOf[id] = b;
    }
    const [pad, bos, end, system, hidden, user, agent] = SPECIAL_TOKENS.map((_, i) => i);
    this.special = { pad, bos, end, system, hidden, user, agent };
  }

  get vocabSize(): number {
    return this.vocab.length;
  }

  /** Id of a token's exact text. */
  idOf(token: string): number | undefined {
    return this.ids.get(token);
  }

  isSpecial(id: number): boolean {
    return id >= 0 && id < SPECIAL_TOKENS.length;
  }

  encode(text: string, opts: EncodeOptions = {}): number[] {
    const out: number[] = [];
    if (opts.parseSpecial) {
      const re = new RegExp(SPECIAL_TOKENS.map((t) => t.replace(/[|]/g, '\\|')).join('|'), 'g');
      let last = 0;
      for (const m of text.matchAll(re)) {
        this.encodePlain(text.slice(last, m.index), out);
        out.push(this.ids.get(m[0]) as number);
        last = m.index + m[0].length;
      }
      this.encodePlain(text.slice(last), out);
    } else this.encodePlain(text, out);
    return out;
  }

  private encodePlain(text: string, out: number[]): void {
    const enc = new TextEncoder();
    for (const piece of pretokenize(text)) {
      const id = this.ids.get(piece);
      if (id !== undefined && !this.isSpecial(id)) {
        out.push(id);
        continue;
      }
      for (const ch of piece) {
        const cid = this.ids.get(ch);
        if (cid !== undefined && !this.isSpecial(cid)) out.push(cid);
        else for (const b of enc.encode(ch)) out.push(this.byteIds[b]);
      }
    }
  }

  /** Inverse of encode; invalid byte runs decode to U+FFFD per byte, as Hugging Face's ByteFallback does. */
  decode(ids: readonly number[] | Int32Array, opts: DecodeOptions = {}): string {
    let text = '';
    let bytes: number[] = [];
    const flush = () => {
      if (!bytes.length) return;
      try {
        text += new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
      } catch {
        text += '\uFFFD'.repeat(bytes.length);
      }
      bytes = [];
    };
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id >= this.vocab.length) {
        throw new TokenizerError('bad-vocab', `cannot decode token id ${id}: the vocabulary has ${this.vocab.length} tokens`);
      }
      const b = this.byteOf[id];
      if (b >= 0) {
        bytes.push(b);
        continue;
      }
      flush();
      if (opts.skipSpecial && this.isSpecial(id)) continue;
      text += this.vocab[id];
    }
    flush();
    return text;
  }
}

/** True for the text of a byte-fallback token. */
export function isByteToken(token: string): boolean {
  return BYTE_RE.test(token);
}
