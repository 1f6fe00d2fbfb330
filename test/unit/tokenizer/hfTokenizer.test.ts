// Our tokenizer against the reference implementation, in every run: tokenizers.js
// (@huggingface/tokenizers, what transformers.js runs) reads the shipped models' tokenizer.json and
// must give our ids for the same text, and decode our ids back to it — on random strings over an
// alphabet that exercises merges, digits, whitespace runs, byte fallback (accents, CJK, emoji, NBSP,
// U+2028) and special tokens written in the text, and on fast-check's arbitrary Unicode strings.
// test/unit/tokenizer/hf-crosscheck.mts adds the Rust crate by hand where it can be installed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelsDir } from '../../../src/cli/paths.ts';
import { parseTokenizerJson } from '../../../src/rl/model/tokenizer/hfJson.ts';
import { Rng } from '../../../src/rl/util/rng.ts';

const ALPHABET = [
  'Does',
  ' it',
  ' have',
  ' feathers',
  '?',
  ' ',
  '  ',
  '\n',
  '\t',
  'é',
  '😀',
  '中文',
  '<|end|>',
  '<|agent|>',
  '<0x41>',
  'x',
  '2',
  '42',
  ' 7',
  '#',
  '.',
  'GUESS:',
  'I WANT TO ANSWER:',
  '<think>',
  '</answer>',
  '\r\n',
  '\u00a0',
  '\u2028',
  'A',
  'ß',
  'Left',
  ' Right',
  '"',
  "'",
  '\\',
  '{',
  '}',
];

describe.each([['policy'], ['critic']] as const)("tokenizers.js on the shipped %s's tokenizer.json", (model) => {
  const dir = join(modelsDir(), model);
  const json = readFileSync(join(dir, 'tokenizer.json'), 'utf8');
  const ours = parseTokenizerJson(json);
  const theirs = new HfTokenizer(JSON.parse(json), JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as object);
  const agree = (s: string) => {
    const ids = ours.encode(s, { parseSpecial: true });
    expect(theirs.encode(s, { add_special_tokens: false }).ids, JSON.stringify(s)).toEqual(ids);
    expect(ids.length ? theirs.decode(ids) : '', JSON.stringify(s)).toBe(s);
  };

  it('encodes 1,000 random strings to our ids and decodes our ids back to the text', () => {
    const rng = new Rng(1);
    for (let i = 0; i < 1000; i++) agree(Array.from({ length: rng.int(16) }, () => rng.pick(ALPHABET)).join(rng.chance(0.5) ? '' : ' '));
  });

  it('agrees on arbitrary Unicode strings (fast-check)', () => {
    let checked = 0;
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
        agree(s);
        checked++;
      }),
      { numRuns: 500, seed: 11 },
    );
    expect(checked).toBe(500);
  });
});
