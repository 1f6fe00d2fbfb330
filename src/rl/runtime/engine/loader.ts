// Reading a model folder for the engine: from a URL root with manifest.json (sha256-verified, with
// byte-level progress, kept in Cache Storage so the lab works offline after the first load), from
// bytes in memory (files a user picked, or a test), from any ReadBytes (Node's fs in the CLI), or
// as an already loaded model (the forge's held-out check, before anything is written).
// A load that fails verification evicts what the cache served and retries from the network once
// (docs/style.md point 9: caches forget failures).
import { loadModel, loadModelFolderUnverified, type LoadedModel } from '../../model/folder/folder.ts';
import { ModelFileError, parseManifest, type ReadBytes } from '../../model/manifest.ts';
import type { LoadProgress, ModelSource } from './types.ts';

/** Cache Storage bucket for model files (keyed by URL; the manifest's sha256 guards staleness). Not "turnwise-…": the service worker deletes those on update. */
export const MODEL_CACHE = 'engine-models-v1';

/** An in-thread source: any byte reader (e.g. nodeReader(root) in the CLI). */
export type ReaderSource = { kind: 'reader'; read: ReadBytes; name?: string; folder?: string; manifest: boolean };

/** An in-thread source: a model already in memory (its weights are used as they are, unverified). */
export type MemorySource = { kind: 'model'; model: LoadedModel };

export interface ReadResult {
  model: LoadedModel;
  bytes: number;
  verified: boolean;
  cachedFiles: number;
}

type Progress = (p: Omit<LoadProgress, 'model'>) => void;

function cacheStorage(): CacheStorage | null {
  return typeof caches !== 'undefined' ? caches : null;
}

/** Reads a response body, reporting bytes as they arrive. */
async function readBody(res: Response, onBytes: (n: number) => void): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    total += value.length;
    onBytes(value.length);
  }
  const out = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** A fetch reader over `baseUrl` that serves and fills Cache Storage, counting files it served. */
function cachedFetchReader(
  baseUrl: string,
  useCache: boolean,
  onBytes: (path: string, n: number, fromCache: boolean) => void,
): { read: ReadBytes; fromCache: Set<string>; purge: () => Promise<void> } {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  const fromCache = new Set<string>();
  const store = useCache ? cacheStorage() : null;
  const open = () => store?.open(MODEL_CACHE).catch(() => null) ?? Promise.resolve(null);
  const read: ReadBytes = async (path) => {
    const url = new URL(path, base).href;
    const cache = await open();
    const isManifest = path.endsWith('manifest.json');
    // Files are immutable under their sha256; the manifest is fetched fresh whenever the network answers.
    if (cache && !isManifest) {
      const hit = await cache.match(url);
      if (hit) {
        fromCache.add(path);
        const bytes = new Uint8Array(await hit.arrayBuffer());
        onBytes(path, bytes.length, true);
        return bytes;
      }
    }
    let res: Response;
    try {
      res = await fetch(url);
    } catch (e) {
      const hit = cache && isManifest ? await cache.match(url) : undefined;
      if (hit) {
        fromCache.add(path);
        return new Uint8Array(await hit.arrayBuffer());
      }
      throw new ModelFileError('missing', path, `fetching ${url} failed (${(e as Error).message}); offline and not cached`);
    }
    if (res.status === 404) return null;
    if (!res.ok) throw new ModelFileError('missing', path, `fetching ${url} failed: HTTP ${res.status}`);
    const bytes = await readBody(res, (n) => onBytes(path, n, false));
    await cache?.put(url, new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'application/octet-stream' } })).catch(() => undefined);
    return bytes;
  };
  const purge = async () => {
    const cache = await open();
    await Promise.all([...fromCache].map((p) => cache?.delete(new URL(p, base).href)));
    fromCache.clear();
  };
  return { read, fromCache, purge };
}

/** The manifest's byte total for model `name` (0 when unknown). */
async function manifestTotal(read: ReadBytes, name: string): Promise<number> {
  const bytes = await read('manifest.json');
  if (!bytes) return 0;
  const entry = parseManifest(new TextDecoder().decode(bytes)).models[name];
  return entry ? entry.files.reduce((a, f) => a + f.bytes, 0) : 0;
}

async function fromUrl(src: Extract<ModelSource, { kind: 'url' }>, progress: Progress): Promise<ReadResult> {
  let loaded = 0;
  let total = 0;
  const onBytes = (file: string, n: number, fromCache: boolean) => {
    loaded += n;
    if (!file.endsWith('manifest.json')) progress({ stage: 'download', loadedBytes: loaded, totalBytes: total, file, fromCache });
  };
  for (let attempt = 0; ; attempt++) {
    const r = cachedFetchReader(src.baseUrl, src.cache !== false && attempt === 0, onBytes);
    progress({ stage: 'manifest', loadedBytes: 0, totalBytes: 0 });
    total = await manifestTotal(r.read, src.name);
    loaded = 0;
    try {
      const model = await loadModel(r.read, src.name);
      progress({ stage: 'verify', loadedBytes: loaded, totalBytes: total });
      return { model, bytes: total, verified: true, cachedFiles: r.fromCache.size };
    } catch (e) {
      // A corrupt or stale cached copy is evicted and fetched again, once.
      if (attempt > 0 || r.fromCache.size === 0 || (e as Error).name !== 'ModelFileError') throw e;
      await r.purge();
    }
  }
}

function memoryReader(files: Record<string, Uint8Array>): ReadBytes {
  return async (path) => files[path.replace(/^\.?\//, '')] ?? null;
}

/** Reads and verifies a model from any source, reporting progress. */
export async function readModel(src: ModelSource | ReaderSource | MemorySource, progress: Progress): Promise<ReadResult> {
  if (src.kind === 'url') return fromUrl(src, progress);
  if (src.kind === 'model') {
    const bytes = Object.values(src.model.weights).reduce((a, w) => a + w.byteLength, 0);
    return { model: src.model, bytes, verified: false, cachedFiles: 0 };
  }
  const read = src.kind === 'files' ? memoryReader(src.files) : src.read;
  const manifest = src.kind === 'files' ? 'manifest.json' in src.files : src.manifest;
  progress({ stage: 'verify', loadedBytes: 0, totalBytes: 0 });
  if (manifest) {
    const name = src.name ?? 'policy';
    const total = await manifestTotal(read, name);
    const model = await loadModel(read, name);
    return { model, bytes: total, verified: true, cachedFiles: 0 };
  }
  const model = await loadModelFolderUnverified(read, src.folder ?? '');
  const bytes = Object.values(model.files).reduce((a, f) => a + f.length, 0);
  return { model, bytes, verified: false, cachedFiles: 0 };
}
