// guess: information gain by hand, action parsing, bookkeeping of remaining candidates, rewards,
// flags for useless and repeated questions, and a person's reply in place of the simulation.
import { describe, expect, it } from 'vitest';
import { GuessEnv, parseGuessAction, readAnswer } from '../../../src/rl/envs/guess/env.ts';
import { entropy2, greedyDepth, informationGain } from '../../../src/rl/envs/guess/logic.ts';
import { ATTRIBUTES, ITEM_INDEX, ITEMS } from '../../../src/rl/envs/guess/table.ts';

const idx = (name: string) => ITEM_INDEX.get(name)!;
const attr = (key: string) => ATTRIBUTES.findIndex((a) => a.key === key);

describe('table', () => {
  it('has at least 100 items and 15 attributes', () => {
    expect(ITEMS.length).toBeGreaterThanOrEqual(100);
    expect(ATTRIBUTES.length).toBeGreaterThanOrEqual(15);
  });
});

describe('information gain', () => {
  it('matches hand-computed values', () => {
    // cat, dog mammals; eagle, salmon not: a 2/2 split is exactly one bit.
    const four = ['cat', 'dog', 'eagle', 'salmon'].map(idx);
    expect(informationGain(four, attr('mammal'))).toBe(1);
    // Only the eagle flies: H(1/4) = 0.25·2 + 0.75·log2(4/3) = 0.811278…
    expect(informationGain(four, attr('fly'))).toBeCloseTo(0.8112781244591328, 12);
    // Nobody of the four is an insect: zero.
    expect(informationGain(four, attr('insect'))).toBe(0);
    expect(entropy2(0.5)).toBe(1);
  });

  it('greedy depth of two items with different signatures is one question', () => {
    expect(greedyDepth([idx('cat'), idx('eagle')])).toBe(1);
    expect(greedyDepth([idx('cat')])).toBe(0);
  });
});

describe('parsing', () => {
  it('reads guesses, canonical questions and keywords', () => {
    expect(parseGuessAction('guess: polar bear')).toEqual({ kind: 'guess', item: idx('polar bear') });
    expect(parseGuessAction('My guess is the cat.')).toEqual({ kind: 'guess', item: idx('cat') });
    expect(parseGuessAction('does it have fur?')).toEqual({ kind: 'question', attribute: attr('fur') });
    expect(parseGuessAction('Is it nocturnal?')).toEqual({ kind: 'question', attribute: attr('night') });
    expect(parseGuessAction('what is the meaning of life?')).toEqual({ kind: 'unknown-question' });
    expect(parseGuessAction('guess: unicorn')).toEqual({ kind: 'invalid' });
    expect(parseGuessAction('hello')).toEqual({ kind: 'invalid' });
  });

  it('reads yes, no and unknown replies', () => {
    expect(readAnswer('Yes, that is right.')).toBe('yes');
    expect(readAnswer('No, it is not.')).toBe('no');
    expect(readAnswer("I don't know.")).toBe('unknown');
    expect(readAnswer('Nope')).toBe('no');
    expect(readAnswer('hmm')).toBe('unknown');
  });
});

describe('episodes', () => {
  it('restates the remaining candidates and scores information gain', () => {
    const env = new GuessEnv();
    const task = env.reset({ family: 'guess', split: 'test', seed: 7 });
    const candidates = task.hidden.candidates as string[];
    expect(candidates).toHaveLength(8);
    expect(task.prompt).toContain(`Candidates: ${candidates.join(', ')}.`);
    const r = env.step('is it a mammal?');
    const mammals = candidates.filter((c) => ITEMS[idx(c)].facts[attr('mammal')]);
    const truth = (task.hidden.facts as Record<string, boolean>).mammal;
    const remaining = truth ? mammals : candidates.filter((c) => !mammals.includes(c));
    expect(r.observation).toContain(`Remaining: ${remaining.join(', ')}. Turns left: 4.`);
    expect(r.info.informationGain).toBeCloseTo(entropy2(mammals.length / 8), 12);
    expect(r.info.remainingAfter).toBe(remaining.length);
    expect(r.reward).toBeCloseTo(r.info.useless ? -0.06 : -0.01, 12);
    // Asking again is repeated and useless (the remaining all share the answer).
    const again = env.step('is it a mammal?');
    expect(again.info.repeated).toBe(true);
    expect(again.info.useless).toBe(true);
    expect(again.reward).toBeCloseTo(-0.06, 12);
  });

  it('a correct guess pays 1 minus the turn cost; a wrong one ends with 0 minus the cost', () => {
    const env = new GuessEnv();
    const task = env.reset({ family: 'guess', split: 'test', seed: 8 });
    const r = env.step(`guess: ${task.hidden.item}`);
    expect(r).toMatchObject({ reward: 0.99, done: true, info: { success: true, reason: 'solved' } });
    env.reset({ family: 'guess', split: 'test', seed: 8 });
    const wrong = (task.hidden.candidates as string[]).find((c) => c !== task.hidden.item)!;
    expect(env.step(`guess: ${wrong}`)).toMatchObject({ reward: -0.01, done: true, info: { success: false, reason: 'failed' } });
  });

  it('ends at the turn limit without a guess', () => {
    const env = new GuessEnv();
    env.reset({ family: 'guess', split: 'test', seed: 9, options: { maxTurns: 3, candidates: 4 } });
    env.step('is it a mammal?');
    env.step('can it fly?');
    const r = env.step('does it lay eggs?');
    expect(r.done).toBe(true);
    expect(r.info.reason).toBe('turn-limit');
    expect(r.info.success).toBe(false);
  });

  it("follows a person's reply, even a wrong one", () => {
    const env = new GuessEnv();
    const task = env.reset({ family: 'guess', split: 'test', seed: 10 });
    const pending = env.beginStep('is it a mammal?');
    expect(pending.kind).toBe('reply');
    if (pending.kind !== 'reply') return;
    expect(pending.request.hidden.item).toBe(task.hidden.item);
    const truth = (task.hidden.facts as Record<string, boolean>).mammal;
    const r = env.completeStep(truth ? 'no' : 'yes');
    expect(r.info.answer).toBe(truth ? 'no' : 'yes');
    expect(r.observation).not.toContain(`${task.hidden.item},`);
  });

  it('noisy collaborators sometimes say they do not know', () => {
    const env = new GuessEnv();
    let unknown = 0;
    for (let seed = 0; seed < 100; seed++) {
      env.reset({ family: 'guess', split: 'train', seed, options: { noise: 1 } });
      if (env.step('does it have fur?').info.answer === 'unknown') unknown++;
    }
    expect(unknown).toBeGreaterThan(30);
    expect(unknown).toBeLessThan(70);
  });
});
