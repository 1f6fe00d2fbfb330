// A module worker for the browser engine benchmark (bench/entries/engineBrowser.ts), beside the
// app's policy worker in the same page: @huggingface/transformers on the same onnxruntime-web wasm
// build as the engine (shareOrt.ts), loading an exported model folder by URL with remote models
// off; and the engine itself in-thread (no comlink), so the bench can tell the cost of the worker
// boundary from the cost of the runtime. Built by bench/engineBrowser/build.ts, not by the app.
import './shareOrt.ts';
import * as tj from '@huggingface/transformers';
import { expose } from 'comlink';
import { PolicyEngine } from '../../src/rl/runtime/policyEngine.ts';
import type { GenerateRequest, Timing } from '../../src/rl/runtime/engine/types.ts';

type CausalLm = Awaited<ReturnType<typeof tj.AutoModelForCausalLM.from_pretrained>>;

/** One timed call: wall ms in the worker, the tokens of the first row, and the engine's phase timing. */
export interface Timed {
  ms: number;
  tokens: number[];
  timing?: Timing;
}

let model: CausalLm | null = null;
let engine: PolicyEngine | null = null;

const api = {
  /** transformers.js: `root` is the URL folder holding `name/` (config.json, tokenizer.json, onnx/model.onnx). */
  async tjsLoad(root: string, name: string): Promise<{ version: string; threads: number }> {
    tj.env.allowRemoteModels = false;
    tj.env.allowLocalModels = true;
    tj.env.useBrowserCache = false;
    tj.env.localModelPath = root;
    // Handed an ORT instance, transformers.js lists no devices of its own ('wasm' is refused); 'auto'
    // then passes no execution provider and ORT takes its default, wasm. The bench page has no WebGPU.
    model = await tj.AutoModelForCausalLM.from_pretrained(name, { dtype: 'fp32', device: 'auto' });
    const ort = (globalThis as Record<symbol, { env: { wasm: { numThreads?: number } } }>)[Symbol.for('onnxruntime')];
    return { version: tj.env.version, threads: ort.env.wasm.numThreads ?? 0 };
  },

  /** Greedy, exactly `max` new tokens for each left-padded row (the Node entry's call). */
  async tjsGenerate(prompts: number[][], max: number, pad: number): Promise<Timed> {
    if (!model) throw new Error('tjsLoad first');
    const len = Math.max(...prompts.map((p) => p.length));
    const input = new BigInt64Array(prompts.length * len).fill(BigInt(pad));
    const mask = new BigInt64Array(prompts.length * len);
    prompts.forEach((p, b) => p.forEach((id, j) => ((input[b * len + len - p.length + j] = BigInt(id)), (mask[b * len + len - p.length + j] = 1n))));
    const t = performance.now();
    const out = (await model.generate({
      input_ids: new tj.Tensor('int64', input, [prompts.length, len]),
      attention_mask: new tj.Tensor('int64', mask, [prompts.length, len]),
      max_new_tokens: max,
      min_new_tokens: max,
      do_sample: false,
      pad_token_id: pad,
    })) as { data: BigInt64Array; dims: number[] };
    const ms = performance.now() - t;
    const width = out.dims[1];
    return { ms, tokens: Array.from(out.data.subarray(len, width), Number) };
  },

  /** The engine in this worker's thread, on wasm. */
  async oursLoad(modelsUrl: string): Promise<void> {
    engine = new PolicyEngine();
    await engine.init('wasm');
    await engine.load('policy', { kind: 'url', baseUrl: modelsUrl, name: 'policy', cache: false }, { precision: 'fp32' });
  },

  async oursGenerate(request: GenerateRequest): Promise<Timed> {
    if (!engine) throw new Error('oursLoad first');
    const t = performance.now();
    const r = await engine.generate(request);
    return { ms: performance.now() - t, tokens: r.generations[0].tokenIds, timing: r.timing };
  },

  async dispose(): Promise<void> {
    await model?.dispose();
    await engine?.dispose();
    model = null;
    engine = null;
  },
};

export type BenchWorker = typeof api;

expose(api);
