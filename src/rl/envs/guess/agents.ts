// Scripted `guess` players. The expert reads the remaining candidates from the last observation
// (or the prompt) and asks the greedy information-gain question over them, guessing when one is
// left or on the last turn; the noisy expert asks a uniformly random question instead; the random
// agent picks uniformly among all questions and all guesses of table items.
import type { FamilyAgents } from '../agent.ts';
import { lastUser } from '../agent.ts';
import type { Message } from '../types.ts';
import { bestAttribute } from './logic.ts';
import { ATTRIBUTES, ITEM_INDEX, ITEMS } from './table.ts';

/** Candidates still possible and turns left, as the last observation states them. */
export function readState(dialogue: readonly Message[]): { remaining: number[]; turnsLeft: number } {
  const last = lastUser(dialogue);
  const prompt = dialogue[0]?.content ?? '';
  const rem = /Remaining: (.*?)\. Turns left: (\d+)\./.exec(last);
  const names = rem ? rem[1] : (/Candidates: (.*?)\. /.exec(prompt)?.[1] ?? '');
  const turnsLeft = rem ? Number(rem[2]) : Number(/You have (\d+) turns/.exec(prompt)?.[1] ?? 1);
  const remaining = names
    .split(', ')
    .map((n) => ITEM_INDEX.get(n.trim()))
    .filter((i): i is number => i !== undefined);
  return { remaining, turnsLeft };
}

function expertPlan(dialogue: readonly Message[]): { guess: string } | { attribute: number } {
  const { remaining, turnsLeft } = readState(dialogue);
  if (remaining.length === 0) return { guess: ITEMS[0].name };
  const best = bestAttribute(remaining);
  if (remaining.length === 1 || turnsLeft <= 1 || best < 0) return { guess: ITEMS[remaining[0]].name };
  return { attribute: best };
}

const say = (plan: { guess: string } | { attribute: number }) => ('guess' in plan ? `guess: ${plan.guess}` : ATTRIBUTES[plan.attribute].question);

export const guessAgents: FamilyAgents = {
  expert: (d) => say(expertPlan(d)),
  mistake(d, rng) {
    const plan = expertPlan(d);
    return 'guess' in plan ? say(plan) : rng.pick(ATTRIBUTES).question;
  },
  random(_d, rng) {
    const n = ATTRIBUTES.length + ITEMS.length;
    const k = rng.int(n);
    return k < ATTRIBUTES.length ? ATTRIBUTES[k].question : `guess: ${ITEMS[k - ATTRIBUTES.length].name}`;
  },
};
