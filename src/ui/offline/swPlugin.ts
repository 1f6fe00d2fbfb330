// Vite plugin that emits sw.js at build time: the service worker body (sw.js beside this file)
// preceded by the list of every emitted file to precache, a version hash of that list, and the
// shipped model files' sha256 (the worker caches no model that fails it). Emitted files are the
// bundle's and public/'s: public/ is copied as is, outside the bundle, and holds the favicon, which
// an offline reload otherwise failed to fetch (a console error, issue 20); its models come from the
// manifest instead, so only the files it lists are cached.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Plugin } from 'vite';

/** The shipped model files (public/models/manifest.json and every file it lists) as page-relative URLs, with their sha256. */
function modelFiles(): { files: string[]; sha256: Record<string, string> } {
  const manifest = new URL('../../../public/models/manifest.json', import.meta.url);
  if (!existsSync(manifest)) return { files: [], sha256: {} };
  const { models } = JSON.parse(readFileSync(manifest, 'utf8')) as { models: Record<string, { files: { path: string; sha256: string }[] }> };
  const listed = Object.values(models).flatMap((m) => m.files);
  return {
    files: ['./models/manifest.json', ...listed.map((f) => `./models/${f.path}`)],
    sha256: Object.fromEntries(listed.map((f) => [`./models/${f.path}`, f.sha256])),
  };
}

/** public/'s files outside models/ (the favicon) as page-relative URLs. */
function publicFiles(dir: string, under = ''): string[] {
  if (!dir || !existsSync(dir)) return [];
  return readdirSync(join(dir, under), { withFileTypes: true }).flatMap((e) => {
    const path = under ? `${under}/${e.name}` : e.name;
    if (e.isDirectory()) return path === 'models' ? [] : publicFiles(dir, path);
    return e.isFile() ? [`./${path}`] : [];
  });
}

export function serviceWorker(): Plugin {
  let publicDir = '';
  return {
    name: 'turnwise-service-worker',
    apply: 'build',
    configResolved(config) {
      publicDir = config.publicDir;
    },
    generateBundle(_options, bundle) {
      const models = modelFiles();
      const files = ['./', ...Object.keys(bundle).map((f) => `./${f}`), ...publicFiles(publicDir), ...models.files].sort();
      const version = createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 12);
      const body = readFileSync(new URL('./sw.js', import.meta.url), 'utf8');
      const head = `self.PRECACHE = ${JSON.stringify(files)};\nself.VERSION = ${JSON.stringify(version)};\nself.MODEL_SHA256 = ${JSON.stringify(models.sha256)};\n`;
      this.emitFile({ type: 'asset', fileName: 'sw.js', source: head + body });
    },
  };
}
