// The policy engine's own WebGPU → wasm fallbacks, in the app's policy worker in Chromium with a
// real (tiny, random) model loaded by URL: a WebGPU session that fails to create while loading, or
// later (the scoring session a model opens on its first score call), and a device lost in the
// middle of a generation. Each must rebuild the model on wasm, say why
// ("…; fell back to wasm"), emit a fallback event and give the same greedy tokens as wasm in Node,
// with only the rebuilt sessions alive. The session failure is injected (SwiftShader accepts our
// graphs; PolicyEngine.simulateSessionFailure); the device loss is real (GPUDevice.destroy()).
// Cost: ~30–45 s on 2 cores (two SwiftShader model loads, a few SwiftShader decode steps).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../src/rl/runtime/policyEngine.ts';
import type { GenerateRequest, GenerateResult, ScoreRequest, ScoreResult } from '../../src/rl/runtime/engine/types.ts';
import { type EngineSite, openWithComlink, policyWorkerUrl, serveEngineSite } from './engineSite.ts';
import { launch } from './harness.ts';

const DIR = `engine-fallback-${process.pid}`;
// Long enough that the device is lost while the generation is still running on WebGPU.
const GREEDY: GenerateRequest = { prompts: [{ text: 'Is it red?' }], sampling: { temperature: 0, maxNewTokens: 40, minNewTokens: 40 } };
const SCORE: ScoreRequest = { items: [{ context: { text: 'Is it red?' }, continuation: ' Yes.' }] };

let site: EngineSite;
let wasmTokens: number[][];
let wasmScore: ScoreResult;

beforeAll(async () => {
  site = await serveEngineSite(DIR);
  const engine = new PolicyEngine();
  await engine.init('wasm');
  await engine.load('policy', { kind: 'files', files: site.files });
  wasmTokens = (await engine.generate(GREEDY)).generations.map((g) => g.tokenIds);
  wasmScore = await engine.score(SCORE);
  await engine.dispose();
});
afterAll(async () => {
  await site?.close();
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
  /** The scoring call made after loading ('score' scenario). */
  scored?: ScoreResult;
  scoredBackend?: string;
}

/**
 * In the page: the app's policy worker on WebGPU, then a session failing at load ('session'), the
 * scoring session failing on the first score call after a WebGPU load ('score'), or the device lost
 * mid-generation ('device').
 */
async function run(scenario: 'session' | 'score' | 'device'): Promise<FallbackRun> {
  const workerUrl = policyWorkerUrl();
  const b = await launch();
  try {
    await openWithComlink(b.page, site.url, DIR);
    return await b.page.evaluate(
      async (a) => {
        type Remote = {
          init(p: string): Promise<{ kind: string }>;
          subscribe(fn: unknown): Promise<void>;
          simulateSessionFailure(): Promise<void>;
          loseDevice(): Promise<void>;
          load(name: string, src: object, opts: object): Promise<{ backend: string }>;
          generate(r: object, onToken?: unknown): Promise<GenerateResult>;
          score(r: object): Promise<ScoreResult>;
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
        let scored: ScoreResult | undefined;
        let scoredBackend: string | undefined;
        if (a.scenario === 'score') {
          await engine.simulateSessionFailure();
          scored = await engine.score(a.score);
          scoredBackend = (await engine.backendInfo()).kind;
        }
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
        return { initial, loaded, result, streamedBeforeLoss, reason: info.reason ?? '', events, live, scored, scoredBackend };
      },
      { workerUrl, dir: DIR, scenario, request: GREEDY, score: SCORE },
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
    expect(r.reason).toMatch(
      /^WebGPU could not open model policy \(could not create session policy\.prefill on webgpu: simulated WebGPU session failure\); fell back to wasm$/,
    );
    expect(r.events.map((e) => e.kind)).toEqual(['fallback']);
    expect(r.events[0].reason).toMatch(/could not open model policy/);
    expect(r.result.generations.map((g) => g.tokenIds)).toEqual(wasmTokens);
    expect(r.live).toBe(2);
  });

  it('falls back to wasm when the scoring session fails to create on WebGPU after loading, and says so', async () => {
    const r = await run('score');
    expect(r.initial).toBe('webgpu');
    expect(r.loaded).toBe('webgpu');
    expect(r.scoredBackend).toBe('wasm');
    expect(r.reason).toMatch(
      /^WebGPU could not create a session \(could not create session policy\.score on webgpu: simulated WebGPU session failure\); fell back to wasm$/,
    );
    expect(r.events.map((e) => e.kind)).toEqual(['fallback']);
    expect(r.scored?.items[0].tokens).toEqual(wasmScore.items[0].tokens);
    r.scored?.items[0].logprobs.forEach((lp, j) => expect(lp).toBeCloseTo(wasmScore.items[0].logprobs[j], 4));
    expect(r.result.backend).toBe('wasm');
    expect(r.result.generations.map((g) => g.tokenIds)).toEqual(wasmTokens);
    // prefill + decode rebuilt, plus the scoring session opened on wasm by the retried call
    expect(r.live).toBe(3);
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
