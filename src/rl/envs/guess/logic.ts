// Twenty-questions bookkeeping shared by the environment and the scripted expert: candidate
// filtering, the exact information gain of a yes/no question over the remaining candidates
// (uniform prior: IG = H(p) with p the share answering yes), and the greedy decision tree.
import { ATTRIBUTES, ITEMS } from './table.ts';

/** Binary entropy in bits. */
export function entropy2(p: number): number {
  if (p <= 0 || p >= 1) return 0;
  return -(p * Math.log2(p) + (1 - p) * Math.log2(1 - p));
}

/** Expected information gain (bits) of asking attribute `attr` when `remaining` items are equally likely. */
export function informationGain(remaining: readonly number[], attr: number): number {
  if (remaining.length === 0) return 0;
  let yes = 0;
  for (const i of remaining) if (ITEMS[i].facts[attr]) yes++;
  return entropy2(yes / remaining.length);
}

/** The attribute with the highest information gain (ties: lowest index); -1 when none splits. */
export function bestAttribute(remaining: readonly number[]): number {
  let best = -1;
  let bestGain = 1e-12;
  for (let a = 0; a < ATTRIBUTES.length; a++) {
    const g = informationGain(remaining, a);
    if (g > bestGain) {
      best = a;
      bestGain = g;
    }
  }
  return best;
}

/** The items of `remaining` whose attribute `attr` equals `answer`. */
export function filterRemaining(remaining: readonly number[], attr: number, answer: boolean): number[] {
  return remaining.filter((i) => ITEMS[i].facts[attr] === answer);
}

/** Questions the greedy expert needs in the worst case to isolate one item (Infinity when it cannot). */
export function greedyDepth(remaining: readonly number[]): number {
  if (remaining.length <= 1) return 0;
  const a = bestAttribute(remaining);
  if (a < 0) return Infinity;
  return 1 + Math.max(greedyDepth(filterRemaining(remaining, a, true)), greedyDepth(filterRemaining(remaining, a, false)));
}
