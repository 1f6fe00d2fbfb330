// The collaborators' phrasings (src/rl/envs/phrasings.ts, phrasingsTraining.ts; issue 18): every
// varied guess phrasing reads back as its kind for every attribute, every backend statement carries
// the exact value, the held-out file shares no phrasing with the training set, bad phrasings fail with
// a message naming the field, and the default stays the canonical wording.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CANONICAL_PHRASINGS,
  FACT_SENTENCES,
  fillStatement,
  parsePhrasings,
  PHRASING_KINDS,
  withFact,
  type Phrasings,
} from '../../../src/rl/envs/phrasings.ts';
import { TRAINING_PHRASINGS } from '../../../src/rl/envs/phrasingsTraining.ts';
import { readAnswer } from '../../../src/rl/envs/guess/env.ts';
import { readReply } from '../../../src/rl/envs/guess/answers.ts';
import { ATTRIBUTES } from '../../../src/rl/envs/guess/table.ts';
import { TEMPLATES, lit } from '../../../src/rl/envs/backend/templates.ts';
import { readValue } from '../../../src/rl/envs/backend/agents.ts';
import type { TaskSpec } from '../../../src/rl/envs/types.ts';
import { createAgent, createEnv, type FamilyName } from '../../../src/rl/envs/registry.ts';
import { playEpisode } from '../../../src/rl/rollout/rollout.ts';
import type { PhrasingSetting } from '../../../src/rl/envs/phrasings.ts';

const HELD_OUT_PATH = new URL('../../fixtures/phrasings-heldout.json', import.meta.url);
const heldOutJson = (): Record<string, unknown> => JSON.parse(readFileSync(HELD_OUT_PATH, 'utf8')) as Record<string, unknown>;

/** Case, spacing and punctuation folded, so "Yes!" and "yes." count as one phrasing. */
const fold = (p: string) =>
  p
    .toLowerCase()
    .replace(/[^a-z{}]+/g, ' ')
    .trim();

function expectReadAsKind(phrasings: Phrasings): void {
  for (const kind of PHRASING_KINDS.guess) {
    for (const p of phrasings.guess[kind]) {
      for (let a = 0; a < ATTRIBUTES.length; a++) {
        // the reader a person's reply goes through, and the env's own reading of a reply
        expect(readReply(p, a).kind, `${kind}: ${p} / ${ATTRIBUTES[a].key}`).toBe(kind);
        expect(readAnswer(p, a), `${kind}: ${p} / ${ATTRIBUTES[a].key}`).toBe(kind);
      }
    }
  }
}

function expectExactValues(phrasings: Phrasings): void {
  for (const template of phrasings.backend.statement) {
    for (const t of TEMPLATES) {
      for (const p of t.params) {
        for (const v of p.values) {
          const text = fillStatement(template, p.name, v, p.unit);
          expect(text, template).toContain(lit(v));
          expect(text, template).toContain(p.name);
          // the scripted expert reads the first number or quoted word: it must be the value
          expect(readValue(text), text).toBe(v);
        }
      }
    }
  }
}

/** The named error a bad phrasings object raises. */
function bad(value: unknown): { name: string; code: string | undefined; message: string } {
  try {
    parsePhrasings(value);
  } catch (e) {
    return { name: (e as Error).name, code: (e as { code?: string }).code, message: (e as Error).message };
  }
  throw new Error('accepted');
}

