import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ATTRIBUTES, ITEMS } from '../../../src/rl/envs/guess/table.ts';

describe('recipes/verl/guess_table.json', () => {
  it("equals the guess family's attribute table (the veRL interaction re-states its collaborator from it)", () => {
    const table = JSON.parse(readFileSync(new URL('../../../recipes/verl/guess_table.json', import.meta.url), 'utf8'));
    expect(table.attributes).toEqual(ATTRIBUTES.map((a) => ({ key: a.key, question: a.question })));
    expect(table.items).toEqual(ITEMS.map((it) => ({ name: it.name, facts: [...it.facts] })));
  });
});
