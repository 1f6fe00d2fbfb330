// Vite plugin that emits sw.js at build time: the service worker body (sw.js beside this file)
// preceded by the list of every emitted file to precache, a version hash of that list, and the
// shipped model files' sha256 (the worker caches no model that fails it).
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { Plugin } from 'vite';

/** The shipped model files (public/models/manifest.json and every file it lists) as page-relative URLs, with their sha256. */
function modelFiles(): { files: string[]; sha256: Record<string, string> } {
  const manifest = new URL('../../../public/models/manifest.json', import.meta.url);
  if (!existsSync(manifest)) return { files: [], sha256: {} };
  const { models } = JSON.parse(readFileSync(manifest, 'utf8')) as { models: Record<string, { files: { path: string; sha256: string }[] }> };
  const listed = Object.values(models).flatMap((m) => m.files);
  return { files: ['./models/manifest.json', ...listed.map((f) => `./models/${f.path}`)], sha256: Object.fromEntries(listed.map((f) => [`./models/${f.path}`, f.sha256])) };
}

export function serviceWorker(): Plugin {
  return {
    name: 'turnwise-service-worker',
    apply: 'build',
    generateBundle(_options, bundle) {
      const models = modelFiles();
      const files = ['./', ...Object.keys(bundle).map((f) => `./${f}`), ...models.files].sort();
      const version = createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 12);
      const body = readFileSync(new URL('./sw.js', import.meta.url), 'utf8');
      const head = `self.PRECACHE = ${JSON.stringify(files)};\nself.VERSION = ${JSON.stringify(version)};\nself.MODEL_SHA256 = ${JSON.stringify(models.sha256)};\n`;
      this.emitFile({ type: 'asset', fileName: 'sw.js', source: head + body });
    },
  };
}
