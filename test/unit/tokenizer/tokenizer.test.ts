import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fitTokenizer, baseVocab } from '../../../src/rl/model/tokenizer/fit.ts';
import { Tokenizer, TokenizerError, pretokenize } from '../../../src/rl/model/tokenizer/tokenizer.ts';
import { parseTokenizerJson, serializeTokenizer } from '../../../src/rl/model/tokenizer/hfJson.ts';
import { encodeChat, renderChat, type ChatMessage } from '../../../src/rl/model/tokenizer/chat.ts';

/** Sample dialogue lines in the style of the task suite (the real corpus comes from src/rl/envs). */
export const SAMPLE = [
  'You are guessing one of 8 animals. Ask yes/no questions, then answer with GUESS: <name>.',
  'Does it have feathers? Yes.',
  'Does it live in water? No.',
  'GUESS: eagle',
  'Write f(x) so that f(2) = 5 and f(3) = 7. I WANT TO ANSWER: x * 2 + 1',
  'What should f(0) return? It returns 1.',
  '<think>the goal is left</think><answer>Left</answer>',
  '#####\n#P..#\n#.X.#\n#..G#\n#####',
  'Does it have feathers? No. Does it live in water? Yes.',
];

const tok = fitTokenizer(SAMPLE, { minCount: 2, maxVocab: 1000 });

describe('pre-tokenizer', () => {
  it('splits words with their leading space, single digits, symbols and whitespace (by hand)', () => {
    expect(pretokenize('Does it  fly? 42\n')).toEqual(['Does', ' it', ' ', ' fly', '?', ' 4', '2', '\n']);
    expect(pretokenize('é😀 x')).toEqual(['é', '😀', ' x']);
  });
});

describe('tokenizer', () => {
  it('fits frequent words as whole tokens and keeps rare ones as characters', () => {
    expect(tok.vocab.slice(0, 7)).toEqual(['<|pad|>', '<|bos|>', '<|end|>', '<|system|>', '<|hidden|>', '<|user|>', '<|agent|>']);
    expect(tok.idOf(' feathers')).toBeDefined();
    expect(tok.idOf(' eagle')).toBeUndefined(); // seen once
    const ids = tok.encode('Does it have feathers?');
    expect(ids.map((i) => tok.vocab[i])).toEqual(['Does', ' it', ' have', ' feathers', '?']);
    expect(tok.encode(' eagle').map((i) => tok.vocab[i])).toEqual([' ', 'e', 'a', 'g', 'l', 'e']);
    expect(tok.vocabSize).toBe(baseVocab().length + tok.vocab.slice(baseVocab().length).length);
  });

  it('falls back to UTF-8 byte tokens for characters outside the vocabulary', () => {
    expect(tok.encode('é').map((i) => tok.vocab[i])).toEqual(['<0xC3>', '<0xA9>']);
    expect(tok.decode(tok.encode('naïve 😀'))).toBe('naïve 😀');
  });

  it('encodes special-token text literally unless asked', () => {
    expect(tok.encode('<|end|>')).not.toContain(tok.special.end);
    expect(tok.decode(tok.encode('<|end|>'))).toBe('<|end|>');
    expect(tok.encode('a<|end|>b', { parseSpecial: true })).toEqual([...tok.encode('a'), tok.special.end, ...tok.encode('b')]);
    expect(tok.decode([tok.special.bos, ...tok.encode('hi')], { skipSpecial: true })).toBe('hi');
  });

  it('round-trips any Unicode string (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (s) => tok.decode(tok.encode(s)) === s),
      { numRuns: 300, seed: 42 },
    );
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...SAMPLE.join(' ').split(' '), '\n', '  ', 'é'), { maxLength: 30 }), (words) => {
        const s = words.join(' ');
        return tok.decode(tok.encode(s)) === s;
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it('decodes invalid byte runs to U+FFFD per byte, like Hugging Face ByteFallback', () => {
    const b = (x: number) => tok.idOf(`<0x${x.toString(16).toUpperCase()}>`) as number;
    expect(tok.decode([b(0xc3), b(0x41)])).toBe('\uFFFD\uFFFD');
    expect(() => tok.decode([tok.vocabSize])).toThrow(TokenizerError);
  });

  it('is deterministic and survives tokenizer.json', () => {
    expect(fitTokenizer([...SAMPLE].reverse(), { minCount: 2, maxVocab: 1000 }).vocab).toEqual(tok.vocab);
    const back = parseTokenizerJson(serializeTokenizer(tok));
    expect(back.vocab).toEqual(tok.vocab);
    expect(() => parseTokenizerJson('{')).toThrow('tokenizer.json is not valid JSON');
    expect(() => new Tokenizer(['x'])).toThrow('id 0 must be the special token <|pad|>');
  });

  it('honours maxVocab', () => {
    const small = fitTokenizer(SAMPLE, { maxVocab: baseVocab().length + 3, minCount: 1 });
    expect(small.vocabSize).toBe(baseVocab().length + 3);
    expect(() => fitTokenizer(SAMPLE, { maxVocab: 10 })).toThrow(TokenizerError);
  });
});

describe('chat template', () => {
  const episode: ChatMessage[] = [
    { role: 'system', content: 'Guess the animal.' },
    { role: 'agent', content: 'Does it fly?' },
    { role: 'user', content: 'Yes.' },
  ];

  it('lays out an episode as <|bos|> (<|role|> content <|end|>)* [<|agent|>]', () => {
    expect(renderChat(episode, { addGenerationPrompt: true })).toBe(
      '<|bos|><|system|>Guess the animal.<|end|><|agent|>Does it fly?<|end|><|user|>Yes.<|end|><|agent|>',
    );
    const enc = encodeChat(tok, episode, { addGenerationPrompt: true });
    expect(enc.ids).toEqual(tok.encode(renderChat(episode, { addGenerationPrompt: true }), { parseSpecial: true }));
    const agent = enc.spans[1];
    expect(enc.ids[agent.roleAt]).toBe(tok.special.agent);
    expect(tok.decode(enc.ids.slice(agent.start, agent.end))).toBe('Does it fly?<|end|>');
    expect(enc.ids[enc.ids.length - 1]).toBe(tok.special.agent);
  });
});
