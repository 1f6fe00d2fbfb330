// Reads model files over HTTP(S) relative to a base URL, for workers and pages (Node uses fs).
import type { ReadBytes } from '../model/manifest.ts';

/** A ReadBytes over fetch; a 404 (or network failure) reads as a missing file. */
export function urlReader(baseUrl: string): ReadBytes {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return async (path) => {
    const res = await fetch(new URL(path, base)).catch(() => null);
    if (!res?.ok) return null;
    return new Uint8Array(await res.arrayBuffer());
  };
}