describe('phrasings', () => {
  it('the training set is broad, contains the canonical phrasings, and every guess phrasing reads as its kind for every attribute', () => {
    expect(TRAINING_PHRASINGS.guess.yes.length).toBeGreaterThanOrEqual(40);
    expect(TRAINING_PHRASINGS.guess.no.length).toBeGreaterThanOrEqual(40);
    expect(TRAINING_PHRASINGS.guess.unknown.length).toBeGreaterThanOrEqual(25);
    expect(TRAINING_PHRASINGS.backend.statement.length).toBeGreaterThanOrEqual(20);
    for (const family of ['guess', 'backend'] as const) {
      for (const [kind, list] of Object.entries(CANONICAL_PHRASINGS[family])) {
        for (const p of list as string[]) expect((TRAINING_PHRASINGS[family] as unknown as Record<string, string[]>)[kind]).toContain(p);
      }
    }
    expectReadAsKind(TRAINING_PHRASINGS);
    expect(parsePhrasings(TRAINING_PHRASINGS)).toEqual(TRAINING_PHRASINGS);
  });

  it('the written backend statements, the canonical among them, make about 30% of the training draws beside the composed ones', () => {
    const list = TRAINING_PHRASINGS.backend.statement;
    const repeated = (t: string) => list.indexOf(t) !== list.lastIndexOf(t);
    const written = list.filter(repeated).length / list.length;
    expect(written).toBeGreaterThanOrEqual(0.25);
    expect(written).toBeLessThanOrEqual(0.35);
    for (const t of CANONICAL_PHRASINGS.backend.statement) expect(repeated(t), t).toBe(true);
    expect(new Set(list).size).toBeGreaterThanOrEqual(150);
  });

  it('every backend statement of the training set carries the exact value of every parameter of every template', () => {
    expectExactValues(TRAINING_PHRASINGS);
  });

  it('the held-out file is valid, large enough, read right, and shares no phrasing with the training set', () => {
    const held = parsePhrasings(heldOutJson());
    for (const kind of PHRASING_KINDS.guess) expect(held.guess[kind].length, kind).toBeGreaterThanOrEqual(20);
    expect(held.backend.statement.length).toBeGreaterThanOrEqual(10);
    expectReadAsKind(held);
    expectExactValues(held);
    const phrasingsOf = (p: Phrasings) => [...PHRASING_KINDS.guess.flatMap((k) => p.guess[k]), ...PHRASING_KINDS.backend.flatMap((k) => p.backend[k])];
    const trained = new Set(phrasingsOf(TRAINING_PHRASINGS).map(fold));
    const shared = phrasingsOf(held).filter((p) => trained.has(fold(p)));
    expect(shared).toEqual([]);
  });

  it('rejects a bad phrasings object with a named error whose message names the field', () => {
    const backend = { statement: ['The {name} is {value}{unit}.'], unknown: ["I don't know."], unsure: ['I am not sure.'] };
    expect(bad({ backend: { ...backend, statement: ['The {name} is {value}.', 'The {name} is set.'] } })).toEqual({
      name: 'PhrasingsError',
      code: 'bad-template',
      message: expect.stringMatching(/^backend\.statement\[1\] "The \{name\} is set\." must contain \{value\} exactly once/),
    });
    expect(bad({ backend: { ...backend, statement: ['The {name} is {value} or {value}.'] } }).message).toMatch(
      /^backend\.statement\[0\] .* must contain \{value\} exactly once/,
    );
    expect(bad({ backend: { ...backend, statement: ['The {name} is {value}{units}.'] } }).message).toMatch(
      /^backend\.statement\[0\] .* has the placeholder \{units\}/,
    );
    expect(bad({ backend: { ...backend, statement: ['The {name} is {value}, 2 times over.'] } }).message).toMatch(
      /^backend\.statement\[0\] .* has a digit outside its placeholders/,
    );
    expect(bad({ backend: { ...backend, unknown: ['Ask about the {name}.'] } }).message).toMatch(/^backend\.unknown\[0\] .* this kind takes none/);
    expect(bad({ guess: { yes: ['Yes.', 'Maybe.'], no: ['No.'], unknown: ['No idea.'] } })).toEqual({
      name: 'PhrasingsError',
      code: 'misread',
      message: expect.stringMatching(/^guess\.yes\[1\] "Maybe\." reads as unsure, not yes, as an answer to "/),
    });
    expect(bad({ guess: { yes: ['Yes.'], no: ['Nope, it has fur.'], unknown: ['No idea.'] } }).message).toMatch(
      /^guess\.no\[0\] "Nope, it has fur\." reads as (unsure|yes), not no, as an answer to "does it have fur\?"/,
    );
    expect(bad({ guess: { yes: ['Yes.'], no: [], unknown: ['No idea.'] } })).toEqual({
      name: 'PhrasingsError',
      code: 'bad-shape',
      message: 'guess.no must be a non-empty list of strings',
    });
    expect(bad({ guess: { yes: ['Yes.'], no: ['No.'] } }).message).toBe('guess.unknown is missing');
    expect(bad({ guess: { yes: ['Yes.'], no: ['No.'], unknown: ['?'], maybe: ['Maybe.'] } }).message).toBe(
      'guess.maybe is not an answer kind (known: yes, no, unknown)',
    );
    expect(bad({ gues: {} }).message).toMatch(/^"gues" is not a family with phrasings/);
    expect(bad({}).message).toBe('phrasings must name "guess" and/or "backend"');
    expect(bad([]).code).toBe('bad-shape');
  });

  it('every fact sentence reads as the fact it states when its own attribute is asked about', () => {
    ATTRIBUTES.forEach((a, i) => {
      const [yes, no] = FACT_SENTENCES[a.key];
      expect(readReply(yes, i).kind, yes).toBe('yes');
      expect(readReply(no, i).kind, no).toBe('no');
    });
    expect(bad({ guess: { yes: ['Yes.'], no: ['No.'], unknown: ['No idea.'], factRate: 2 } }).message).toBe('guess.factRate must be a number in [0, 1], got 2');
    expect(parsePhrasings({ guess: { yes: ['Yes.'], no: ['No.'], unknown: ['No idea.'], factRate: 0.5 } }).guess.factRate).toBe(0.5);
  });

  it('a family the file leaves out keeps its canonical phrasings', () => {
    const p = parsePhrasings({ guess: { yes: ['Yep.'], no: ['Nope.'], unknown: ['No idea.'] } });
    expect(p.backend).toEqual(CANONICAL_PHRASINGS.backend);
    expect(p.guess.yes).toEqual(['Yep.']);
  });
});

/** Replies of a seeded noisy-expert episode played with the given phrasings. */
async function replies(family: FamilyName, seed: number, phrasings?: PhrasingSetting, noise = 0.3): Promise<string[]> {
  const spec: TaskSpec = { family, split: 'train', seed, options: { noise } };
  const ep = await playEpisode(createAgent('noisy', family, { seed }), spec, phrasings === undefined ? {} : { phrasings });
  return ep.turns.map((t) => t.reply ?? '');
}

describe('phrased collaborators', () => {
  it('by default the collaborators speak the canonical phrasings, exactly as with phrasings "canonical"', async () => {
    for (const family of ['guess', 'backend'] as const) {
      for (let seed = 0; seed < 20; seed++) expect(await replies(family, seed)).toEqual(await replies(family, seed, 'canonical'));
    }
    const env = createEnv('guess');
    env.reset({ family: 'guess', split: 'test', seed: 3 });
    expect(CANONICAL_PHRASINGS.guess.yes.concat(CANONICAL_PHRASINGS.guess.no)).toContain(env.step('does it have fur?').observation.split(' Remaining')[0]);
  });

  it('varied phrasings are seeded (same seed, same wording), differ from the canonical ones, and come from the set, some with a true fact', async () => {
    const g = TRAINING_PHRASINGS.guess;
    const all = new Set([...g.yes, ...g.no, ...g.unknown]);
    let differs = 0;
    let facts = 0;
    let answers = 0;
    for (let seed = 0; seed < 40; seed++) {
      const varied = await replies('guess', seed, 'varied');
      expect(await replies('guess', seed, 'varied')).toEqual(varied);
      const hidden = createEnv('guess').reset({ family: 'guess', split: 'train', seed, options: { noise: 0.3 } }).hidden.facts as Record<string, boolean>;
      for (const r of varied.filter(Boolean)) {
        if (!g.unknown.includes(r)) answers++;
        if (all.has(r)) continue;
        // else a phrasing of the set followed by a fact sentence that is true of the hidden animal
        const fact = Object.entries(FACT_SENTENCES).find(([, [yes, no]]) => r.endsWith(` ${yes}`) || r.endsWith(` ${no}`));
        expect(fact, r).toBeDefined();
        const [key, [yes]] = fact as [string, readonly [string, string]];
        expect(r.endsWith(` ${yes}`), `${r} (${key} is ${hidden[key]})`).toBe(hidden[key]);
        expect(
          [...g.yes, ...g.no].some((p) => r === withFact(p, r.endsWith(` ${yes}`) ? yes : FACT_SENTENCES[key as keyof typeof FACT_SENTENCES][1])),
          r,
        ).toBe(true);
        facts++;
      }
      if (JSON.stringify(varied) !== JSON.stringify(await replies('guess', seed))) differs++;
    }
    expect(differs).toBeGreaterThan(30);
    // factRate 0.25, less the few a restatement would have changed
    expect(facts / answers).toBeGreaterThan(0.12);
    expect(facts / answers).toBeLessThan(0.35);
  });

  it('the environment and the scripted expert read every varied reply as meant: the expert still solves every task', async () => {
    for (const phrasings of ['varied', parsePhrasings(heldOutJson())] as const) {
      for (const family of ['guess', 'backend'] as const) {
        for (let seed = 0; seed < 60; seed++) {
          const ep = await playEpisode(createAgent('expert', family, { seed }), { family, split: 'train', seed }, { phrasings });
          expect(ep.success, `${family} seed ${seed}: ${ep.turns.map((t) => t.observation).join(' | ')}`).toBe(true);
        }
      }
    }
  });
});
