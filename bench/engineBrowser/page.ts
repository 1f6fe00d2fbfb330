// What the browser engine benchmark runs inside the Chromium page (passed to page.evaluate, so it
// must be self-contained: no imports at run time, comlink comes from the page's global). Three
// runners take turns, round by round, on the same token-id prompts: the app's policy worker through
// comlink (what the lab runs), the engine in-thread in the bench worker, and transformers.js in the
// bench worker. Decode tokens/s = (N − 1)·rows / (t(N new) − t(1 new)), each t the fastest round.
import type { BenchWorker, Timed } from './bench.worker.ts';
import type { GenerateRequest, GenerateResult } from '../../src/rl/runtime/engine/types.ts';

export interface PageArgs {
  appWorkerUrl: string;
  benchWorkerUrl: string;
  /** URL of the shipped models root (manifest.json). */
  modelsUrl: string;
  /** URL folder holding `policy/` with onnx/model.onnx, for transformers.js. */
  exportRoot: string;
  preference: 'wasm' | 'webgpu';
  /** Also run the in-thread engine and transformers.js (wasm only). */
  sideBySide: boolean;
  cases: { name: string; prompts: number[][]; n: number }[];
  newTokens: number;
  rounds: number;
  /** Untimed N-token runs of each runner before each case's rounds. */
  warmup: number;
  /** Before everything: this many B=1 N-token runs of the fresh app worker, recording decode ms/step (the warm-up curve). */
  curve: number;
  /** Also time the app worker at B=1 with the default rank-8 LoRA slot, as the lab loads the policy. */
  slot: boolean;
  /** On WebGPU: also time the policy with its KV cache copied through JS each step (LoadOptions.gpuKv false). */
  cpuKv: boolean;
  /** On a software WebGPU adapter (SwiftShader): cut prompts to 16 tokens, 8 new tokens, one round after one warm-up run. */
  reduceOnSoftware: boolean;
  pad: number;
}

export interface CaseResult {
  name: string;
  rows: number;
  /** decode tokens/s per runner: app (policy worker), appSlot (B=1 only), inThread, tjs. */
  tokS: Record<string, number>;
  /** rows·N / t(N) tokens/s per runner, prefill included. */
  endToEnd: Record<string, number>;
  /** Per engine runner (app, inThread): decode ms per step and sampling ms per token of its fastest N-token run. */
  stepMs: Record<string, { decode: number; sample: number }>;
  /** Greedy tokens of row 0 agree between the engine and transformers.js. */
  sameTokens?: boolean;
}

export interface PageResult {
  backend: string;
  /** The WebGPU adapter is a software one: timings mean nothing. */
  software: boolean;
  threads: number;
  crossOriginIsolated: boolean;
  tjsVersion?: string;
  /** decode ms/step of the app worker's first runs, in order. */
  curve: number[];
  cases: CaseResult[];
}

