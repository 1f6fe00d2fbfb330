// The inference engine end to end (src/rl/runtime/policyEngine.ts) on wasm in Node: decode tokens/s
// at B=1, K=8 (one prompt, 8 samples) and B=8 (8 ragged prompts), prefill tokens/s, time to first
// token, the cost of the LoRA adapter slot, critic scoring of a 10-turn episode; and, side by side
// on the same onnxruntime-web build, the same exported model through @huggingface/transformers
// (onnx/model.onnx in Optimum's layout, engine/optimumExport.ts; local folder, remote models off).
// Both sides are timed the same way: decode tokens/s = (N − 1)·rows / (t(N new tokens) − t(1 new token)),
// each t the fastest of 8 interleaved rounds after 4 warm-up runs (the machines here are shared and loaded).
// Model: public/models/policy and critic when the forge has written them, else a random stand-in
// of the forge's default size (d 128, 4 layers, d_ff 352, vocab 1024, context 256).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchEntry, BenchRow } from '../harness.ts';
import { modelsDir, projectRoot } from '../../src/cli/paths.ts';
import { loadModel, writeManifest, writeModelFolder, type LoadedModel } from '../../src/rl/model/folder/folder.ts';
import { memoryFolder } from '../../src/rl/model/folder/io.ts';
import { nodeReader, nodeWriter } from '../../src/rl/model/folder/nodeIo.ts';
import { validateConfig } from '../../src/rl/model/llama/config.ts';
import { paramSource } from '../../src/rl/model/llama/params.ts';
import { initWeights } from '../../src/rl/model/llama/weights.ts';
import { baseVocab } from '../../src/rl/model/tokenizer/fit.ts';
import { Tokenizer } from '../../src/rl/model/tokenizer/tokenizer.ts';
import type { ChatMessage } from '../../src/rl/model/tokenizer/chat.ts';
import { shareOrtWeb } from '../../src/rl/runtime/ort.ts';
import { PolicyEngine } from '../../src/rl/runtime/policyEngine.ts';
import { buildOptimumDecoder, OPTIMUM_MODEL_FILE } from '../../src/rl/runtime/engine/optimumExport.ts';
import type { GenerateRequest } from '../../src/rl/runtime/engine/types.ts';
import { Rng } from '../../src/rl/util/rng.ts';

const NEW = 32;
const PROMPT = 64;
const REPEATS = 5;
/** Interleaved rounds per decode case, after WARMUP untimed N-token runs of each side (as the browser entry). */
const ROUNDS = 8;
const WARMUP = 4;

/** The shipped models, or a random stand-in of the forge's default size. */
async function models(): Promise<{ policy: LoadedModel; critic: LoadedModel; label: string }> {
  if (existsSync(join(modelsDir(), 'manifest.json'))) {
    const read = nodeReader(modelsDir());
    return { policy: await loadModel(read, 'policy'), critic: await loadModel(read, 'critic'), label: 'shipped model' };
  }
  const words = Array.from({ length: 1024 - baseVocab().length }, (_, i) => ' w' + i.toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)]));
  const tok = new Tokenizer([...baseVocab(), ...words]);
  const cfg = validateConfig({ vocabSize: tok.vocabSize, dModel: 128, nLayers: 4, nHeads: 4, dFf: 352, maxSeq: 256 });
  const mem = memoryFolder();
  const policy = await writeModelFolder(mem.write, 'policy', { config: cfg, tokenizer: tok, weights: initWeights(cfg, 1) });
  const critic = await writeModelFolder(mem.write, 'critic', {
    config: cfg,
    tokenizer: tok,
    weights: initWeights(cfg, 2, { heads: { value: true } }),
    heads: { value: true },
  });
  await writeManifest(mem.write, { policy, critic });
  return { policy: await loadModel(mem.read, 'policy'), critic: await loadModel(mem.read, 'critic'), label: 'random stand-in (no public/models yet)' };
}

