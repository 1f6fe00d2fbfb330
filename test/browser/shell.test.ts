// The app shell in real Chromium: the backend status, the probe graph in the policy worker on
// WebGPU (SwiftShader, chosen by name) and on wasm, Auto passing over the software adapter for wasm,
// and the fallbacks when WebGPU is absent or its device is lost.
import { readFileSync } from 'node:fs';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, serveApp } from './harness.ts';

/** The shipped models' names, as public/models/manifest.json lists them. */
const SHIPPED_MODELS = Object.keys(
  (JSON.parse(readFileSync(new URL('../../public/models/manifest.json', import.meta.url), 'utf8')) as { models: Record<string, unknown> }).models,
);

let server: Awaited<ReturnType<typeof serveApp>>;

beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

async function readSelfTest(url: string, opts: Parameters<typeof launch>[0] = {}) {
  const b = await launch(opts);
  try {
    await b.page.goto(url);
    await b.page.locator('[data-testid=backend-status][data-state=ready]').waitFor({ timeout: 120_000 });
    await b.page.locator('[data-testid=self-test][data-ok]:not([data-ok=""])').waitFor({ timeout: 120_000 });
    const card = b.page.getByTestId('self-test');
    return {
      status: await b.page.getByTestId('backend-status').innerText(),
      kind: await b.page.getByTestId('backend-kind').innerText(),
      ok: await card.getAttribute('data-ok'),
      error: Number(await card.getAttribute('data-error')),
      backend: await card.getAttribute('data-backend'),
      adapter: (await b.page.getByTestId('adapter').count()) ? await b.page.getByTestId('adapter').innerText() : null,
      reason: (await b.page.getByTestId('backend-reason').count()) ? await b.page.getByTestId('backend-reason').innerText() : null,
      isolated: await b.page.evaluate(() => crossOriginIsolated),
      browser: b,
    };
  } catch (e) {
    await b.close();
    throw new Error(`${(e as Error).message}\npage errors: ${b.errors.join('\n')}`);
  }
}

