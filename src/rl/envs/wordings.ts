// Backend statement templates composed from parts (issue #47, "robust to how people word things"):
// a person states a value in an order (the name first or the value first), a mood (a statement or
// an instruction), with or without a hedge before it, an opener and a closer around it, and any
// punctuation or case. A fixed list of sentences spans few of those combinations: with wordings the
// forge never saw (the value before the name, an imperative, a hedge before the number) the shipped
// policy's backend success fell 80.5% → 65.5% (200 test tasks, seed 31), so the forge's training set
// draws its statements from the product of the parts instead (phrasingsTraining.ts), and the
// project's held-out file is drawn the same way from parts of its own (scripts/heldout-wordings.ts).
import { Rng } from '../util/rng.ts';

/** A core clause's mood: which hedges read naturally before it. */
export type Mood = 'statement' | 'instruction';

/** The parts one family of templates is composed from. */
export interface StatementParts {
  /** Clauses carrying `{name}` and `{value}{unit}` exactly once each, lower-case, no final punctuation, by mood. */
  cores: { readonly [M in Mood]: readonly string[] };
  /** Said first ("OK, "); '' for none. */
  openers: readonly string[];
  /** Said just before the clause ("I think "), by mood; '' for none. */
  hedges: { readonly [M in Mood]: readonly string[] };
  /** Said after the clause (", as far as I know"); '' for none. */
  closers: readonly string[];
  /** The end of the sentence ('.', '!', '' …). */
  endings: readonly string[];
}

/** Whether the template names the value before the parameter (the order a fixed list rarely has). */
export function valueFirst(template: string): boolean {
  return template.indexOf('{value}') < template.indexOf('{name}');
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * `n` distinct templates drawn from the product of `parts`, deterministic in `seed`: each draw picks
 * a mood, a clause of it, a hedge of that mood, an opener, a closer and an ending; a fifth are
 * all lower-case (as people type in chat), the rest start sentences with a capital. Throws when the parts hold
 * fewer than `n` distinct templates within 50·n draws.
 */
export function composeStatements(parts: StatementParts, n: number, seed: number): string[] {
  const rng = new Rng(seed);
  const moods: Mood[] = ['statement', 'instruction'];
  const out = new Set<string>();
  for (let tries = 0; out.size < n; tries++) {
    if (tries >= 50 * n) throw new Error(`composeStatements: only ${out.size} distinct templates in ${tries} draws; ${n} were asked for`);
    const mood = rng.pick(moods);
    const opener = rng.pick(parts.openers);
    const clause = `${rng.pick(parts.hedges[mood])}${rng.pick(parts.cores[mood])}${rng.pick(parts.closers)}${rng.pick(parts.endings)}`;
    const text = opener === '' || opener.endsWith('. ') ? `${opener}${capitalise(clause)}` : `${opener}${clause}`;
    out.add(rng.chance(0.2) ? text.toLowerCase() : capitalise(text));
  }
  return [...out];
}

/** The parts the forge trains on (phrasingsTraining.ts); the held-out file's parts share none of these clauses. */
export const TRAINING_STATEMENT_PARTS: StatementParts = {
  cores: {
    statement: [
      'the {name} is {value}{unit}',
      'the {name} should be {value}{unit}',
      'the {name} needs to be {value}{unit}',
      'the {name} will be {value}{unit}',
      '{name} is {value}{unit}',
      '{name}: {value}{unit}',
      '{name} = {value}{unit}',
      'our {name} is {value}{unit}',
      'we use {value}{unit} for the {name}',
      '{value}{unit} is the {name}',
      '{value}{unit} is what we use for the {name}',
      '{value}{unit} for the {name}',
      "it's {value}{unit} for the {name}",
      "{value}{unit}, that's the {name}",
      'the {name} we agreed on is {value}{unit}',
      'we settled on {value}{unit} for the {name}',
    ],
    instruction: [
      'use {value}{unit} for the {name}',
      'set the {name} to {value}{unit}',
      'make the {name} {value}{unit}',
      'put the {name} at {value}{unit}',
      'give the {name} a value of {value}{unit}',
      'choose {value}{unit} for the {name}',
      'take {value}{unit} as the {name}',
      'for the {name}, use {value}{unit}',
      'use a {name} of {value}{unit}',
    ],
  },
  openers: ['', '', '', 'OK, ', 'Sure, ', 'Right, ', 'Good question. ', 'Let me check. ', 'Hmm, ', 'So ', 'Alright: ', 'Oh, ', 'Well, ', 'Got it. '],
  hedges: {
    statement: ['', '', '', 'I think ', 'I believe ', 'probably ', 'as far as I know, ', "if I'm not mistaken, ", 'I guess '],
    instruction: ['', '', '', 'just ', 'please ', 'maybe '],
  },
  closers: ['', '', '', ', I think', ', as far as I remember', ' for now', ' in our setup', '. Hope that helps', '. Let me know if you need more', ', thanks'],
  endings: ['.', '.', '.', '!', '', '...'],
};
