// The model manifest (public/models/manifest.json): which model folders ship, their files, sizes and
// sha256. Loading verifies every file against it so a missing or corrupt file is a named error with
// its path, never a silent wrong answer. Pure: the caller supplies how bytes are read (fetch, fs).

/** One file of a model folder. */
export interface ManifestFile {
  /** Path relative to the manifest's folder, e.g. "policy/onnx/model.onnx". */
  path: string;
  bytes: number;
  sha256: string;
}

/** One model (policy or critic) in the Hugging Face layout. */
export interface ManifestModel {
  /** Folder relative to the manifest, e.g. "policy". */
  folder: string;
  files: ManifestFile[];
}

export interface ModelManifest {
  version: 1;
  /** Seed and command that produced the models; wallSeconds: the forge's wall time, summed over its resumed parts (`forge --resume`). */
  forge?: { seed: number; command: string; date: string; wallSeconds?: number };
  models: Record<string, ManifestModel>;
}

export type ModelErrorCode = 'missing' | 'corrupt' | 'bad-manifest';

/** A model file is missing, corrupt, or the manifest is unreadable. `path` says where. */
export class ModelFileError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'ModelFileError';
  }
}

/** Reads a file's bytes; resolves null when it does not exist. */
export type ReadBytes = (path: string) => Promise<Uint8Array | null>;

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Parses and validates a manifest's JSON text. */
export function parseManifest(text: string, path = 'manifest.json'): ModelManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ModelFileError('bad-manifest', path, `${path} is not valid JSON (${(e as Error).message})`);
  }
  const m = raw as Partial<ModelManifest>;
  if (m?.version !== 1 || typeof m.models !== 'object' || m.models === null) {
    throw new ModelFileError('bad-manifest', path, `${path} is not a version-1 Turnwise model manifest`);
  }
  for (const [name, model] of Object.entries(m.models)) {
    if (typeof model?.folder !== 'string' || !Array.isArray(model.files)) {
      throw new ModelFileError('bad-manifest', path, `${path}: model "${name}" needs a folder and a file list`);
    }
    for (const f of model.files) {
      if (typeof f?.path !== 'string' || typeof f.bytes !== 'number' || !/^[0-9a-f]{64}$/.test(f.sha256 ?? '')) {
        throw new ModelFileError('bad-manifest', path, `${path}: model "${name}" has a file entry without path, bytes and sha256`);
      }
    }
  }
  return m as ModelManifest;
}

/** Reads one listed file and checks its size and sha256. */
export async function readVerified(read: ReadBytes, file: ManifestFile): Promise<Uint8Array> {
  const bytes = await read(file.path);
  if (!bytes) throw new ModelFileError('missing', file.path, `model file ${file.path} is missing`);
  if (bytes.length !== file.bytes) {
    throw new ModelFileError('corrupt', file.path, `model file ${file.path} has ${bytes.length} bytes, the manifest says ${file.bytes}`);
  }
  const hash = await sha256Hex(bytes);
  if (hash !== file.sha256) throw new ModelFileError('corrupt', file.path, `model file ${file.path} fails its sha256 check`);
  return bytes;
}

/** What a verified models folder holds. */
export interface ModelsReport {
  found: boolean;
  models: { name: string; files: number; bytes: number }[];
  /** Why nothing usable was found (missing manifest, missing or corrupt file). */
  error?: string;
  /** The ModelFileError code when a file failed. */
  code?: ModelErrorCode;
}

/**
 * Reads `manifest.json` and verifies every listed file. Never throws: the report says what is
 * wrong and where, for the status area and `turnwise doctor`.
 */
export async function verifyModels(read: ReadBytes): Promise<ModelsReport> {
  const manifestBytes = await read('manifest.json').catch(() => null);
  if (!manifestBytes) return { found: false, models: [], code: 'missing', error: 'no models shipped yet: manifest.json is missing (run npm run forge)' };
  try {
    const manifest = parseManifest(new TextDecoder().decode(manifestBytes));
    const models = [];
    for (const [name, model] of Object.entries(manifest.models)) {
      for (const f of model.files) await readVerified(read, f);
      models.push({ name, files: model.files.length, bytes: model.files.reduce((a, f) => a + f.bytes, 0) });
    }
    return { found: true, models };
  } catch (e) {
    const err = e as ModelFileError;
    return { found: false, models: [], code: err.code, error: err.message };
  }
}
