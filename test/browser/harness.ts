// Browser-test plumbing: serve the built app (vite preview, with COOP/COEP) and drive Debian's
// Chromium through playwright-core with WebGPU enabled (SwiftShader on these machines: correct,
// slow, never for timing). Flags from docs/design.md, "Testing here".
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { CHROMIUM_MISSING, locateChromium } from '../support/chromium.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { preview, type PreviewServer } from 'vite';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Where Chromium is; throws with install instructions when it is absent. */
export function findChromium(): string {
  const path = locateChromium();
  if (!path) throw new Error(CHROMIUM_MISSING);
  return path;
}

/** Serves dist/ on a free loopback port with the same headers as `npm start`. */
export async function serveApp(): Promise<{ url: string; close: () => Promise<void> }> {
  if (!existsSync(join(ROOT, 'dist', 'index.html'))) throw new Error('dist/ is missing: run `npx vite build` first (npm test does).');
  const server: PreviewServer = await preview({ root: ROOT, logLevel: 'silent', preview: { port: 0, host: '127.0.0.1', strictPort: false } });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('vite preview did not report a URL');
  return { url, close: () => server.close() };
}

export interface BrowserOptions {
  /** Pass --enable-unsafe-webgpu (default true); false exercises the no-WebGPU path. */
  webgpu?: boolean;
  /** Reuse a profile directory (for reopen-after-crash tests); a fresh one by default. */
  userDataDir?: string;
  viewport?: { width: number; height: number };
  /** 'block' keeps the lab's service worker from caching the app and models (their bytes count against the quota). */
  serviceWorkers?: 'allow' | 'block';
  /** Show the first-visit tour (default false: it is marked seen, so views and screenshots start uncovered). */
  firstVisit?: boolean;
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  userDataDir: string;
  /** Messages the page logged at error level and uncaught page errors. */
  errors: string[];
  close(opts?: { keepProfile?: boolean }): Promise<void>;
}

export async function launch(opts: BrowserOptions = {}): Promise<Browser> {
  const userDataDir = opts.userDataDir ?? mkdtempSync(join(tmpdir(), 'turnwise-chromium-'));
  const args = [
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
    '--disable-dev-shm-usage',
  ];
  if (opts.webgpu !== false) args.push('--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-angle=swiftshader');
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: findChromium(),
    headless: true,
    args,
    serviceWorkers: opts.serviceWorkers ?? 'allow',
    viewport: opts.viewport ?? { width: 1280, height: 800 },
  });
  if (!opts.firstVisit) await context.addInitScript(() => localStorage.setItem('turnwise.toured', '1'));
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return {
    context,
    page,
    userDataDir,
    errors,
    async close({ keepProfile = false } = {}) {
      await context.close();
      if (!keepProfile) rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * In the Play view: starts a new episode with the selected agent and lets the simulator answer to
 * the end. Waits for the new episode's own outcome, and copes with an episode that ends before
 * "Run to the end" can be pressed (e.g. an agent that guesses at once). The previous outcome is
 * marked first rather than waited out: an episode that ends in its first turn can replace it with
 * the same text before its removal is ever seen (it was, in about one run in three).
 */
export async function playToEnd(page: Page, timeout = 120_000): Promise<void> {
  const runToEnd = page.getByTestId('run-to-end');
  await page.getByTestId('outcome').evaluateAll((els) => els.forEach((e) => e.setAttribute('data-previous', '')));
  const outcome = page.locator('[data-testid=outcome]:not([data-previous])');
  await page.getByTestId('new-episode').click();
  await runToEnd.or(outcome).first().waitFor({ timeout });
  // The button hides while the agent thinks; if the episode ends meanwhile, there is nothing to press.
  await runToEnd.click({ timeout: 5_000 }).catch(() => undefined);
  await outcome.waitFor({ timeout });
}
