// Writes recipes/verl/guess_table.json from the TypeScript guess family (src/rl/bridge/guessTable.ts):
//   npx tsx scripts/guess-table.ts
import { writeFileSync } from 'node:fs';
import { guessRecipeTableJson } from '../src/rl/bridge/guessTable.ts';

writeFileSync(new URL('../recipes/verl/guess_table.json', import.meta.url), guessRecipeTableJson());
console.log('wrote recipes/verl/guess_table.json');
