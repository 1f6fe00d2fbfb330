// Byte readers and writers for model folders: fetch (browsers, workers) here; Node's fs in nodeIo.ts,
// kept apart so browser bundles never see node:fs.
import { ModelFileError, type ReadBytes } from '../manifest.ts';

/** Reads paths relative to `baseUrl` with fetch; a 404 resolves null (a missing file). */
export function fetchReader(baseUrl: string, fetchFn: typeof fetch = globalThis.fetch.bind(globalThis)): ReadBytes {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return async (path) => {
    const res = await fetchFn(base + path);
    if (res.status === 404) return null;
    if (!res.ok) throw new ModelFileError('missing', path, `fetching ${base + path} failed: HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
}

/** An in-memory folder (tests, and models built in the tab before saving). */
export function memoryFolder(files: Map<string, Uint8Array> = new Map()): {
  files: Map<string, Uint8Array>;
  read: ReadBytes;
  write: (path: string, bytes: Uint8Array) => Promise<void>;
} {
  return {
    files,
    read: async (path) => files.get(path) ?? null,
    write: async (path, bytes) => {
      files.set(path, bytes.slice());
    },
  };
}
