// Hugging Face `tokenizer.json` and `tokenizer_config.json` for our tokenizer (tokenizer.ts).
// The model is BPE with an empty merge list, `ignore_merges: true` (a whole pre-token in the vocab is
// one token; tokenizers ≥ 0.19 and transformers.js 3 honour it) and `byte_fallback: true`; the
// pre-tokenizer is a `Split` on PRETOKEN_PATTERN with behaviour Isolated; the decoder is
// ByteFallback then Fuse. Special tokens are added tokens with `special: true`.
import { CHAT_TEMPLATE_JINJA } from './chat.ts';
import { PRETOKEN_PATTERN, SPECIAL_TOKENS, Tokenizer, TokenizerError } from './tokenizer.ts';

interface AddedToken {
  id: number;
  content: string;
  single_word: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
  special: boolean;
}

/** The subset of tokenizer.json we write and read. */
export interface HfTokenizerJson {
  version: '1.0';
  truncation: null;
  padding: null;
  added_tokens: AddedToken[];
  normalizer: null;
  pre_tokenizer: { type: 'Split'; pattern: { Regex: string }; behavior: 'Isolated'; invert: false };
  post_processor: null;
  decoder: { type: 'Sequence'; decoders: [{ type: 'ByteFallback' }, { type: 'Fuse' }] };
  model: {
    type: 'BPE';
    dropout: null;
    unk_token: null;
    continuing_subword_prefix: null;
    end_of_word_suffix: null;
    fuse_unk: false;
    byte_fallback: true;
    ignore_merges: true;
    vocab: Record<string, number>;
    merges: string[];
  };
}

export function toTokenizerJson(tok: Tokenizer): HfTokenizerJson {
  const vocab: Record<string, number> = {};
  tok.vocab.forEach((t, i) => (vocab[t] = i));
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: null,
    pre_tokenizer: { type: 'Split', pattern: { Regex: PRETOKEN_PATTERN }, behavior: 'Isolated', invert: false },
    post_processor: null,
    decoder: { type: 'Sequence', decoders: [{ type: 'ByteFallback' }, { type: 'Fuse' }] },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: true,
      ignore_merges: true,
      vocab,
      merges: [],
    },
  };
}

/** tokenizer.json text; `where` names the file in errors. */
export function parseTokenizerJson(text: string, where = 'tokenizer.json'): Tokenizer {
  let raw: Partial<HfTokenizerJson>;
  try {
    raw = JSON.parse(text) as Partial<HfTokenizerJson>;
  } catch (e) {
    throw new TokenizerError('bad-json', `${where} is not valid JSON (${(e as Error).message})`);
  }
  const model = raw.model;
  if (!model || model.type !== 'BPE' || typeof model.vocab !== 'object') throw new TokenizerError('unsupported', `${where}: expected a BPE model with a vocab`);
  if (model.merges?.length)
    throw new TokenizerError('unsupported', `${where}: BPE merges are not supported (Turnwise tokenizers are word-level with byte fallback)`);
  if (!model.byte_fallback) throw new TokenizerError('unsupported', `${where}: byte_fallback must be true`);
  if (raw.pre_tokenizer?.type !== 'Split' || raw.pre_tokenizer.pattern?.Regex !== PRETOKEN_PATTERN) {
    throw new TokenizerError('unsupported', `${where}: the pre-tokenizer is not Turnwise's Split pattern`);
  }
  const vocab: string[] = [];
  for (const [t, id] of Object.entries(model.vocab)) {
    if (!Number.isInteger(id) || id < 0 || vocab[id] !== undefined)
      throw new TokenizerError('bad-vocab', `${where}: bad or duplicate id ${id} for ${JSON.stringify(t)}`);
    vocab[id] = t;
  }
  for (let i = 0; i < vocab.length; i++) if (vocab[i] === undefined) throw new TokenizerError('bad-vocab', `${where}: id ${i} has no token`);
  return new Tokenizer(vocab);
}

export function serializeTokenizer(tok: Tokenizer): string {
  return JSON.stringify(toTokenizerJson(tok));
}

/** tokenizer_config.json: special tokens and the chat template for transformers. */
export function tokenizerConfigJson(maxLength: number): Record<string, unknown> {
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    bos_token: '<|bos|>',
    eos_token: '<|end|>',
    pad_token: '<|pad|>',
    unk_token: null,
    model_max_length: maxLength,
    clean_up_tokenization_spaces: false,
    add_bos_token: false,
    add_eos_token: false,
    chat_template: CHAT_TEMPLATE_JINJA,
    additional_special_tokens: SPECIAL_TOKENS.slice(3),
  };
}
