// How the simulated collaborators word their answers (issue 18, "robust to a person"): a typed,
// validated map from each canonical answer kind to a list of phrasings, sampled with the
// environment's seeded randomness. The canonical phrasings are the ones the collaborators always
// used (and the ones every existing figure was measured with); the varied training set
// (phrasingsTraining.ts) lets the forge train on many ways of saying the same thing, and a phrasings
// file (`--phrasings FILE.json`, docs/envs.md) tests a policy on wordings it never saw.
//
// The environment must read every phrasing as the answer it stands for: a `guess` phrasing is held
// to the reader a person's reply goes through (guess/answers.ts readReply) for every attribute, and a
// `backend` statement must carry the exact value as the only number or quoted word in it (the
// scripted expert reads the first one, backend/agents.ts readValue).
import { readReply } from './guess/answers.ts';
import { ATTRIBUTES, type AttributeKey } from './guess/table.ts';
import { lit } from './backend/templates.ts';
import type { Value } from './backend/interp.ts';
import type { Rng } from '../util/rng.ts';
import { CodedError } from '../util/errors.ts';

/** A `guess` collaborator's answers to a yes/no question. */
export interface GuessPhrasings {
  /** The animal has the attribute asked about. */
  yes: readonly string[];
  /** It does not. */
  no: readonly string[];
  /** The collaborator does not know (noise, or a question about no attribute). */
  unknown: readonly string[];
  /**
   * Probability that a yes or no adds one true fact about the animal (FACT_SENTENCES, another
   * attribute than the one asked), kept only when the reader still reads the reply as meant; 0 or
   * absent: never (and no random draw, so the canonical phrasings stay exact).
   */
  factRate?: number;
}

/** How the collaborator states one fact about the hidden animal: [true, false] per attribute. */
export const FACT_SENTENCES: { readonly [K in AttributeKey]: readonly [string, string] } = {
  mammal: ['It is a mammal.', 'It is not a mammal.'],
  bird: ['It is a bird.', 'It is not a bird.'],
  fish: ['It is a fish.', 'It is not a fish.'],
  reptile: ['It is a reptile.', 'It is not a reptile.'],
  insect: ['It is an insect.', 'It is not an insect.'],
  fly: ['It can fly.', 'It cannot fly.'],
  water: ['It lives in water.', 'It does not live in water.'],
  fur: ['It has fur.', 'It has no fur.'],
  meat: ['It eats meat.', 'It does not eat meat.'],
  big: ['It is bigger than a person.', 'It is not bigger than a person.'],
  small: ['It is smaller than a cat.', 'It is not smaller than a cat.'],
  pet: ['People keep it.', 'People do not keep it.'],
  night: ['It is active at night.', 'It is not active at night.'],
  eggs: ['It lays eggs.', 'It does not lay eggs.'],
  africa: ['It lives in Africa.', 'It does not live in Africa.'],
  pattern: ['It has stripes or spots.', 'It has no stripes or spots.'],
  legs4: ['It has four legs.', 'It does not have four legs.'],
  venom: ['It is venomous.', 'It is not venomous.'],
  horns: ['It has horns or antlers.', 'It has no horns or antlers.'],
  cold: ['It lives in cold places.', 'It does not live in cold places.'],
};

/** A yes/no phrasing followed by a fact sentence. */
export function withFact(phrasing: string, fact: string): string {
  return `${phrasing}${/[.!?]$/.test(phrasing) ? '' : '.'} ${fact}`;
}

/** A `backend` collaborator's answers to a question about the hidden parameters. */
export interface BackendPhrasings {
  /** One parameter's value: templates with exactly one {name} and one {value}, at most one {unit} (" percent" or ""). */
  statement: readonly string[];
  /** The question named no listed parameter ("I can only tell you about the numbers I listed."); no placeholders. */
  unknown: readonly string[];
  /** The collaborator is not sure of one listed parameter (noise); may name it with {name}. */
  unsure: readonly string[];
}

/** Every collaborator's phrasings, by family and answer kind. */
export interface Phrasings {
  guess: GuessPhrasings;
  backend: BackendPhrasings;
}