describe('app shell in Chromium', () => {
  it('runs the probe graph in the policy worker on WebGPU and reports the adapter', async () => {
    const r = await readSelfTest(`${server.url}?backend=webgpu#/settings`);
    try {
      expect(r.isolated).toBe(true);
      expect(r.kind).toBe('webgpu');
      expect(r.backend).toBe('webgpu');
      expect(r.adapter).toMatch(/\S/);
      expect(r.status).toMatch(/WebGPU/);
      expect(r.ok).toBe('true');
      expect(r.error).toBeLessThanOrEqual(1e-4);
      // The shell shows every view in its header.
      for (const v of ['Play', 'Credit', 'Train', 'Evaluate', 'Data', 'Settings']) {
        await expect(r.browser.page.getByRole('link', { name: v, exact: true }).count()).resolves.toBe(1);
      }
      await r.browser.page.screenshot({ path: 'docs/screenshots/shell-settings.png' });
    } finally {
      await r.browser.close();
    }
  });

  it('passes over a software WebGPU adapter for wasm under Auto, and says why', async () => {
    const r = await readSelfTest(`${server.url}#/settings`);
    try {
      expect(r.kind).toBe('wasm');
      expect(r.backend).toBe('wasm');
      expect(r.reason).toMatch(/^the WebGPU adapter is software \(SwiftShader\).*wasm is faster here/);
      expect(r.status).toMatch(/^wasm · \d+ threads?\s+— the WebGPU adapter is software \(SwiftShader\)/);
      expect(r.ok).toBe('true');
      expect(r.browser.errors).toEqual([]);
    } finally {
      await r.browser.close();
    }
  });

  it('runs the same graph on wasm when wasm is chosen', async () => {
    const r = await readSelfTest(`${server.url}?backend=wasm#/settings`);
    try {
      expect(r.kind).toBe('wasm');
      expect(r.reason).toMatch(/chosen/);
      expect(r.ok).toBe('true');
      expect(r.error).toBeLessThanOrEqual(1e-4);
    } finally {
      await r.browser.close();
    }
  });

  it('falls back to wasm and says why when the browser has no WebGPU', async () => {
    const r = await readSelfTest(`${server.url}#/settings`, { webgpu: false });
    try {
      expect(r.kind).toBe('wasm');
      expect(r.reason).toMatch(/WebGPU|adapter/);
      expect(r.status).toMatch(/wasm/);
      expect(r.ok).toBe('true');
    } finally {
      await r.browser.close();
    }
  });

  it('falls back to wasm when the GPU device is lost mid-session', async () => {
    const r = await readSelfTest(`${server.url}?backend=webgpu#/settings`);
    try {
      expect(r.kind).toBe('webgpu');
      await r.browser.page.getByRole('button', { name: 'Simulate GPU device loss' }).click();
      await r.browser.page.locator('[data-testid=self-test][data-backend=wasm]').waitFor({ timeout: 120_000 });
      await expect(r.browser.page.getByTestId('backend-kind').innerText()).resolves.toBe('wasm');
      await expect(r.browser.page.getByTestId('backend-reason').innerText()).resolves.toMatch(/lost.*fell back to wasm/);
      await expect(r.browser.page.getByTestId('notice').first().innerText()).resolves.toMatch(/lost/);
      await expect(r.browser.page.getByTestId('self-test').getAttribute('data-ok')).resolves.toBe('true');
    } finally {
      await r.browser.close();
    }
  });

  it('says clearly when the models folder is missing or corrupt', async () => {
    // The lab's own server, with the models folder broken on the wire (the policy worker's fetches
    // go through the context's routes): no manifest, a listed file gone, a listed file altered.
    const broken: [string, (ctx: BrowserContext) => Promise<unknown>, RegExp][] = [
      ['intact', async () => undefined, /^$/],
      [
        'no manifest',
        (ctx) => ctx.route('**/models/manifest.json', (r) => r.fulfill({ status: 404, body: 'not found' })),
        /no models shipped yet: manifest\.json is missing \(run npm run forge\)/,
      ],
      [
        'a file missing',
        (ctx) => ctx.route('**/models/policy/config.json', (r) => r.fulfill({ status: 404, body: 'not found' })),
        /model file policy\/config\.json is missing/,
      ],
      [
        'a file corrupt',
        (ctx) =>
          ctx.route('**/models/policy/config.json', async (r) => {
            const body = Buffer.from(await (await r.fetch()).body());
            body[body.length - 2] ^= 1; // same length, another sha256
            await r.fulfill({ status: 200, body, contentType: 'application/json' });
          }),
        /model file policy\/config\.json fails its sha256 check/,
      ],
    ];
    for (const [name, breakIt, says] of broken) {
      const b = await launch({ webgpu: false, serviceWorkers: 'block' });
      try {
        await breakIt(b.context);
        await b.page.goto(`${server.url}#/settings`);
        const card = b.page.getByTestId('models-card');
        await card.locator('li, [data-testid=models-error]').first().waitFor({ timeout: 120_000 });
        if (name === 'intact') {
          // every model the manifest lists (policy, critic and the lessons' student), each verified
          await expect(card.locator('li').allInnerTexts()).resolves.toEqual(
            SHIPPED_MODELS.map((m) => expect.stringMatching(new RegExp(`^${m}: .*sha256 verified`))),
          );
          expect(await card.getByTestId('models-error').count()).toBe(0);
        } else {
          // (read at once: the card shows the verified list or the error, never both)
          expect(await card.innerText(), name).toMatch(says);
          expect(await card.getByTestId('models-error').count(), name).toBe(1);
          expect(await card.locator('li').count(), name).toBe(0);
        }
      } finally {
        await b.close();
      }
    }
  });
});
