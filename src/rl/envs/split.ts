// Train/test separation by content: every generated episode has a canonical key (the hidden item
// and candidate set, the backend parameters, the map…); a key belongs to exactly one split, decided by
// its hash. Generators draw until the key falls in the requested split, so the two splits can never
// share an episode, whatever the seeds.
import { hashString, type Rng } from '../util/rng.ts';
import { EnvError, type Split } from './types.ts';

/** The split that owns a content key (about half of all keys each). */
export function splitOfKey(key: string): Split {
  // Multiply before taking the top bit: FNV-1a's low bits follow the last character too closely.
  return Math.imul(hashString(key), 0x9e3779b1) >>> 31 === 1 ? 'test' : 'train';
}

/** Draws from `draw` until the value's key belongs to `split`; throws EnvError after maxTries. */
export function drawForSplit<T>(
  rng: Rng,
  split: Split,
  draw: (rng: Rng) => T | null,
  keyOf: (value: T) => string,
  maxTries = 10_000,
): { value: T; key: string } {
  for (let i = 0; i < maxTries; i++) {
    const value = draw(rng);
    if (value === null) continue;
    const key = keyOf(value);
    if (splitOfKey(key) === split) return { value, key };
  }
  throw new EnvError(`could not draw a ${split} task in ${maxTries} tries (are the options too strict?)`);
}
