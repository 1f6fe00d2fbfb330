// Writes the backend statements of the held-out phrasings file (test/fixtures/phrasings-heldout.json,
// issue #47): its hand-written sentences plus 48 composed the way the forge's training statements are
// (envs/wordings.ts composeStatements), from parts of their own. The clauses, hedges, openers and
// closers below are in no training part, so a policy that reads them reads wordings it never saw in
// orders, moods and fillers it did. The parts live here, outside src/, so no forge can train on them.
// Usage: npx tsx scripts/heldout-wordings.ts && npx prettier --write test/fixtures/phrasings-heldout.json (deterministic)
import { readFileSync, writeFileSync } from 'node:fs';
import { parsePhrasings } from '../src/rl/envs/phrasings.ts';
import { composeStatements, type StatementParts } from '../src/rl/envs/wordings.ts';

const FILE = 'test/fixtures/phrasings-heldout.json';
export const HELD_OUT_SEED = 4747;

/** The hand-written held-out statements (issue 18). */
export const WRITTEN = [
  'The value of the {name} is {value}{unit}.',
  'Put {value}{unit} in for the {name}.',
  '{name} is {value}{unit}, as agreed.',
  "I'd say the {name} is {value}{unit}.",
  'The {name} comes to {value}{unit}.',
  'Go with a {name} of {value}{unit}.',
  'The {name} is set at {value}{unit}.',
  'Our {name} is fixed at {value}{unit}, I believe.',
  "{value}{unit} — that's the {name}.",
  'For {name} we need {value}{unit}.',
  'The {name} must be {value}{unit}.',
  'the {name} equals {value}{unit}',
];

export const HELD_OUT_PARTS: StatementParts = {
  cores: {
    statement: [
      'the {name} comes out at {value}{unit}',
      'the {name} ought to be {value}{unit}',
      'the right {name} is {value}{unit}',
      '{value}{unit} — that is our {name}',
      '{value}{unit} is our {name}',
      'we went with {value}{unit} for the {name}',
      'the {name} sits at {value}{unit}',
      'the {name} has to be {value}{unit}',
      '{value}{unit} is the figure for the {name}',
      'the {name} was decided: {value}{unit}',
    ],
    instruction: [
      'go with {value}{unit} for the {name}',
      'pick {value}{unit} as the {name}',
      'plug in {value}{unit} for the {name}',
      'have the {name} be {value}{unit}',
      'fix the {name} at {value}{unit}',
      'enter {value}{unit} as the {name}',
    ],
  },
  openers: ['', '', 'Let me see... ', 'Yes — ', 'Okay so ', 'Good one. ', 'Ah, ', 'Checking my notes: '],
  hedges: { statement: ['', '', "I'd guess ", 'most likely ', 'to my knowledge ', 'I reckon '], instruction: ['', '', 'simply ', 'kindly ', 'perhaps '] },
  closers: ['', '', ', no doubt', ' if memory serves', ', nothing else', '. Cheers', ' on our side', ' at the moment'],
  endings: ['.', '.', '!!', ' :)', ''],
};

/** The file's backend statements: the written ones, then 48 composed from HELD_OUT_PARTS. */
export const heldOutStatements = (): string[] => [...WRITTEN, ...composeStatements(HELD_OUT_PARTS, 48, HELD_OUT_SEED)];

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = JSON.parse(readFileSync(FILE, 'utf8')) as { backend: { statement: string[] } };
  file.backend.statement = heldOutStatements();
  parsePhrasings(file);
  writeFileSync(FILE, `${JSON.stringify(file, null, 2)}\n`);
  console.log(`${FILE}: ${file.backend.statement.length} backend statements`);
}
