// Vite plugin that emits sw.js at build time: the service worker body (sw.js beside this file)
// preceded by the list of every emitted file to precache and a version hash of that list.
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { Plugin } from 'vite';

/** The shipped model files (public/models/manifest.json and every file it lists), as page-relative URLs. */
function modelFiles(): string[] {
  const manifest = new URL('../../../public/models/manifest.json', import.meta.url);
  if (!existsSync(manifest)) return [];
  const { models } = JSON.parse(readFileSync(manifest, 'utf8')) as { models: Record<string, { files: { path: string }[] }> };
  return ['./models/manifest.json', ...Object.values(models).flatMap((m) => m.files.map((f) => `./models/${f.path}`))];
}

export function serviceWorker(): Plugin {
  return {
    name: 'turnwise-service-worker',
    apply: 'build',
    generateBundle(_options, bundle) {
      const files = ['./', ...Object.keys(bundle).map((f) => `./${f}`), ...modelFiles()].sort();
      const version = createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 12);
      const body = readFileSync(new URL('./sw.js', import.meta.url), 'utf8');
      const head = `self.PRECACHE = ${JSON.stringify(files)};\nself.VERSION = ${JSON.stringify(version)};\n`;
      this.emitFile({ type: 'asset', fileName: 'sw.js', source: head + body });
    },
  };
}
