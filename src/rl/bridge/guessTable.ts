// What recipes/verl/turnwise_guess.py needs to re-state the `guess` collaborator in Python, taken from
// the TypeScript that defines it (envs/guess/table.ts, env.ts, envs/phrasings.ts) and written to
// recipes/verl/guess_table.json by `npx tsx scripts/guess-table.ts`; test/unit/bridge/recipes.test.ts
// fails when the committed file is not what this returns. The rules themselves (turn costs, status
// lines, the turn limit) are ported in Python and held to the lab by a replay of the lab's episodes
// (test/unit/cli/recipesStdlib.test.ts).
import { GUESS_DEFAULTS, GUESS_KEYWORDS, GUESS_REPLIES } from '../envs/guess/env.ts';
import { ATTRIBUTES, ITEMS } from '../envs/guess/table.ts';

/** The JSON the Python collaborator reads. */
export interface GuessRecipeTable {
  attributes: { key: string; question: string }[];
  items: { name: string; facts: boolean[] }[];
  /** The simulated collaborator's phrasings (canonical set), drawn with the environment's Rng per answer. */
  replies: { yes: string[]; no: string[]; unknown: string[] };
  /** [regular expression source, attribute key]: Python's `re` reads these sources as JavaScript does (ASCII \b). */
  keywords: [string, string][];
  /** The family's default options (a task's own options override them). */
  defaults: { candidates: number; maxTurns: number; turnCost: number; uselessCost: number; noise: number };
}

export function guessRecipeTable(): GuessRecipeTable {
  return {
    attributes: ATTRIBUTES.map((a) => ({ key: a.key, question: a.question })),
    items: ITEMS.map((it) => ({ name: it.name, facts: [...it.facts] })),
    replies: { yes: [...GUESS_REPLIES.yes], no: [...GUESS_REPLIES.no], unknown: [...GUESS_REPLIES.unknown] },
    keywords: GUESS_KEYWORDS.map(([re, key]) => [re.source, key]),
    // the pool option (a narrower draw of candidates) is the lab's; the Python collaborator plays the tasks it is given
    defaults: {
      candidates: GUESS_DEFAULTS.candidates,
      maxTurns: GUESS_DEFAULTS.maxTurns,
      turnCost: GUESS_DEFAULTS.turnCost,
      uselessCost: GUESS_DEFAULTS.uselessCost,
      noise: GUESS_DEFAULTS.noise,
    },
  };
}

/** The file's text: one key per line, so a change to the table shows as a small diff. */
export function guessRecipeTableJson(): string {
  const t = guessRecipeTable();
  const lines = Object.entries(t).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `{\n${lines.join(',\n')}\n}\n`;
}
