// The inference engine in Chromium on the shipped policy, measured as the Node engine entry does:
// decode tokens/s at B=1, K=8 (one prompt, 8 samples) and B=8 (8 ragged prompts), greedy, the same
// random token-id prompts (64 tokens, 32 new), fp32, no adapter slot. On wasm, three runners take
// turns in one page (bench/engineBrowser/page.ts): the app's own policy worker through comlink,
// the engine in-thread in a bench worker, and @huggingface/transformers in that worker on the same
// onnxruntime-web wasm build, loading the same policy exported to onnx/model.onnx
// (engine/optimumExport.ts) from a local URL folder with remote models off; the ratio
// engine ÷ transformers.js is reported per case. WebGPU here is SwiftShader (a CPU emulation):
// reported for the app worker only, labelled not meaningful.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import type { BenchEntry, BenchRow } from '../harness.ts';
import { projectRoot } from '../../src/cli/paths.ts';
import { loadModel } from '../../src/rl/model/folder/folder.ts';
import { nodeReader } from '../../src/rl/model/folder/nodeIo.ts';
import { paramSource } from '../../src/rl/model/llama/params.ts';
import { buildOptimumDecoder, OPTIMUM_MODEL_FILE } from '../../src/rl/runtime/engine/optimumExport.ts';
import { PolicyEngine } from '../../src/rl/runtime/policyEngine.ts';
import { Rng } from '../../src/rl/util/rng.ts';
import { launch, serveApp } from '../../test/browser/harness.ts';
import { buildBenchWorker } from '../engineBrowser/build.ts';
import { runPage, type PageArgs, type PageResult } from '../engineBrowser/page.ts';

const NEW = 32;
const PROMPT = 64;
const ROUNDS = 8;
const WARMUP = 4;
const CURVE = 20;
const DIR = 'bench-engine';

export const engineBrowser: BenchEntry = {
  name: 'engine-browser',
  description:
    'decode tokens/s of the shipped policy in Chromium: app policy worker, in-thread, and transformers.js side by side (wasm; WebGPU = SwiftShader, not meaningful)',
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
    const out = join(dist, DIR);
    const benchWorker = await buildBenchWorker(root, join(out, 'w'));
    // The model the app worker loads (dist/models), plus the Optimum graph transformers.js needs.
    const policy = await loadModel(nodeReader(join(dist, 'models')), 'policy');
    for (const [path, bytes] of Object.entries({
      ...policy.files,
      [OPTIMUM_MODEL_FILE]: buildOptimumDecoder(policy.config, paramSource(policy.weights, 'const')),
    })) {
      mkdirSync(dirname(join(out, 'export/policy', path)), { recursive: true });
      writeFileSync(join(out, 'export/policy', path), bytes);
    }
    copyFileSync(join(root, 'node_modules/comlink/dist/esm/comlink.mjs'), join(out, 'comlink.mjs'));
    // A file, not an inline script: the app's CSP allows scripts from 'self' only.
    writeFileSync(join(out, 'boot.mjs'), "import * as c from './comlink.mjs';\nglobalThis.comlinkForBench = c;\n");

    const cfg = policy.config;
    const rng = new Rng(3);
    const ids = (n: number) => [policy.tokenizer.special.bos, ...Array.from({ length: n - 1 }, () => 7 + rng.int(cfg.vocabSize - 7))];
    const one = ids(PROMPT);
    const cases = [
      { name: 'B=1', prompts: [one], n: 1 },
      { name: 'K=8', prompts: [one], n: 8 },
      { name: 'B=8', prompts: Array.from({ length: 8 }, (_, i) => ids(PROMPT - 4 * i)), n: 1 },
    ];
    const note = `Chromium, shipped model (d ${cfg.dModel}, ${cfg.nLayers} layers, vocab ${cfg.vocabSize}), fp32, no adapter slot; prompt ${PROMPT}, ${NEW} new tokens; load avg ${loadavg()[0].toFixed(1)} at start`;
    const server = await serveApp();
    const rows: BenchRow[] = [];
    try {
      for (const preference of ['wasm', 'webgpu'] as const) {
        const b = await launch({ webgpu: preference === 'webgpu' });
        let result: PageResult;
        try {
          await b.page.goto(`${server.url}#/settings`);
          await b.page.addScriptTag({ type: 'module', url: `/${DIR}/boot.mjs` });
          await b.page.waitForFunction(() => 'comlinkForBench' in globalThis);
          // tsx (which runs the CLI) wraps named functions in __name(); give the page a no-op one.
          await b.page.evaluate('globalThis.__name = (f) => f');
          const args: PageArgs = {
            appWorkerUrl: `/assets/${worker}`,
            benchWorkerUrl: `/${DIR}/w/${benchWorker}`,
            modelsUrl: `${server.url}models/`,
            exportRoot: `${server.url}${DIR}/export/`,
            preference,
            sideBySide: preference === 'wasm',
            cases,
            newTokens: NEW,
            rounds: ROUNDS,
            warmup: WARMUP,
            curve: preference === 'wasm' ? CURVE : 0,
            slot: preference === 'wasm',
            cpuKv: preference === 'webgpu',
            reduceOnSoftware: true,
            pad: policy.tokenizer.special.pad,
          };
          result = await b.page.evaluate(runPage, args);
        } catch (e) {
          throw new Error(`${(e as Error).message}\npage errors: ${b.errors.join('\n')}`);
        } finally {
          await b.close();
        }
        rows.push(...toRows(result, note, log));
      }
    } finally {
      await server.close();
      rmSync(out, { recursive: true, force: true });
    }
    // The same B=1 case on wasm in this Node process, right after, timed the same way.
    for (const [label, adapterSlot] of [
      ['', null],
      [' with the LoRA slot', undefined],
    ] as const) {
      const v = await nodeDecode(join(dist, 'models'), one, adapterSlot);
      rows.push({
        case: `Node engine decode B=1${label}, wasm (same run)`,
        metric: 'decode tokens/s',
        value: v,
        unit: 'tok/s',
        note: "onnxruntime-web Node build, 1 thread; the browser rows' prompt and timing",
      });
      log(`engine-browser Node B=1${label}: ${v.toFixed(0)} tok/s`);
    }
    return rows;
  },
};

