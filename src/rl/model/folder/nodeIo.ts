// Node file-system reader and writer for model folders (the forge, the CLI and tests). Node only.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ReadBytes } from '../manifest.ts';
import type { WriteBytes } from './folder.ts';

/** Reads paths relative to `root`; a missing file resolves null. */
export function nodeReader(root: string): ReadBytes {
  return async (path) => {
    try {
      return new Uint8Array(await readFile(join(root, path)));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  };
}

/** Writes paths relative to `root`, creating folders. */
export function nodeWriter(root: string): WriteBytes {
  return async (path, bytes) => {
    const full = join(root, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, bytes);
  };
}
