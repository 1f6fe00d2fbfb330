// The policy engine's own WebGPU → wasm fallbacks, in the app's policy worker in Chromium with a
// real (tiny, random) model loaded by URL: a WebGPU session that fails to create while loading, and
// a device lost in the middle of a generation. Each must rebuild the model on wasm, say why
// ("…; fell back to wasm"), emit a fallback event and give the same greedy tokens as wasm in Node,
// with only the rebuilt sessions alive. The session failure is injected (SwiftShader accepts our
// graphs; PolicyEngine.simulateSessionFailure); the device loss is real (GPUDevice.destroy()).
// Cost: ~20–40 s on 2 cores (one SwiftShader model load, a few SwiftShader decode steps).
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../src/rl/runtime/policyEngine.ts';
import type { GenerateRequest, GenerateResult } from '../../src/rl/runtime/engine/types.ts';
import { tinyModels } from '../unit/engine/fixtures.ts';
import { launch, serveApp } from './harness.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const DIR = `engine-fallback-${process.pid}`;
// Long enough that the device is lost while the generation is still running on WebGPU.
const GREEDY: GenerateRequest = { prompts: [{ text: 'Is it red?' }], sampling: { temperature: 0, maxNewTokens: 40, minNewTokens: 40 } };

let server: Awaited<ReturnType<typeof serveApp>>;
let wasmTokens: number[][];

beforeAll(async () => {
  const { files } = await tinyModels(8, 128);
  for (const [path, bytes] of Object.entries(files)) {
    const full = join(ROOT, 'dist', DIR, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, bytes);
  }
  copyFileSync(join(ROOT, 'node_modules/comlink/dist/esm/comlink.mjs'), join(ROOT, 'dist', DIR, 'comlink.mjs'));
  writeFileSync(join(ROOT, 'dist', DIR, 'boot.mjs'), "import * as c from './comlink.mjs';\nglobalThis.comlinkForTest = c;\n");
  const engine = new PolicyEngine();
  await engine.init('wasm');
  await engine.load('policy', { kind: 'files', files });
  wasmTokens = (await engine.generate(GREEDY)).generations.map((g) => g.tokenIds);
  await engine.dispose();
  server = await serveApp();
});
afterAll(async () => {
  await server?.close();
  rmSync(join(ROOT, 'dist', DIR), { recursive: true, force: true });
});

interface FallbackRun {
  initial: string;
  loaded: string;
  result: GenerateResult;
  /** Backend of the generation's first streamed token's run, and how many tokens streamed before the loss. */
  streamedBeforeLoss: number;
  reason: string;
  events: { kind: string; reason?: string }[];
  live: number;
}

/** In the page: the app's policy worker on WebGPU, then either a failing session at load or a device lost mid-generation. */
async function run(scenario: 'session' | 'device'): Promise<FallbackRun> {
  const worker = readdirSync(join(ROOT, 'dist/assets')).find((f) => /^policy\.worker-.*\.js$/.test(f));
  if (!worker) throw new Error('dist/assets has no policy.worker-*.js: run `npx vite build`');
  const b = await launch();
  try {
    await b.page.goto(`${server.url}#/settings`);
    await b.page.addScriptTag({ type: 'module', url: `/${DIR}/boot.mjs` });
    await b.page.waitForFunction(() => 'comlinkForTest' in globalThis);
    return await b.page.evaluate(
      async (a) => {
        type Remote = {
          init(p: string): Promise<{ kind: string }>;
          subscribe(fn: unknown): Promise<void>;
          simulateSessionFailure(): Promise<void>;
          loseDevice(): Promise<void>;
          load(name: string, src: object, opts: object): Promise<{ backend: string }>;
          generate(r: object, onToken?: unknown): Promise<GenerateResult>;
          backendInfo(): Promise<{ kind: string; reason?: string }>;
          liveSessions(): Promise<number>;
          dispose(): Promise<void>;
        };
        const comlink = (globalThis as unknown as { comlinkForTest: { wrap(w: Worker): Remote; proxy<T>(f: T): T } }).comlinkForTest;
        const w = new Worker(a.workerUrl, { type: 'module', name: 'policy-fallback-test' });
        const engine = comlink.wrap(w);
        const initial = (await engine.init('webgpu')).kind;
        const events: { kind: string; reason?: string }[] = [];
        await engine.subscribe(comlink.proxy((e: { kind: string; reason?: string }) => events.push({ kind: e.kind, reason: e.reason })));
        if (a.scenario === 'session') await engine.simulateSessionFailure();
        const src = { kind: 'url', baseUrl: new URL(`/${a.dir}/`, location.href).href, name: 'policy', cache: false };
        const loaded = (await engine.load('policy', src, { precision: 'fp32' })).backend;
        let streamed = 0;
        let streamedBeforeLoss = -1;
        let lost: Promise<void> | null = null;
        const onToken = comlink.proxy(() => {
          streamed++;
          // Lose the device once the generation is under way on WebGPU.
          if (a.scenario === 'device' && streamed === 2 && !lost) {
            streamedBeforeLoss = streamed;
            lost = engine.loseDevice();
          }
        });
        const result = await engine.generate(a.request, onToken);
        await lost;
        const info = await engine.backendInfo();
        const live = await engine.liveSessions();
        await engine.dispose();
        w.terminate();
        return { initial, loaded, result, streamedBeforeLoss, reason: info.reason ?? '', events, live };
      },
      { workerUrl: `/assets/${worker}`, dir: DIR, scenario, request: GREEDY },
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}\npage errors: ${b.errors.join('\n')}`);
  } finally {
    await b.close();
  }
}

describe('policy engine fallbacks in the policy worker (Chromium)', () => {
  it('falls back to wasm when a WebGPU session fails to create, and says so', async () => {
    const r = await run('session');
    expect(r.initial).toBe('webgpu');
    expect(r.loaded).toBe('wasm');
    expect(r.result.backend).toBe('wasm');
    expect(r.reason).toMatch(/^WebGPU could not open model policy \(could not create session policy\.prefill on webgpu: simulated WebGPU session failure\); fell back to wasm$/);
    expect(r.events.map((e) => e.kind)).toEqual(['fallback']);
    expect(r.events[0].reason).toMatch(/could not open model policy/);
    expect(r.result.generations.map((g) => g.tokenIds)).toEqual(wasmTokens);
    expect(r.live).toBe(2);
  });

  it('rebuilds the model on wasm when the GPU device is lost mid-generation, and says so', { timeout: 120_000 }, async () => {
    const r = await run('device');
    expect(r.initial).toBe('webgpu');
    expect(r.loaded).toBe('webgpu');
    expect(r.streamedBeforeLoss).toBe(2);
    // the request was retried on wasm from the start: same tokens as wasm in Node
    expect(r.result.backend).toBe('wasm');
    expect(r.result.generations.map((g) => g.tokenIds)).toEqual(wasmTokens);
    expect(r.reason).toMatch(/^WebGPU device lost \(destroyed.*\); fell back to wasm$/);
    expect(r.events.map((e) => e.kind)).toEqual(['fallback']);
    expect(r.live).toBe(2);
  });
});
