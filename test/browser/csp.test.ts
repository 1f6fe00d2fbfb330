// Issue 22 point 5 in real Chromium: the Content-Security-Policy comes as a response header, so it
// binds the workers too — a same-origin worker script can neither eval nor importScripts a data: URL
// (with the <meta> tag alone both worked there) — while the lab's own workers still run ONNX Runtime;
// the service worker caches only the app and the models (navigations with ?q= add no entries), and
// a model file that fails its sha256 is not kept in the cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, serveApp } from './harness.ts';

let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

describe('CSP and offline cache', () => {
  it('binds workers by header, caches only the app and models, drops a model failing its sha256', async () => {
    const b = await launch({ webgpu: false });
    try {
      const { page, context } = b;
      const nav = await page.goto(`${server.url}#/settings`);
      expect(nav?.headers()['content-security-policy']).toMatch(/script-src 'self' 'wasm-unsafe-eval'/);
      // the lab's engines still run under it (the probe graph in the policy worker)
      await page.locator('[data-testid=self-test][data-ok=true]').waitFor({ timeout: 120_000 });
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
      // a worker cannot eval or import a data: script (a blob worker inherits the page's header policy)
      const probe = await page.evaluate(async () => {
        const code =
          "onmessage=()=>{let e='blocked',i='blocked';try{(0,eval)('1');e='ran'}catch{}try{importScripts('data:text/javascript,0');i='ran'}catch{}postMessage({e,i})}";
        const w = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
        return new Promise<{ e: string; i: string }>((resolve) => {
          w.onmessage = (m) => resolve(m.data as { e: string; i: string });
          w.postMessage(0);
        });
      });
      expect(probe).toEqual({ e: 'blocked', i: 'blocked' });
      // and the lab's own worker scripts carry the header themselves
      const workerUrl = await page.evaluate(
        () =>
          performance
            .getEntriesByType('resource')
            .map((r) => r.name)
            .find((n) => /policy\.worker-.*\.js$/.test(n)) ?? '',
      );
      expect(workerUrl).not.toBe('');
      const workerHeaders = await page.evaluate(async (u) => (await fetch(u)).headers.get('content-security-policy'), workerUrl);
      expect(workerHeaders).toMatch(/script-src 'self' 'wasm-unsafe-eval'/);
      const entries = () =>
        page.evaluate(async () => (await Promise.all((await caches.keys()).map(async (k) => (await (await caches.open(k)).keys()).map((r) => r.url)))).flat());
      const before = (await entries()).length;
      for (let q = 0; q < 5; q++) await page.goto(`${server.url}?q=${q}#/data`);
      await page.evaluate(() => fetch('./not-the-app.txt?x=1').catch(() => undefined));
      const after = await entries();
      expect(after.length).toBe(before);
      expect(after.some((u) => u.includes('?q=') || u.includes('not-the-app'))).toBe(false);
      // a corrupt model file served once: not cached, and the good cached copy is dropped too
      const model = after.find((u) => u.endsWith('/models/policy/config.json'))!;
      expect(model).toBeDefined();
      await context.route('**/models/policy/config.json', (route) =>
        route.fulfill({ status: 200, body: '{"corrupt": true}', contentType: 'application/json' }),
      );
      await page.evaluate((u) => fetch(u).then((r) => r.text()), model);
      await expect.poll(entries).not.toContain(model);
    } finally {
      await b.close();
    }
  });
});
