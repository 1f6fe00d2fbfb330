// Backend statements composed from parts (src/rl/envs/wordings.ts; issue #47): the composition is
// deterministic and distinct, every template it makes is one the environment reads back exactly, the
// training set spans the orders and moods a fixed list missed, and the held-out file is composed the
// same way from clauses the training parts never use.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePhrasings } from '../../../src/rl/envs/phrasings.ts';
import { TRAINING_PHRASINGS } from '../../../src/rl/envs/phrasingsTraining.ts';
import { HELD_OUT_PARTS, heldOutStatements, WRITTEN } from '../../../scripts/heldout-wordings.ts';
import { composeStatements, TRAINING_STATEMENT_PARTS, valueFirst, type StatementParts } from '../../../src/rl/envs/wordings.ts';

const heldOut = () => parsePhrasings(JSON.parse(readFileSync(new URL('../../fixtures/phrasings-heldout.json', import.meta.url), 'utf8')));
const instructions = TRAINING_STATEMENT_PARTS.cores.instruction;
const isInstruction = (t: string) => instructions.some((c) => t.toLowerCase().includes(c.toLowerCase()));

describe('composed backend statements', () => {
  it('are deterministic in their seed, distinct, and as many as asked', () => {
    const a = composeStatements(TRAINING_STATEMENT_PARTS, 100, 3);
    expect(a).toEqual(composeStatements(TRAINING_STATEMENT_PARTS, 100, 3));
    expect(a).not.toEqual(composeStatements(TRAINING_STATEMENT_PARTS, 100, 4));
    expect(new Set(a).size).toBe(100);
  });

  it('every one parses as a statement template (one {name}, one {value}, no stray digit or quote)', () => {
    const templates = composeStatements(TRAINING_STATEMENT_PARTS, 300, 9);
    expect(() => parsePhrasings({ backend: { statement: templates, unknown: ['No idea.'], unsure: ['Not sure.'] } })).not.toThrow();
  });

  it('refuses to promise more distinct templates than its parts hold', () => {
    const tiny: StatementParts = {
      cores: { statement: ['the {name} is {value}{unit}'], instruction: ['use {value}{unit} for the {name}'] },
      openers: [''],
      hedges: { statement: [''], instruction: [''] },
      closers: [''],
      endings: ['.'],
    };
    // two clauses × (capitalised or lower-case) = 4 at most
    expect(composeStatements(tiny, 4, 1)).toHaveLength(4);
    expect(() => composeStatements(tiny, 5, 1)).toThrow(/only 4 distinct templates/);
  });

  it('the training set states values in both orders and both moods, not only "The {name} is {value}"', () => {
    const s = TRAINING_PHRASINGS.backend.statement;
    expect(s.length).toBeGreaterThanOrEqual(150);
    expect(s.filter(valueFirst).length / s.length).toBeGreaterThanOrEqual(0.2);
    expect(s.filter(isInstruction).length / s.length).toBeGreaterThanOrEqual(0.3);
    expect(s.filter((t) => /^(i think|i believe|probably|as far as i know|if i'm not mistaken|i guess)/i.test(t)).length).toBeGreaterThanOrEqual(10);
  });

  it('the held-out file is the written statements plus 48 composed from parts that share no clause, hedge, opener or closer with training', () => {
    const s = heldOut().backend.statement;
    expect(s).toEqual(heldOutStatements());
    expect(s).toHaveLength(WRITTEN.length + 48);
    expect(s.filter(valueFirst).length / s.length).toBeGreaterThanOrEqual(0.15);
    const words = (p: StatementParts) =>
      [...p.cores.statement, ...p.cores.instruction, ...p.openers, ...p.hedges.statement, ...p.hedges.instruction, ...p.closers]
        .map((x) => x.trim().toLowerCase())
        .filter(Boolean);
    const trained = new Set(words(TRAINING_STATEMENT_PARTS));
    expect(words(HELD_OUT_PARTS).filter((x) => trained.has(x))).toEqual([]);
  });
});
