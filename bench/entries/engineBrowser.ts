// The inference engine in the app's own policy worker in Chromium, on the shipped policy: decode
// tokens/s at B=1, K=8 (one prompt, 8 samples) and B=8 (8 ragged prompts), measured as the Node
// engine entry does — (N − 1)·rows / (t(N new tokens) − t(1 new token)), each t the fastest of 3.
// wasm is the figure to read; WebGPU here is SwiftShader (a CPU emulation), reported but labelled
// as not meaningful.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { BenchEntry, BenchRow } from '../harness.ts';
import { projectRoot } from '../../src/cli/paths.ts';
import { launch, serveApp } from '../../test/browser/harness.ts';

const NEW = 32;
const DIR = 'bench-engine';
const PROMPTS = Array.from({ length: 8 }, (_, i) => `Guess the animal I am thinking of. Candidates: mouse, rabbit, crow, trout${', lion'.repeat(i)}. Each turn ask one yes or no question.`);

export const engineBrowser: BenchEntry = {
  name: 'engine-browser',
  description: 'decode tokens/s of the shipped policy in the app policy worker in Chromium (wasm; WebGPU = SwiftShader, not meaningful)',
  byDefault: true,
  async run(log) {
    const root = projectRoot();
    const dist = join(root, 'dist');
    if (!existsSync(join(dist, 'index.html'))) execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
    if (!existsSync(join(dist, 'models', 'manifest.json'))) {
      log('engine-browser: no shipped models in dist/models; skipped');
      return [];
    }
    const worker = readdirSync(join(dist, 'assets')).find((f) => /^policy\.worker-.*\.js$/.test(f));
    if (!worker) throw new Error('dist/assets has no policy.worker-*.js');
    mkdirSync(join(dist, DIR), { recursive: true });
    copyFileSync(join(root, 'node_modules/comlink/dist/esm/comlink.mjs'), join(dist, DIR, 'comlink.mjs'));
    // A file, not an inline script: the app's CSP allows scripts from 'self' only.
    writeFileSync(join(dist, DIR, 'boot.mjs'), "import * as c from './comlink.mjs';\nglobalThis.comlinkForBench = c;\n");
    const server = await serveApp();
    const rows: BenchRow[] = [];
    try {
      for (const preference of ['wasm', 'webgpu'] as const) {
        const b = await launch({ webgpu: preference === 'webgpu' });
        try {
          await b.page.goto(`${server.url}#/settings`);
          await b.page.addScriptTag({ type: 'module', url: `/${DIR}/boot.mjs` });
          await b.page.waitForFunction(() => 'comlinkForBench' in globalThis);
          // tsx (which runs the CLI) wraps named functions in __name(); give the page a no-op one.
          await b.page.evaluate('globalThis.__name = (f) => f');
          const result = await b.page.evaluate(
            async (a) => {
              type Remote = {
                init(p: string): Promise<{ kind: string }>;
                load(name: string, src: object, opts: object): Promise<unknown>;
                generate(r: object): Promise<unknown>;
                dispose(): Promise<void>;
              };
              const comlink = (globalThis as unknown as { comlinkForBench: { wrap(w: Worker): Remote } }).comlinkForBench;
              const w = new Worker(a.workerUrl, { type: 'module', name: 'policy-bench' });
              const engine = comlink.wrap(w);
              const backend = (await engine.init(a.preference)).kind;
              await engine.load('policy', { kind: 'url', baseUrl: new URL('/models/', location.href).href, name: 'policy', cache: false }, { precision: 'fp32' });
              const cases = { 'B=1': { prompts: [{ text: a.prompts[0] }], n: 1 }, 'K=8': { prompts: [{ text: a.prompts[0] }], n: 8 }, 'B=8': { prompts: a.prompts.map((t) => ({ text: t })), n: 1 } };
              const fastest = async (req: object) => {
                let best = Infinity;
                for (let i = 0; i < 3; i++) {
                  const t0 = performance.now();
                  await engine.generate(req);
                  best = Math.min(best, performance.now() - t0);
                }
                return best;
              };
              const out: Record<string, number> = {};
              for (const [name, c] of Object.entries(cases)) {
                const req = (n: number) => ({ ...c, sampling: { temperature: 0, maxNewTokens: n, minNewTokens: n } });
                await engine.generate(req(2)); // warm-up
                const t1 = await fastest(req(1));
                const tn = await fastest(req(a.NEW));
                out[name] = ((a.NEW - 1) * c.prompts.length * c.n) / ((tn - t1) / 1000);
              }
              await engine.dispose();
              w.terminate();
              return { backend, out };
            },
            { workerUrl: `/assets/${worker}`, preference, prompts: PROMPTS, NEW },
          );
          for (const [name, v] of Object.entries(result.out)) {
            const note = result.backend === 'webgpu' ? 'SwiftShader WebGPU: timing not meaningful' : 'Chromium, policy worker, fp32, shipped model';
            rows.push({ case: `browser engine decode ${name}, ${result.backend}`, metric: 'decode tokens/s', value: v, unit: 'tok/s', note });
            log(`engine-browser ${result.backend} ${name}: ${v.toFixed(0)} tok/s`);
          }
        } finally {
          await b.close();
        }
      }
    } finally {
      await server.close();
      rmSync(join(dist, DIR), { recursive: true, force: true });
    }
    return rows;
  },
};
