// The lab in real Chromium (wasm backend; SwiftShader WebGPU timings would mean nothing): initial
// JS the page loads before any worker or model (gzip too), time to interactive on a second visit
// with models cached by the service worker, and main-thread long tasks (> 50 ms, the Long Tasks
// API) while a training iteration runs in the trainer worker. Needs `vite build` output (built here
// when missing) and the shipped models for the last two figures.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { BenchEntry, BenchRow } from '../harness.ts';
import { projectRoot } from '../../src/cli/paths.ts';
import { launch, serveApp } from '../../test/browser/harness.ts';

/** The scripts and styles index.html loads itself (not workers, not the ORT wasm). */
function initialAssets(dist: string): string[] {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  return [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+\.(?:js|css))"/g)].map((m) => join(dist, m[1]));
}

export const ui: BenchEntry = {
  name: 'ui',
  description: 'initial JS size, time to interactive with models cached, main-thread long tasks during a training iteration (Chromium, wasm)',
  byDefault: true,
  async run(log) {
    const root = projectRoot();
    const dist = join(root, 'dist');
    if (!existsSync(join(dist, 'index.html'))) execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
    const rows: BenchRow[] = [];
    const files = initialAssets(dist);
    const js = files.filter((f) => f.endsWith('.js'));
    const raw = js.reduce((a, f) => a + statSync(f).size, 0);
    const gz = js.reduce((a, f) => a + gzipSync(readFileSync(f)).length, 0);
    rows.push({ case: 'initial JS (index.html scripts, no workers, no wasm)', metric: 'size', value: raw / 1024, unit: 'KiB', note: `${js.length} file(s)` });
    rows.push({ case: 'initial JS (index.html scripts, no workers, no wasm)', metric: 'gzip size', value: gz / 1024, unit: 'KiB' });

    const server = await serveApp();
    const browser = await launch({ webgpu: false });
    try {
      const { page } = browser;
      const hasModels = existsSync(join(dist, 'models', 'manifest.json'));
      const ready = hasModels ? '[data-testid=model-policy]:has-text("loaded on")' : '[data-testid=self-test][data-ok=true]';
      await page.goto(`${server.url}#/settings`);
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
      await page.locator(ready).waitFor({ timeout: 300_000 });
      // Second visit: everything comes from the service worker's cache.
      const t0 = Date.now();
      await page.reload();
      await page.locator(ready).waitFor({ timeout: 300_000 });
      const tti = Date.now() - t0;
      const what = hasModels ? 'policy and critic loaded' : 'backend ready (no shipped models)';
      rows.push({
        case: `second visit to ${what}`,
        metric: 'time to interactive',
        value: tti,
        unit: 'ms',
        note: 'models and app from the service worker cache',
      });
      log(`ui: time to interactive ${tti} ms (${what})`);

      if (hasModels) {
        await page.evaluate(() => {
          const w = window as unknown as { __long: number[] };
          w.__long = [];
          new PerformanceObserver((list) => list.getEntries().forEach((e) => w.__long.push(e.duration))).observe({ type: 'longtask', buffered: false });
        });
        await page.getByRole('link', { name: 'Train' }).click();
        await page.getByTestId('algo').selectOption('grpo');
        await page.getByTestId('iterations').fill('1');
        const t1 = Date.now();
        await page.getByTestId('train-start').click();
        await page.locator('[data-testid=train-progress][data-iterations="1"], [data-testid=train-error]').first().waitFor({ timeout: 600_000 });
        const seconds = (Date.now() - t1) / 1000;
        const long = await page.evaluate(() => (window as unknown as { __long: number[] }).__long);
        rows.push({ case: 'one GRPO iteration (guess) in the trainer worker', metric: 'wall time', value: seconds, unit: 's' });
        // The same first iteration (the Train view's defaults: guess, 8 tasks × K 8, seed 1) in Node right after, on wasm and on onnxruntime-node.
        const iterationSeconds = Number(await page.getByTestId('train-progress').getAttribute('data-seconds'));
        rows.push({
          case: "the Train view's default GRPO iteration, Chromium, wasm (trainer worker)",
          metric: 'iteration seconds',
          value: iterationSeconds,
          unit: 's',
          note: "the loop's own figure (metrics.seconds), first iteration: graphs built and first runs included",
        });
        for (const backend of ['wasm', 'node'] as const) {
          const out = execFileSync(
            process.execPath,
            [
              'bin/turnwise.js',
              'train',
              '--algo',
              'grpo',
              '--family',
              'guess',
              '--iterations',
              '1',
              '--tasks',
              '8',
              '--k',
              '8',
              '--eval',
              '0',
              '--seed',
              '1',
              '--json',
              '--backend',
              backend,
            ],
            { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 },
          );
          const node = (JSON.parse(out) as { reports: { metrics: { seconds: number } }[] }).reports[0].metrics.seconds;
          rows.push({
            case: `the same iteration in Node (turnwise train), ${backend === 'node' ? 'onnxruntime-node' : 'wasm'}`,
            metric: 'iteration seconds',
            value: node,
            unit: 's',
          });
          rows.push({
            case: `Chromium wasm ÷ Node ${backend === 'node' ? 'onnxruntime-node' : 'wasm'}, one default iteration`,
            metric: 'ratio',
            value: iterationSeconds / node,
            unit: '×',
            note: 'target ≤ 1.5',
          });
          log(`ui: the default iteration in Node on ${backend}: ${node.toFixed(1)} s (Chromium ${iterationSeconds.toFixed(1)} s)`);
        }
        rows.push({ case: 'main thread during that iteration', metric: 'long tasks', value: long.length, unit: 'count' });
        rows.push({ case: 'main thread during that iteration', metric: 'longest task', value: long.length ? Math.max(...long) : 0, unit: 'ms' });
        log(`ui: training iteration ${seconds.toFixed(1)} s, ${long.length} long tasks on the main thread`);
      }
    } finally {
      await browser.close();
      await server.close();
    }
    return rows;
  },
};