export async function runPage(a: PageArgs): Promise<PageResult> {
  interface App {
    init(p: string): Promise<{ kind: string; threads: number; crossOriginIsolated: boolean; adapter?: { software: boolean } }>;
    load(name: string, src: object, opts: object): Promise<unknown>;
    generate(r: GenerateRequest): Promise<GenerateResult>;
    dispose(): Promise<void>;
  }
  type Bench = { [K in keyof BenchWorker]: (...args: Parameters<BenchWorker[K]>) => Promise<Awaited<ReturnType<BenchWorker[K]>>> };
  const comlink = (globalThis as unknown as { comlinkForBench: { wrap<T>(w: Worker): T } }).comlinkForBench;
  const appWorker = new Worker(a.appWorkerUrl, { type: 'module', name: 'policy-bench' });
  const app = comlink.wrap<App>(appWorker);
  const info = await app.init(a.preference);
  const software = !!info.adapter?.software;
  if (software && a.reduceOnSoftware) {
    a = { ...a, cases: a.cases.map((c) => ({ ...c, prompts: c.prompts.map((p) => p.slice(0, 16)) })), newTokens: 8, rounds: 1, warmup: 1 };
  }
  await app.load('policy', { kind: 'url', baseUrl: a.modelsUrl, name: 'policy', cache: false }, { precision: 'fp32', adapterSlot: null });
  if (a.slot) await app.load('slot', { kind: 'url', baseUrl: a.modelsUrl, name: 'policy', cache: false }, { precision: 'fp32' });
  const cpuKv = a.cpuKv && info.kind === 'webgpu';
  if (cpuKv)
    await app.load('cpukv', { kind: 'url', baseUrl: a.modelsUrl, name: 'policy', cache: false }, { precision: 'fp32', adapterSlot: null, gpuKv: false });
  let benchWorker: Worker | null = null;
  let bench: Bench | null = null;
  let tjsVersion: string | undefined;
  if (a.sideBySide) {
    benchWorker = new Worker(a.benchWorkerUrl, { type: 'module', name: 'engine-bench' });
    bench = comlink.wrap<Bench>(benchWorker);
    tjsVersion = (await bench.tjsLoad(a.exportRoot, 'policy')).version;
    await bench.oursLoad(a.modelsUrl);
  }
  const request = (c: PageArgs['cases'][number], max: number, model = 'policy'): GenerateRequest => ({
    model,
    prompts: c.prompts.map((ids) => ({ ids })),
    n: c.n,
    sampling: { temperature: 0, maxNewTokens: max, minNewTokens: max, banSpecial: false },
  });
  const viaApp =
    (model: string) =>
    async (c: PageArgs['cases'][number], max: number): Promise<Timed> => {
      const t = performance.now();
      const r = await app.generate(request(c, max, model));
      return { ms: performance.now() - t, tokens: r.generations[0].tokenIds, timing: r.timing };
    };
  const curve: number[] = [];
  for (let i = 0; i < a.curve; i++) {
    const t = (await viaApp('policy')(a.cases[0], a.newTokens)).timing;
    if (t) curve.push(t.decodeMs / t.decodeSteps);
  }
  const runners: Record<string, (c: PageArgs['cases'][number], max: number) => Promise<Timed>> = { app: viaApp('policy') };
  if (a.slot) runners.appSlot = viaApp('slot');
  if (cpuKv) runners.appCpuKv = viaApp('cpukv');
  if (bench) {
    const b = bench;
    runners.inThread = (c, max) => b.oursGenerate(request(c, max));
    // transformers.js has no "K samples of one prompt": the prompt is repeated K times.
    runners.tjs = (c, max) => b.tjsGenerate(c.n > 1 ? Array.from({ length: c.n }, () => c.prompts[0]) : c.prompts, max, a.pad);
  }
  const cases: CaseResult[] = [];
  for (const c of a.cases) {
    const active = Object.fromEntries(Object.entries(runners).filter(([name]) => name !== 'appSlot' || c.name === 'B=1'));
    const best: Record<string, { one: number; many: number; last?: Timed; fastest?: Timed }> = {};
    // Chromium's wasm reaches its steady speed only after several runs (docs/engine.md): warm up first.
    for (let i = 0; i < a.warmup; i++) for (const run of Object.values(active)) await run(c, a.newTokens);
    for (const name of Object.keys(active)) best[name] = { one: Infinity, many: Infinity };
    for (let round = 0; round < a.rounds; round++) {
      for (const [name, run] of Object.entries(active)) {
        const one = await run(c, 1);
        const many = await run(c, a.newTokens);
        const b = best[name];
        b.one = Math.min(b.one, one.ms);
        if (many.ms < b.many) b.fastest = many;
        b.many = Math.min(b.many, many.ms);
        b.last = many;
      }
    }
    const rows = c.prompts.length * c.n;
    const tokS = Object.fromEntries(Object.entries(best).map(([name, b]) => [name, ((a.newTokens - 1) * rows * 1000) / (b.many - b.one)]));
    // rows·N / t(N), prefill included: the only stable figure from a single SwiftShader round
    const endToEnd = Object.fromEntries(Object.entries(best).map(([name, b]) => [name, (a.newTokens * rows * 1000) / b.many]));
    const stepMs: CaseResult['stepMs'] = {};
    for (const [name, b] of Object.entries(best)) {
      const t = b.fastest?.timing;
      if (t) stepMs[name] = { decode: t.decodeMs / t.decodeSteps, sample: t.sampleMs / (t.decodeSteps + 1) };
    }
    const sameTokens = best.tjs ? JSON.stringify(best.tjs.last?.tokens) === JSON.stringify(best.app.last?.tokens) : undefined;
    cases.push({ name: c.name, rows, tokS, endToEnd, stepMs, ...(sameTokens === undefined ? {} : { sameTokens }) });
  }
  await app.dispose();
  appWorker.terminate();
  await bench?.dispose();
  benchWorker?.terminate();
  return {
    backend: info.kind,
    software,
    threads: info.threads,
    crossOriginIsolated: info.crossOriginIsolated,
    ...(tjsVersion ? { tjsVersion } : {}),
    curve,
    cases,
  };
}
