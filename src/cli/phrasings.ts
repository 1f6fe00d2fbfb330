// `--phrasings FILE.json` (eval, passkt, credit-report): the simulated collaborator words its answers
// by sampling from a file that maps each canonical answer kind to phrasings (docs/envs.md,
// src/rl/envs/phrasings.ts). The file is read and validated before any work, so a bad one fails at
// once with exit code 2 and a message naming the file and the field.
import { readFile } from 'node:fs/promises';
import { UsageError } from './command.ts';
import { shownPath } from './output.ts';
import { parsePhrasings, type Phrasings } from '../rl/envs/phrasings.ts';

/** The validated phrasings of `--phrasings FILE`, or undefined when the flag is absent. */
export async function phrasingsOption(path: string | undefined): Promise<Phrasings | undefined> {
  if (path === undefined) return undefined;
  const where = `--phrasings ${shownPath(path)}`;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new UsageError(`${where}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    throw new UsageError(`${where}: not JSON (${(e as Error).message})`);
  }
  try {
    return parsePhrasings(value);
  } catch (e) {
    if ((e as Error).name === 'PhrasingsError') throw new UsageError(`${where}: ${(e as Error).message}`);
    throw e;
  }
}
