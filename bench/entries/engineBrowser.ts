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
import { Rng } from '../../src/rl/util/rng.ts';
import { launch, serveApp } from '../../test/browser/harness.ts';
import { buildBenchWorker } from '../engineBrowser/build.ts';
import { runPage, type PageArgs, type PageResult } from '../engineBrowser/page.ts';

const NEW = 32;
const PROMPT = 64;
const ROUNDS = 5;
const WARMUP = 4;
const DIR = 'bench-engine';

export const engineBrowser: BenchEntry = {
  name: 'engine-browser',
  description: 'decode tokens/s of the shipped policy in Chromium: app policy worker, in-thread, and transformers.js side by side (wasm; WebGPU = SwiftShader, not meaningful)',
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
    for (const [path, bytes] of Object.entries({ ...policy.files, [OPTIMUM_MODEL_FILE]: buildOptimumDecoder(policy.config, paramSource(policy.weights, 'const')) })) {
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
            cases: preference === 'wasm' ? cases : cases.map((c) => ({ ...c, prompts: c.prompts.map((p) => p.slice(0, 16)) })),
            newTokens: preference === 'wasm' ? NEW : 8,
            rounds: preference === 'wasm' ? ROUNDS : 1,
            warmup: preference === 'wasm' ? WARMUP : 1,
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
    return rows;
  },
};

function toRows(r: PageResult, note: string, log: (line: string) => void): BenchRow[] {
  const rows: BenchRow[] = [];
  const env = `${r.threads} wasm thread${r.threads === 1 ? '' : 's'}, cross-origin isolated ${r.crossOriginIsolated}`;
  for (const c of r.cases) {
    if (r.backend === 'webgpu') {
      rows.push({ case: `browser engine decode ${c.name}, webgpu`, metric: 'decode tokens/s', value: c.tokS.app, unit: 'tok/s', note: 'SwiftShader WebGPU: timing not meaningful; 16-token prompts, 8 new tokens, one round' });
      log(`engine-browser webgpu (SwiftShader) ${c.name}: ${c.tokS.app.toFixed(0)} tok/s`);
      continue;
    }
    const step = (k: string) => (c.stepMs[k] ? `; ${c.stepMs[k].decode.toFixed(2)} ms/decode step, ${c.stepMs[k].sample.toFixed(3)} ms/token sampling` : '');
    rows.push({ case: `browser engine decode ${c.name}, wasm (policy worker)`, metric: 'decode tokens/s', value: c.tokS.app, unit: 'tok/s', note: `${note}; ${env}${step('app')}` });
    rows.push({ case: `browser engine decode ${c.name}, wasm (in-thread in a worker)`, metric: 'decode tokens/s', value: c.tokS.inThread, unit: 'tok/s', note: `no comlink${step('inThread')}` });
    rows.push({ case: `browser transformers.js decode ${c.name}, wasm`, metric: 'decode tokens/s', value: c.tokS.tjs, unit: 'tok/s', note: `@huggingface/transformers ${r.tjsVersion} in a worker, same onnxruntime-web wasm build, same model exported to ${OPTIMUM_MODEL_FILE}${c.name === 'K=8' ? '; the prompt repeated 8 times' : ''}; greedy tokens ${c.sameTokens ? 'equal' : 'DIFFER'}` });
    rows.push({ case: `browser engine ÷ transformers.js, decode ${c.name}, wasm`, metric: 'ratio', value: c.tokS.app / c.tokS.tjs, unit: '×' });
    log(`engine-browser wasm ${c.name}: policy worker ${c.tokS.app.toFixed(0)}, in-thread ${c.tokS.inThread.toFixed(0)}, transformers.js ${c.tokS.tjs.toFixed(0)} tok/s; ratio ${(c.tokS.app / c.tokS.tjs).toFixed(2)}; tokens ${c.sameTokens ? 'equal' : 'differ'}${step('app')}`);
  }
  return rows;
}
