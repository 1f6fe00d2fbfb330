// guess's `pool` option (issue #45, the lesson's world): candidates drawn from a fixed pool of N
// animals spread over the table, both splits drawn from the same pool (held-out tasks are new
// candidate sets of it), checked where a task enters with a named error, and tasks without the
// option exactly as before it existed (their spec does not name it; the golden prompts elsewhere
// hold their words).
import { describe, expect, it } from 'vitest';
import { GuessEnv, GUESS_DEFAULTS, guessPool } from '../../../src/rl/envs/guess/env.ts';
import { ITEM_INDEX, ITEMS } from '../../../src/rl/envs/guess/table.ts';
import type { JsonObject, Split } from '../../../src/rl/envs/types.ts';

const task = (split: Split, seed: number, options?: JsonObject) => new GuessEnv().reset({ family: 'guess', split, seed, ...(options ? { options } : {}) });
const names = (pool: number) => new Set(guessPool(pool).map((i) => ITEMS[i].name));

describe('guess pool', () => {
  it('is every (table / N)-th animal, fixed by its size; 0 is the whole table', () => {
    expect(GUESS_DEFAULTS.pool).toBe(0);
    expect(guessPool(0)).toEqual(ITEMS.map((_, i) => i));
    const p13 = guessPool(13);
    expect(p13).toHaveLength(13);
    expect(p13[0]).toBe(0);
    expect(p13).toEqual(Array.from({ length: 13 }, (_, i) => Math.floor((i * ITEMS.length) / 13)));
    expect(new Set(guessPool(26)).size).toBe(26);
  });

  it('draws the candidates of both splits from the pool, the held-out sets new combinations of it', () => {
    const pool = names(13);
    const keys: Record<Split, Set<string>> = { train: new Set(), test: new Set() };
    for (const split of ['train', 'test'] as const) {
      for (let seed = 0; seed < 40; seed++) {
        const t = task(split, seed, { candidates: 8, maxTurns: 4, pool: 13 });
        const cands = t.hidden.candidates as string[];
        expect(cands).toHaveLength(8);
        for (const c of cands) expect(pool.has(c), `${c} is in the pool`).toBe(true);
        expect(t.spec.options).toMatchObject({ pool: 13 });
        keys[split].add(t.key);
      }
    }
    expect(keys.test.size).toBeGreaterThan(30); // many distinct held-out tasks
    for (const k of keys.test) expect(keys.train.has(k)).toBe(false);
  });

  it('leaves tasks without a pool as they were: pool 0 is the same task, and the spec does not name it', () => {
    for (let seed = 0; seed < 20; seed++) {
      const plain = task('test', seed, { candidates: 8, maxTurns: 4 });
      expect(task('test', seed, { candidates: 8, maxTurns: 4, pool: 0 })).toEqual(plain);
      expect(plain.spec.options).not.toHaveProperty('pool');
      expect(Object.keys(task('train', seed).spec.options ?? {})).toEqual(['candidates', 'maxTurns', 'turnCost', 'uselessCost', 'noise']);
    }
    // golden: test seed 7 of guess 8 × 4, as the code before the option drew it (the same sha256 over
    // 1,800 tasks' JSON and first step, both splits, three option sets, before and after; 2026-12-06)
    const golden = task('test', 7, { candidates: 8, maxTurns: 4 });
    expect(golden.prompt).toBe(
      'Guess the animal I am thinking of. Candidates: flamingo, chicken, deer, badger, otter, salamander, swordfish, buffalo. Each turn ask one yes or no question, like: does it have fur? Or guess, like: guess: flamingo. A wrong guess ends the game. You have 4 turns.',
    );
    expect(golden.key).toBe('badger,buffalo,chicken,deer,flamingo,otter,salamander,swordfish|flamingo');
  });

  it('is checked where a task enters, with a named error', () => {
    const bad = (options: JsonObject) => {
      try {
        task('test', 1, options);
      } catch (e) {
        return e as Error;
      }
      throw new Error('no error');
    };
    const small = bad({ candidates: 8, pool: 5 });
    expect(small.name).toBe('EnvError');
    expect(small.message).toMatch(/^guess: option "pool" of 5 animals holds 5 that the table tells apart, fewer than the 8 candidates a task names/);
    expect(bad({ pool: ITEMS.length + 1 }).message).toBe(`guess: option "pool" must be an integer in [0, ${ITEMS.length}], got ${ITEMS.length + 1}`);
    expect(bad({ pool: 2.5 }).name).toBe('EnvError');
    expect(() => task('test', 1, { candidates: 4, pool: 4 })).not.toThrow();
  });

  it('keeps a held-out pool task playable: the candidates are told apart within the turns', () => {
    const t = task('test', 3, { candidates: 8, maxTurns: 4, pool: 26 });
    for (const c of t.hidden.candidates as string[]) expect(ITEM_INDEX.has(c)).toBe(true);
    expect(t.prompt).toMatch(/^Guess the animal I am thinking of\. Candidates: .*You have 4 turns\.$/);
  });
});
