#!/usr/bin/env node
// `npx turnwise …`: runs the TypeScript command line through tsx, so src/ is the only source.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