/** How a collaborator phrases its answers: a built-in set by name, or explicit phrasings. */
export type PhrasingSetting = 'canonical' | 'varied' | Phrasings;

/** A phrasings object (or file) that the environment could not read back as intended. */
export class PhrasingsError extends CodedError<'bad-shape' | 'bad-template' | 'misread'> {
  override name = 'PhrasingsError';
}

/** The phrasings every collaborator used before issue 18; the default, so existing figures stay exact. */
export const CANONICAL_PHRASINGS: Phrasings = {
  guess: {
    yes: ['Yes.', 'Yes, that is right.', 'Yes, it is.'],
    no: ['No.', 'No, that is wrong.', 'No, it is not.'],
    unknown: ["I don't know.", 'I am not sure.'],
  },
  backend: {
    statement: ['The {name} is {value}{unit}.', 'The {name} should be {value}{unit}.', 'Use {value}{unit} for the {name}.'],
    unknown: ["I don't know.", 'I can only tell you about the numbers I listed.'],
    unsure: ['I am not sure.'],
  },
};

/** Answer kinds per family, in file order. */
export const PHRASING_KINDS = { guess: ['yes', 'no', 'unknown'], backend: ['statement', 'unknown', 'unsure'] } as const;

/** Longest phrasing accepted. */
export const MAX_PHRASING_CHARS = 300;

/**
 * One phrasing of a list. A list of one is returned without a draw, so the canonical phrasings use
 * the environment's random stream exactly as the collaborators always did.
 */
export function choosePhrasing(rng: Rng, list: readonly string[]): string {
  return list.length === 1 ? list[0] : rng.pick(list);
}

/** A backend statement template filled in: `{unit}` becomes " <unit>", or nothing for a unitless value. */
export function fillStatement(template: string, name: string, value: Value, unit: string): string {
  // replacement functions, so a "$" in a value is never read as a replacement pattern
  return template
    .replaceAll('{name}', () => name)
    .replaceAll('{value}', () => lit(value))
    .replaceAll('{unit}', () => (unit ? ` ${unit}` : ''));
}

/** A backend "not sure" phrasing filled in with the parameter's name. */
export function fillUnsure(template: string, name: string): string {
  return template.replaceAll('{name}', () => name);
}

const PLACEHOLDER = /\{([^{}]*)\}/g;

function count(text: string, placeholder: string): number {
  return text.split(`{${placeholder}}`).length - 1;
}

/** Checks one backend template's placeholders and that nothing else in it reads as a value. */
function checkTemplate(text: string, where: string, allowed: readonly string[], required: readonly string[]): void {
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (!allowed.includes(m[1])) {
      throw new PhrasingsError(
        'bad-template',
        `${where} ${JSON.stringify(text)} has the placeholder {${m[1]}}; ${allowed.length ? `only ${allowed.map((a) => `{${a}}`).join(', ')} may appear` : 'this kind takes none'}`,
      );
    }
  }
  for (const p of required) {
    if (count(text, p) !== 1) throw new PhrasingsError('bad-template', `${where} ${JSON.stringify(text)} must contain {${p}} exactly once`);
  }
  for (const p of allowed)
    if (count(text, p) > 1) throw new PhrasingsError('bad-template', `${where} ${JSON.stringify(text)} must contain {${p}} at most once`);
  // the value must be the only number or quoted word a reader finds (backend/agents.ts readValue)
  const rest = text.replace(PLACEHOLDER, ' ');
  if (/\d/.test(rest))
    throw new PhrasingsError(
      'bad-template',
      `${where} ${JSON.stringify(text)} has a digit outside its placeholders; the value must be the only number in a reply`,
    );
  if (rest.includes('"'))
    throw new PhrasingsError(
      'bad-template',
      `${where} ${JSON.stringify(text)} has a double quote outside its placeholders; a quoted word would read as the value`,
    );
}

