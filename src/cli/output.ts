// Output paths checked before any work starts (issue 22 point 6): `--out` under an unwritable place
// used to fail only after training ended, losing the run, or hang — Node's recursive mkdir loops on
// paths under /proc. So folders are made one level at a time from the nearest existing one (each
// mkdir fails at once), and a probe file is written and removed where the output will go.
import { constants } from 'node:fs';
import { access, mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from './command.ts';

// C0/C1 controls (Unicode category Cc) and format characters (Cf: bidi overrides and isolates, zero widths, BOM)
const INVISIBLE = /^[\p{Cc}\p{Cf}]$/u;

/** The path with bidi controls and other invisible or control characters escaped (\u202e…), for messages. */
export function shownPath(path: string): string {
  return Array.from(path, (c) => (INVISIBLE.test(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('');
}

async function kind(path: string): Promise<'dir' | 'file' | null> {
  try {
    return (await stat(path)).isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

/** Makes `dir` (and missing parents) and proves it writable; throws UsageError naming `option` otherwise. */
export async function prepareOutDir(dir: string, option = 'out'): Promise<void> {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    const k = await kind(at);
    if (k === 'file') throw new UsageError(`--${option} ${shownPath(dir)}: ${shownPath(at)} is a file, not a folder`);
    if (k === 'dir') break;
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const m of missing) {
    try {
      await mkdir(m);
    } catch (e) {
      throw new UsageError(`--${option} ${shownPath(dir)}: cannot create ${shownPath(m)} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  const probe = join(resolve(dir), `.turnwise-write-check-${process.pid}`);
  try {
    await writeFile(probe, '');
    await unlink(probe);
  } catch (e) {
    throw new UsageError(`--${option} ${shownPath(dir)} is not writable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** Proves that the file `path` can be written (its folder made if needed; an existing file writable, not a folder). */
export async function prepareOutFile(path: string, option = 'out'): Promise<void> {
  const k = await kind(path);
  if (k === 'dir') throw new UsageError(`--${option} ${shownPath(path)} is a folder; give a file name`);
  await prepareOutDir(dirname(resolve(path)), option);
  if (k === 'file') {
    try {
      await access(path, constants.W_OK);
    } catch {
      throw new UsageError(`--${option} ${shownPath(path)} is not writable`);
    }
  }
}
