// Scripted `backend` players. The expert reads the function name and the parameter list from the
// prompt, asks "what is the X?" for each parameter the dialogue has not yet answered, reads the
// number (or quoted word) from the reply, and answers with the template's code. The noisy expert
// sometimes asks an irrelevant question or answers too early with guessed numbers; the random agent
// asks random questions or answers with a random template.
import type { FamilyAgents } from '../agent.ts';
import type { Message } from '../types.ts';
import type { Rng } from '../../util/rng.ts';
import type { Value } from './interp.ts';
import { ANSWER_MARKER } from '../colbench.ts';
import { TEMPLATE_BY_FN, TEMPLATES, type Template } from './templates.ts';

const IRRELEVANT = ['What color should it be?', 'Who will use it?', 'Is it urgent?', 'What is the name of the project?'];
const ALL_PARAM_NAMES = [...new Set(TEMPLATES.flatMap((t) => t.params.map((p) => p.name)))];

/** Reads a parameter value from a reply: a quoted word first, else the first number. */
export function readValue(reply: string): Value | null {
  const q = /"([^"]{1,40})"/.exec(reply);
  if (q) return q[1];
  const n = /-?\d+(?:\.\d+)?/.exec(reply);
  return n ? Number(n[0]) : null;
}

/** The template and the parameter values the dialogue has revealed so far. */
export function readKnown(dialogue: readonly Message[]): { template: Template | null; known: Record<string, Value>; missing: string[] } {
  const prompt = dialogue[0]?.content ?? '';
  const template = TEMPLATE_BY_FN.get(/Write a function (\w+)\(/.exec(prompt)?.[1] ?? '') ?? null;
  const names = (/Ask me about: (.*?)\. /.exec(prompt)?.[1] ?? '').split(', ').filter(Boolean);
  const known: Record<string, Value> = {};
  for (let i = 1; i + 1 < dialogue.length; i += 2) {
    const q = /what is the (\w+)\?/i.exec(dialogue[i].content);
    if (!q || !names.includes(q[1])) continue;
    const v = readValue(dialogue[i + 1].content);
    if (v !== null) known[q[1]] = v;
  }
  return { template, known, missing: names.filter((n) => !(n in known)) };
}

const ask = (name: string) => `What is the ${name}?`;
const answer = (t: Template, values: Record<string, Value>) => `${ANSWER_MARKER} ${t.code(values)}`;

function guessFill(t: Template, known: Record<string, Value>, rng: Rng): Record<string, Value> {
  const out: Record<string, Value> = { ...known };
  for (const p of t.params) if (!(p.name in out)) out[p.name] = rng.pick(p.values);
  return out;
}

export const backendAgents: FamilyAgents = {
  expert(d) {
    const { template, known, missing } = readKnown(d);
    if (!template) return `${ANSWER_MARKER} 0`;
    return missing.length ? ask(missing[0]) : answer(template, known);
  },
  mistake(d, rng) {
    const { template, known, missing } = readKnown(d);
    if (template && missing.length && rng.chance(0.5)) return answer(template, guessFill(template, known, rng));
    return rng.pick(IRRELEVANT);
  },
  random(_d, rng) {
    if (rng.chance(0.5)) return ask(rng.pick(ALL_PARAM_NAMES));
    const t = rng.pick(TEMPLATES);
    return answer(t, guessFill(t, {}, rng));
  },
};