/** Decode tokens/s at B=1 in this process (wasm), warmed up and timed as the page does. */
async function nodeDecode(modelsDir: string, prompt: number[], adapterSlot: null | undefined): Promise<number> {
  const e = new PolicyEngine();
  await e.init('wasm');
  try {
    await e.loadFrom(
      'policy',
      { kind: 'reader', read: nodeReader(modelsDir), name: 'policy', manifest: true },
      { precision: 'fp32', ...(adapterSlot === null ? { adapterSlot } : {}) },
    );
    const req = (max: number) => ({ prompts: [{ ids: prompt }], sampling: { temperature: 0, maxNewTokens: max, minNewTokens: max, banSpecial: false } });
    for (let i = 0; i < WARMUP; i++) await e.generate(req(NEW));
    let one = Infinity;
    let many = Infinity;
    for (let r = 0; r < ROUNDS; r++) {
      let t = performance.now();
      await e.generate(req(1));
      one = Math.min(one, performance.now() - t);
      t = performance.now();
      await e.generate(req(NEW));
      many = Math.min(many, performance.now() - t);
    }
    return ((NEW - 1) * 1000) / (many - one);
  } finally {
    await e.dispose();
  }
}

function toRows(r: PageResult, note: string, log: (line: string) => void): BenchRow[] {
  const rows: BenchRow[] = [];
  const env = `${r.threads} wasm thread${r.threads === 1 ? '' : 's'}, cross-origin isolated ${r.crossOriginIsolated}`;
  if (r.curve.length) {
    rows.push({
      case: "browser engine decode ms/step over the policy worker's first runs, B=1, wasm",
      metric: 'decode ms/step, first run',
      value: r.curve[0],
      unit: 'ms',
      note: `runs 1..${r.curve.length}: ${r.curve.map((x) => x.toFixed(1)).join(' ')}`,
    });
    log(`engine-browser warm-up curve (ms/step): ${r.curve.map((x) => x.toFixed(1)).join(' ')}`);
  }
  for (const c of r.cases) {
    const step = (k: string) => (c.stepMs[k] ? `; ${c.stepMs[k].decode.toFixed(2)} ms/decode step, ${c.stepMs[k].sample.toFixed(3)} ms/token sampling` : '');
    if (r.backend === 'webgpu' && r.software) {
      for (const [runner, what] of [
        ['app', 'KV cache on the GPU'],
        ['appCpuKv', 'KV cache copied through JS'],
      ] as const) {
        rows.push({
          case: `browser engine ${c.name}, webgpu, ${what}`,
          metric: 'end-to-end tokens/s',
          value: c.endToEnd[runner],
          unit: 'tok/s',
          note: 'SwiftShader WebGPU: timing not meaningful; rows·8 / t(8 new tokens), prefill of 16-token prompts included, one round after one warm-up run',
        });
      }
      log(
        `engine-browser webgpu (SwiftShader) ${c.name}: ${c.endToEnd.app.toFixed(0)} tok/s end to end (KV copied through JS: ${c.endToEnd.appCpuKv.toFixed(0)})`,
      );
      continue;
    }
    if (r.backend === 'webgpu') {
      rows.push({
        case: `browser engine decode ${c.name}, webgpu, KV cache on the GPU`,
        metric: 'decode tokens/s',
        value: c.tokS.app,
        unit: 'tok/s',
        note: `${note}${step('app')}`,
      });
      rows.push({
        case: `browser engine decode ${c.name}, webgpu, KV cache copied through JS`,
        metric: 'decode tokens/s',
        value: c.tokS.appCpuKv,
        unit: 'tok/s',
        note: `LoadOptions.gpuKv false${step('appCpuKv')}`,
      });
      rows.push({ case: `KV on the GPU ÷ copied through JS, decode ${c.name}, webgpu`, metric: 'ratio', value: c.tokS.app / c.tokS.appCpuKv, unit: '×' });
      log(`engine-browser webgpu ${c.name}: ${c.tokS.app.toFixed(0)} tok/s, KV copied through JS ${c.tokS.appCpuKv.toFixed(0)} tok/s`);
      continue;
    }
    if (c.tokS.appSlot) {
      rows.push({
        case: `browser engine decode ${c.name} with the LoRA slot (rank 8, all projections), wasm (policy worker)`,
        metric: 'decode tokens/s',
        value: c.tokS.appSlot,
        unit: 'tok/s',
        note: `as the lab loads the policy${step('appSlot')}`,
      });
    }
    rows.push({
      case: `browser engine decode ${c.name}, wasm (policy worker)`,
      metric: 'decode tokens/s',
      value: c.tokS.app,
      unit: 'tok/s',
      note: `${note}; ${env}${step('app')}`,
    });
    rows.push({
      case: `browser engine decode ${c.name}, wasm (in-thread in a worker)`,
      metric: 'decode tokens/s',
      value: c.tokS.inThread,
      unit: 'tok/s',
      note: `no comlink${step('inThread')}`,
    });
    rows.push({
      case: `browser transformers.js decode ${c.name}, wasm`,
      metric: 'decode tokens/s',
      value: c.tokS.tjs,
      unit: 'tok/s',
      note: `@huggingface/transformers ${r.tjsVersion} in a worker, same onnxruntime-web wasm build, same model exported to ${OPTIMUM_MODEL_FILE}${c.name === 'K=8' ? '; the prompt repeated 8 times' : ''}; greedy tokens ${c.sameTokens ? 'equal' : 'DIFFER'}`,
    });
    rows.push({ case: `browser engine ÷ transformers.js, decode ${c.name}, wasm`, metric: 'ratio', value: c.tokS.app / c.tokS.tjs, unit: '×' });
    log(
      `engine-browser wasm ${c.name}: policy worker ${c.tokS.app.toFixed(0)}, in-thread ${c.tokS.inThread.toFixed(0)}, transformers.js ${c.tokS.tjs.toFixed(0)} tok/s; ratio ${(c.tokS.app / c.tokS.tjs).toFixed(2)}; tokens ${c.sameTokens ? 'equal' : 'differ'}${step('app')}`,
    );
  }
  return rows;
}
