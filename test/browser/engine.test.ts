// The inference engine in the app's own policy worker (the built dist/assets/policy.worker-*.js,
// driven through comlink exactly as the UI drives it): a tiny random model that this test writes
// under dist/ is loaded by URL (manifest, sha256, Cache Storage), and
//  - the same seed gives the same sampled tokens on wasm in Node and in the browser worker;
//  - WebGPU (SwiftShader) and wasm give the same greedy (and seeded) tokens, the KV cache staying on
//    the GPU between decode steps with no GPU tensor left alive afterwards;
//  - tokens stream back through a comlink proxy, and the second load is served from the cache;
//  - a second turn reusing the first turn's kept KV cache (cacheKeys) gives the tokens of a plain
//    call, on wasm and on WebGPU (the kept cache comes back from JS into the GPU-resident path).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../src/rl/runtime/policyEngine.ts';
import type { GenerateRequest, GenerateResult, ModelInfo, ScoreRequest, ScoreResult } from '../../src/rl/runtime/engine/types.ts';
import { type EngineSite, openWithComlink, policyWorkerUrl, serveEngineSite } from './engineSite.ts';
import { launch } from './harness.ts';

const DIR = `engine-test-${process.pid}`;
const SAMPLED: GenerateRequest = {
  prompts: [{ messages: [{ role: 'user', content: 'Is it red?' }] }, { text: 'GUESS' }],
  n: 2,
  sampling: { seed: 21, maxNewTokens: 16 },
};
const GREEDY: GenerateRequest = { prompts: [{ messages: [{ role: 'user', content: 'Which fruit is it?' }] }], sampling: { temperature: 0, maxNewTokens: 16 } };
// scoring runs the score graph (targets one-hot in the graph), which generation never touches
const SCORE: ScoreRequest = {
  items: [
    { context: { messages: [{ role: 'user', content: 'Is it red?' }] }, continuation: 'GUESS: apple' },
    { context: { text: 'GUESS' }, continuation: ' no' },
  ],
};

let site: EngineSite;
let node: { sampled: GenerateResult; greedy: GenerateResult; scored: ScoreResult };

beforeAll(async () => {
  site = await serveEngineSite(DIR);
  const engine = new PolicyEngine();
  await engine.init('wasm');
  await engine.load('policy', { kind: 'files', files: site.files });
  node = { sampled: await engine.generate(SAMPLED), greedy: await engine.generate(GREEDY), scored: await engine.score(SCORE) };
  await engine.dispose();
});
afterAll(async () => {
  await site?.close();
});

interface PageRun {
  info: ModelInfo[];
  backend: string;
  sampled: GenerateResult;
  greedy: GenerateResult;
  scored: ScoreResult;
  /** The second turn with KV reuse and without. */
  reuse: { kept: GenerateResult; plain: GenerateResult };
  streamed: number;
  live: number;
  gpu: { live: number; made: number };
  progress: string[];
}

/** In the page: spawn the app's policy worker, wrap it with comlink, load the model by URL, generate. */
async function runInWorker(preference: 'wasm' | 'webgpu'): Promise<PageRun> {
  const workerUrl = policyWorkerUrl();
  const b = await launch();
  try {
    await openWithComlink(b.page, site.url, DIR);
    const args = { workerUrl, dir: DIR, preference, sampled: SAMPLED, greedy: GREEDY, score: SCORE };
    return await b.page.evaluate(async (a) => {
      type Remote = {
        init(p: string): Promise<{ kind: string }>;
        load(name: string, src: object, opts: object, onProgress: unknown): Promise<ModelInfo>;
        generate(r: object, onToken?: unknown): Promise<GenerateResult>;
        score(r: object): Promise<ScoreResult>;
        encode(p: object): Promise<number[]>;
        liveSessions(): Promise<number>;
        gpuTensors(): Promise<{ live: number; made: number }>;
        dispose(): Promise<void>;
      };
      const comlink = (globalThis as unknown as { comlinkForTest: { wrap(w: Worker): Remote; proxy<T>(f: T): T } }).comlinkForTest;
      const w = new Worker(a.workerUrl, { type: 'module', name: 'policy-test' });
      const engine = comlink.wrap(w);
      const backend = (await engine.init(a.preference)).kind;
      const progress: string[] = [];
      const src = { kind: 'url', baseUrl: new URL(`/${a.dir}/`, location.href).href, name: 'policy' };
      const first = await engine.load(
        'policy',
        src,
        { precision: 'fp32' },
        comlink.proxy((p: { stage: string; fromCache?: boolean }) => progress.push(`${p.stage}${p.fromCache ? ':cache' : ''}`)),
      );
      let streamed = 0;
      const sampled = await engine.generate(
        a.sampled,
        comlink.proxy(() => streamed++),
      );
      const greedy = await engine.generate(a.greedy);
      const scored = await engine.score(a.score);
      const ids = await engine.encode(a.greedy.prompts[0]);
      const first1 = await engine.generate({ prompts: [{ ids }], cacheKeys: ['t'], sampling: a.greedy.sampling });
      const turn2 = { prompts: [{ ids: [...ids, ...first1.generations[0].tokenIds, ...ids.slice(1, 4)] }], sampling: a.greedy.sampling };
      const reuse = { kept: await engine.generate({ ...turn2, cacheKeys: ['t'] }), plain: await engine.generate(turn2) };
      const second = await engine.load('policy', src, { precision: 'fp32' }, null);
      const live = await engine.liveSessions();
      const gpu = await engine.gpuTensors();
      await engine.dispose();
      w.terminate();
      return { info: [first, second], backend, sampled, greedy, scored, reuse, streamed, live, gpu, progress };
    }, args);
  } catch (e) {
    throw new Error(`${(e as Error).message}\npage errors: ${b.errors.join('\n')}`);
  } finally {
    await b.close();
  }
}