/** Checks that the guess reader reads `text` as `kind` whatever attribute was asked about. */
function checkRead(text: string, where: string, kind: 'yes' | 'no' | 'unknown'): void {
  for (let a = 0; a < ATTRIBUTES.length; a++) {
    const read = readReply(text, a).kind;
    if (read !== kind) {
      throw new PhrasingsError(
        'misread',
        `${where} ${JSON.stringify(text)} reads as ${read}, not ${kind}, as an answer to "${ATTRIBUTES[a].question}" (the reader of src/rl/envs/guess/answers.ts)`,
      );
    }
  }
}

function list(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.length === 0) throw new PhrasingsError('bad-shape', `${where} must be a non-empty list of strings`);
  return value.map((x, i) => {
    if (typeof x !== 'string' || x.trim() === '') throw new PhrasingsError('bad-shape', `${where}[${i}] must be a non-empty string`);
    if (x.length > MAX_PHRASING_CHARS) throw new PhrasingsError('bad-shape', `${where}[${i}] has ${x.length} characters; at most ${MAX_PHRASING_CHARS}`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(x)) throw new PhrasingsError('bad-shape', `${where}[${i}] contains a control character`);
    return x;
  });
}

function section(value: unknown, where: string, kinds: readonly string[], settings: readonly string[] = []): Record<string, string[]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new PhrasingsError('bad-shape', `${where} must be an object with ${kinds.join(', ')}`);
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!kinds.includes(k) && !settings.includes(k)) throw new PhrasingsError('bad-shape', `${where}.${k} is not an answer kind (known: ${kinds.join(', ')})`);
  const out: Record<string, string[]> = {};
  for (const k of kinds) {
    if (!(k in o)) throw new PhrasingsError('bad-shape', `${where}.${k} is missing`);
    out[k] = list(o[k], `${where}.${k}`);
  }
  return out;
}

/**
 * Validates a phrasings object (as parsed from a file): `{guess?: {yes, no, unknown, factRate?}, backend?:
 * {statement, unknown, unsure}, description?}`; a family left out keeps its canonical phrasings. Every
 * guess phrasing must read as its kind, every backend template must hold its placeholders exactly;
 * failures raise PhrasingsError naming the field (e.g. `backend.statement[2]`).
 */
export function parsePhrasings(value: unknown): Phrasings {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new PhrasingsError('bad-shape', 'phrasings must be a JSON object with "guess" and/or "backend"');
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (k !== 'guess' && k !== 'backend' && k !== 'description')
      throw new PhrasingsError('bad-shape', `"${k}" is not a family with phrasings (known: guess, backend, and an optional description)`);
  if (!('guess' in o) && !('backend' in o)) throw new PhrasingsError('bad-shape', 'phrasings must name "guess" and/or "backend"');
  if ('description' in o && typeof o.description !== 'string') throw new PhrasingsError('bad-shape', 'description must be a string');
  let guess = CANONICAL_PHRASINGS.guess;
  if ('guess' in o) {
    const raw = o.guess;
    const factRate = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>).factRate : undefined;
    if (factRate !== undefined && !(typeof factRate === 'number' && factRate >= 0 && factRate <= 1))
      throw new PhrasingsError('bad-shape', `guess.factRate must be a number in [0, 1], got ${JSON.stringify(factRate)}`);
    const g = section(raw, 'guess', PHRASING_KINDS.guess, ['factRate']);
    for (const kind of PHRASING_KINDS.guess) g[kind].forEach((p, i) => checkRead(p, `guess.${kind}[${i}]`, kind));
    guess = { yes: g.yes, no: g.no, unknown: g.unknown, ...(factRate ? { factRate } : {}) };
  }
  let backend = CANONICAL_PHRASINGS.backend;
  if ('backend' in o) {
    const b = section(o.backend, 'backend', PHRASING_KINDS.backend);
    b.statement.forEach((p, i) => checkTemplate(p, `backend.statement[${i}]`, ['name', 'value', 'unit'], ['name', 'value']));
    b.unknown.forEach((p, i) => checkTemplate(p, `backend.unknown[${i}]`, [], []));
    b.unsure.forEach((p, i) => checkTemplate(p, `backend.unsure[${i}]`, ['name'], []));
    backend = { statement: b.statement, unknown: b.unknown, unsure: b.unsure };
  }
  return { guess, backend };
}