/** The fastest of REPEATS runs after a warm-up: on a shared, loaded machine the minimum is the stable estimate. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return Math.min(...ms);
}

export const engine: BenchEntry = {
  name: 'engine',
  description: 'inference engine on wasm: decode tok/s B=1/K=8/B=8, prefill, TTFT, critic 10-turn scoring, vs transformers.js',
  byDefault: true,
  async run(log) {
    shareOrtWeb(new URL('node_modules/onnxruntime-web/dist/', `file://${projectRoot()}`).href);
    const { policy, critic, label } = await models();
    const cfg = policy.config;
    const rng = new Rng(3);
    const ids = (n: number) => [policy.tokenizer.special.bos, ...Array.from({ length: n - 1 }, () => 7 + rng.int(cfg.vocabSize - 7))];
    const one = ids(PROMPT);
    const eight = Array.from({ length: 8 }, (_, i) => ids(PROMPT - 4 * i));
    const rows: BenchRow[] = [];
    const note = `${label}; load avg ${loadavg()[0].toFixed(1)} at start; d ${cfg.dModel}, ${cfg.nLayers} layers, vocab ${cfg.vocabSize}; prompt ${PROMPT}, ${NEW} new tokens; fp32`;

    const e = new PolicyEngine();
    await e.init('wasm');
    const files = (m: LoadedModel, folder: string) => ({
      kind: 'files' as const,
      folder: '',
      files: Object.fromEntries(Object.entries(m.files).map(([p, b]) => [p.replace(`${folder}/`, ''), b])),
    });
    await e.load('policy', files(policy, 'policy'), { precision: 'fp32', adapterSlot: null });
    await e.load('slot', files(policy, 'policy'), { precision: 'fp32' });
    await e.load('critic', files(critic, 'critic'), { precision: 'fp32', adapterSlot: null });
    const req = (prompts: number[][], n: number, max: number, model = 'policy'): GenerateRequest => ({
      model,
      prompts: prompts.map((p) => ({ ids: p })),
      n,
      sampling: { temperature: 0, maxNewTokens: max, minNewTokens: max, banSpecial: false },
    });
    const ours: Record<string, number> = {};
    const cases = [
      ['B=1', [one], 1],
      ['K=8', [one], 8],
      ['B=8', eight, 1],
    ] as const;
    const long = ids(128);
    await e.generate(req([long], 1, 1));
    const firsts: number[] = [];
    const prefills: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const r = await e.generate(req([long], 1, 1));
      firsts.push(r.timing.firstTokenMs);
      prefills.push(r.timing.prefillMs);
    }
    // fastest of the runs, as for the decode figures
    firsts.sort((a, b) => a - b);
    prefills.sort((a, b) => a - b);
    rows.push({ case: 'engine prefill 128 tokens B=1, wasm', metric: 'prefill tokens/s', value: (128 * 1000) / prefills[0], unit: 'tok/s', note });
    rows.push({ case: 'engine time to first token, 128-token prompt, wasm', metric: 'TTFT', value: firsts[0], unit: 'ms', note });

    const episode: ChatMessage[] = [
      { role: 'system', content: 'Find the hidden item in ten questions.' },
      { role: 'hidden', content: 'item: w3' },
    ];
    for (let t = 0; t < 10; t++) episode.push({ role: 'agent', content: `Is it w${t}?` }, { role: 'user', content: 'No.' });
    const tokens = (await e.encode({ messages: episode }, 'critic')).length;
    const criticMs = await timed(() => e.scoreTurns({ model: 'critic', episodes: [episode] }));
    rows.push({
      case: `critic scoreTurns, 10-turn episode (${tokens} tokens), wasm`,
      metric: 'latency',
      value: criticMs,
      unit: 'ms',
      note: `${label}; log-probs + value per turn, one run`,
    });

    // transformers.js on the same onnxruntime-web build, from a folder with onnx/model.onnx
    const dir = mkdtempSync(join(tmpdir(), 'turnwise-tjs-'));
    try {
      const write = nodeWriter(dir);
      for (const [p, b] of Object.entries(policy.files)) await write(`policy/${p}`, b);
      await write(`policy/${OPTIMUM_MODEL_FILE}`, buildOptimumDecoder(cfg, paramSource(policy.weights, 'const')));
      const tj = await import('@huggingface/transformers');
      tj.env.allowRemoteModels = false;
      tj.env.localModelPath = `${dir}/`;
      const model = await tj.AutoModelForCausalLM.from_pretrained('policy', { dtype: 'fp32', device: 'auto' });
      const batch = (prompts: number[][]) => {
        const len = Math.max(...prompts.map((p) => p.length));
        const input = new BigInt64Array(prompts.length * len);
        const mask = new BigInt64Array(prompts.length * len);
        prompts.forEach((p, b) => p.forEach((id, j) => ((input[b * len + len - p.length + j] = BigInt(id)), (mask[b * len + len - p.length + j] = 1n))));
        return { input_ids: new tj.Tensor('int64', input, [prompts.length, len]), attention_mask: new tj.Tensor('int64', mask, [prompts.length, len]) };
      };
      const gen = (prompts: number[][], max: number) =>
        model.generate({ ...batch(prompts), max_new_tokens: max, min_new_tokens: max, do_sample: false, pad_token_id: policy.tokenizer.special.pad });
      // Interleaved rounds, fastest of each side: load on this shared machine changes by the minute.
      const best = (xs: number[]) => Math.min(...xs);
      for (const [name, prompts, n] of cases) {
        const theirs = n > 1 ? Array.from({ length: n }, () => prompts[0]) : [...prompts];
        const o1: number[] = [];
        const oN: number[] = [];
        const h1: number[] = [];
        const hN: number[] = [];
        const clock = async (fn: () => Promise<unknown>, into: number[]) => {
          const t = performance.now();
          await fn();
          into.push(performance.now() - t);
        };
        const s1: number[] = [];
        const sN: number[] = [];
        const withSlot = name === 'B=1';
        for (let i = 0; i < WARMUP; i++) {
          await e.generate(req([...prompts], n, NEW));
          await gen(theirs, NEW);
          if (withSlot) await e.generate(req([...prompts], n, NEW, 'slot'));
        }
        for (let i = 0; i < ROUNDS; i++) {
          await clock(() => e.generate(req([...prompts], n, 1)), o1);
          await clock(() => e.generate(req([...prompts], n, NEW)), oN);
          await clock(() => gen(theirs, 1), h1);
          await clock(() => gen(theirs, NEW), hN);
          if (withSlot) {
            await clock(() => e.generate(req([...prompts], n, 1, 'slot')), s1);
            await clock(() => e.generate(req([...prompts], n, NEW, 'slot')), sN);
          }
        }
        if (withSlot) {
          const slot = ((NEW - 1) * 1000) / (best(sN) - best(s1));
          rows.push({
            case: 'engine decode B=1 with a LoRA slot (rank 8, all projections), wasm',
            metric: 'decode tokens/s',
            value: slot,
            unit: 'tok/s',
            note: `${note}; rounds interleaved with the B=1 rows`,
          });
        }
        const rowsN = theirs.length;
        ours[name] = ((NEW - 1) * rowsN * 1000) / (best(oN) - best(o1));
        const tokS = ((NEW - 1) * rowsN * 1000) / (best(hN) - best(h1));
        rows.push({ case: `engine decode ${name}, wasm`, metric: 'decode tokens/s', value: ours[name], unit: 'tok/s', note });
        rows.push({
          case: `transformers.js decode ${name}, wasm`,
          metric: 'decode tokens/s',
          value: tokS,
          unit: 'tok/s',
          note: `@huggingface/transformers ${tj.env.version}, same model exported to ${OPTIMUM_MODEL_FILE}${name === 'K=8' ? '; the prompt repeated 8 times' : ''}`,
        });
        rows.push({ case: `engine ÷ transformers.js, decode ${name}`, metric: 'ratio', value: ours[name] / tokS, unit: '×' });
        log(`engine ${ours[name].toFixed(0)} tok/s, transformers.js ${tokS.toFixed(0)} tok/s: decode ${name}, ratio ${(ours[name] / tokS).toFixed(2)}`);
      }
      await model.dispose();
    } finally {
      await e.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
    return rows;
  },
};