const tokens = (r: GenerateResult) => r.generations.map((g) => g.tokenIds);

describe('inference engine in the policy worker (Chromium)', () => {
  it('samples the same tokens from the same seed on wasm in the browser as in Node', async () => {
    const r = await runInWorker('wasm');
    expect(r.backend).toBe('wasm');
    expect(r.info[0]).toMatchObject({ verified: true, backend: 'wasm', cachedFiles: 0 });
    expect(r.info[1].cachedFiles).toBeGreaterThan(0);
    expect(r.progress).toContain('download');
    expect(r.progress.at(-1)).toBe('ready');
    expect(tokens(r.sampled)).toEqual(tokens(node.sampled));
    expect(r.sampled.generations.map((g) => g.text)).toEqual(node.sampled.generations.map((g) => g.text));
    r.sampled.generations.forEach((g, i) => g.logprobs.forEach((lp, j) => expect(lp).toBeCloseTo(node.sampled.generations[i].logprobs[j], 3)));
    expect(r.streamed).toBe(r.sampled.generations.reduce((a, g) => a + g.completionTokens, 0));
    expect(tokens(r.greedy)).toEqual(tokens(node.greedy));
    expectSameScores(r.scored);
    expect(r.live).toBe(2);
    expect(r.gpu).toEqual({ live: 0, made: 0 });
    expectSameReuse(r.reuse);
  });

  it('gives the same greedy tokens on WebGPU as on wasm, with the KV cache kept on the GPU and every GPU tensor freed', async () => {
    const r = await runInWorker('webgpu');
    expect(r.backend).toBe('webgpu');
    expect(r.info[0].backend).toBe('webgpu');
    expect(tokens(r.greedy)).toEqual(tokens(node.greedy));
    // the sampled request (2 prompts × 2 samples: K-repeat and finished rows go through JS) too
    expect(tokens(r.sampled)).toEqual(tokens(node.sampled));
    // present.* of every prefill and decode step stayed on the GPU: 2 layers × (key, value) per step
    expect(r.gpu.made).toBeGreaterThanOrEqual(4 * (r.greedy.generations[0].completionTokens + 1));
    expect(r.gpu.live).toBe(0);
    r.greedy.generations[0].logprobs.forEach((lp, j) => expect(lp).toBeCloseTo(node.greedy.generations[0].logprobs[j], 3));
    expectSameScores(r.scored);
    expectSameReuse(r.reuse);
  });
});

/** The reusing second turn took its prefix from the kept cache and equals the plain call. */
function expectSameReuse(reuse: PageRun['reuse']): void {
  expect(reuse.kept.generations[0].reusedTokens).toBeGreaterThan(0);
  expect(reuse.plain.generations[0].reusedTokens).toBe(0);
  expect(tokens(reuse.kept)).toEqual(tokens(reuse.plain));
  reuse.kept.generations[0].logprobs.forEach((lp, j) => expect(lp).toBeCloseTo(reuse.plain.generations[0].logprobs[j], 4));
}

/** The score graph's per-token log-probs equal Node's (wasm) to 3 decimals. */
function expectSameScores(scored: ScoreResult): void {
  expect(scored.items.map((i) => i.tokens)).toEqual(node.scored.items.map((i) => i.tokens));
  expect(node.scored.items.every((i) => i.logprobs.length > 0 && i.logprobs.every((lp) => lp < 0))).toBe(true);
  scored.items.forEach((it, i) => it.logprobs.forEach((lp, j) => expect(lp).toBeCloseTo(node.scored.items[i].logprobs[j], 3)));
}
