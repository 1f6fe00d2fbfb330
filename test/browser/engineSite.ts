// The site the engine's browser tests serve beside the built app: a tiny random model (the engine
// unit tests' tinyModels(8, 128)) and a comlink boot module under dist/<dir>/, so the app's
// own policy worker loads the model by URL and the page drives it through comlink. A file, not an
// inline script: the app's CSP allows scripts from 'self' only.
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { dirname, join } from 'node:path';
import { tinyModels } from '../unit/engine/fixtures.ts';
import { serveApp } from './harness.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

export type SiteFiles = Awaited<ReturnType<typeof tinyModels>>['files'];

/** Writes the model files and boot.mjs under dist/<dir>/ and returns the model files (for Node). */
async function writeEngineSite(dir: string): Promise<SiteFiles> {
  const { files } = await tinyModels(8, 128);
  for (const [path, bytes] of Object.entries(files)) {
    const full = join(ROOT, 'dist', dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, bytes);
  }
  copyFileSync(join(ROOT, 'node_modules/comlink/dist/esm/comlink.mjs'), join(ROOT, 'dist', dir, 'comlink.mjs'));
  writeFileSync(join(ROOT, 'dist', dir, 'boot.mjs'), "import * as c from './comlink.mjs';\nglobalThis.comlinkForTest = c;\n");
  return files;
}

/** The built app served with the engine site under /<dir>/; close() stops it and removes dist/<dir>/. */
export interface EngineSite {
  files: SiteFiles;
  url: string;
  close(): Promise<void>;
}

/** Writes the engine site under dist/<dir>/ and serves the built app beside it. */
export async function serveEngineSite(dir: string): Promise<EngineSite> {
  const files = await writeEngineSite(dir);
  const server = await serveApp();
  return {
    files,
    url: server.url,
    close: async () => {
      await server.close();
      rmSync(join(ROOT, 'dist', dir), { recursive: true, force: true });
    },
  };
}

/** One of the built app's workers, as a URL path (/assets/<kind>.worker-*.js). */
export function workerUrl(kind: 'policy' | 'trainer'): string {
  const worker = readdirSync(join(ROOT, 'dist/assets')).find((f) => new RegExp(`^${kind}\\.worker-.*\\.js$`).test(f));
  if (!worker) throw new Error(`dist/assets has no ${kind}.worker-*.js: run \`npx vite build\``);
  return `/assets/${worker}`;
}

/** The built app's policy worker. */
export const policyWorkerUrl = (): string => workerUrl('policy');

/**
 * Opens the app and loads comlink into the page as the app bundles it (an import inside evaluate
 * would be rewritten by vitest), as globalThis.comlinkForTest.
 */
export async function openWithComlink(page: Page, serverUrl: string, dir: string): Promise<void> {
  await page.goto(`${serverUrl}#/settings`);
  await page.addScriptTag({ type: 'module', url: `/${dir}/boot.mjs` });
  await page.waitForFunction(() => 'comlinkForTest' in globalThis);
}
