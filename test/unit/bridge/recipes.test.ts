import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { guessRecipeTableJson } from '../../../src/rl/bridge/guessTable.ts';
import { ATTRIBUTES, ITEMS } from '../../../src/rl/envs/guess/table.ts';
import { GUESS_KEYWORDS, GUESS_REPLIES } from '../../../src/rl/envs/guess/env.ts';

describe('recipes/verl/guess_table.json', () => {
  const text = readFileSync(new URL('../../../recipes/verl/guess_table.json', import.meta.url), 'utf8');

  it('is current: what scripts/guess-table.ts writes from the TypeScript guess family (npx tsx scripts/guess-table.ts)', () => {
    expect(text).toBe(guessRecipeTableJson());
  });

  it("holds the guess family's attribute table, the collaborator's phrasings and the keyword reader", () => {
    const table = JSON.parse(text);
    expect(table.attributes).toEqual(ATTRIBUTES.map((a) => ({ key: a.key, question: a.question })));
    expect(table.items).toEqual(ITEMS.map((it) => ({ name: it.name, facts: [...it.facts] })));
    expect(table.replies).toEqual({ yes: GUESS_REPLIES.yes, no: GUESS_REPLIES.no, unknown: GUESS_REPLIES.unknown });
    expect(table.keywords.map(([source]: [string]) => new RegExp(source).source)).toEqual(GUESS_KEYWORDS.map(([re]) => re.source));
    // no flags: the Python side compiles the sources with re.ASCII and nothing else
    expect(GUESS_KEYWORDS.every(([re]) => re.flags === '')).toBe(true);
  });
});
