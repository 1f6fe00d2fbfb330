// guess: the reader of a person's free-text answer (answers.ts), held to a table of phrasings with
// exact expected readings, the simulated collaborator's own phrasings, and the environment reading a
// person's reply through it.
import { describe, expect, it } from 'vitest';
import { readReply } from '../../../src/rl/envs/guess/answers.ts';
import { GUESS_REPLIES, GuessEnv, readAnswer } from '../../../src/rl/envs/guess/env.ts';
import { ATTRIBUTES } from '../../../src/rl/envs/guess/table.ts';
import { ANSWER_TABLE } from './guessAnswerTable.ts';

describe('answer reader', () => {
  it('reads every phrasing of the table exactly as expected', () => {
    expect(ANSWER_TABLE.length).toBeGreaterThanOrEqual(200);
    const wrong = ANSWER_TABLE.map(([text, expected, attribute = 'mammal']) => ({ text, attribute, expected, got: readReply(text, attribute).kind })).filter(
      (r) => r.got !== r.expected,
    );
    expect(wrong).toEqual([]);
  });

  it('the table covers negations, hedges, typos, extra facts and restatements of every attribute', () => {
    const kinds = new Set(ANSWER_TABLE.map((r) => r[1]));
    expect([...kinds].sort()).toEqual(['no', 'unknown', 'unsure', 'yes']);
    const asked = new Set(ANSWER_TABLE.map((r) => r[2] ?? 'mammal'));
    for (const a of ATTRIBUTES) expect(asked.has(a.key), a.key).toBe(true);
  });

  it("reads the simulated collaborator's phrasings as their kind, whatever was asked", () => {
    for (const [kind, phrases] of Object.entries(GUESS_REPLIES)) {
      for (const phrase of phrases) {
        expect(readReply(phrase).kind, phrase).toBe(kind);
        for (let a = 0; a < ATTRIBUTES.length; a++) expect(readAnswer(phrase, a), `${phrase} / ${ATTRIBUTES[a].key}`).toBe(kind);
      }
    }
  });

  it('reads the examples of issue 20', () => {
    const fur = ATTRIBUTES.findIndex((a) => a.key === 'fur');
    for (const yes of ['I think so', 'Sure!', 'Absolutely', 'Of course', 'yup', 'uh-huh', 'Yes, but it can’t swim'])
      expect(readReply(yes, fur).kind, yes).toBe('yes');
    for (const no of ["I don't think so", 'Nah']) expect(readReply(no, fur).kind, no).toBe('no');
    expect(readReply('It has fur', fur).kind).toBe('yes');
    expect(readReply('It has fur').kind).toBe('unsure'); // without the question, a restatement says nothing
  });

  it('gives a confidence: a plain answer, a restatement, a lean, and none when unsure', () => {
    expect(readReply('Yes', 'fur')).toEqual({ kind: 'yes', confidence: 1 });
    expect(readReply('No fur', 'fur')).toEqual({ kind: 'no', confidence: 0.9 });
    expect(readReply('Probably not', 'fur')).toEqual({ kind: 'no', confidence: 0.7 });
    expect(readReply("I don't know", 'fur')).toEqual({ kind: 'unknown', confidence: 1 });
    expect(readReply('sort of', 'fur')).toEqual({ kind: 'unsure', confidence: 0 });
  });

  it('the environment reads a person reply against the attribute asked, unsure as unknown', () => {
    const env = new GuessEnv();
    for (const [reply, answer] of [
      ['It has fur', 'yes'],
      ['no fur at all', 'no'],
      ['sort of', 'unknown'],
    ] as const) {
      env.reset({ family: 'guess', split: 'test', seed: 3 });
      const pending = env.beginStep('does it have fur?');
      expect(pending.kind).toBe('reply');
      expect(env.completeStep(reply).info.answer, reply).toBe(answer);
    }
  });
});
