// The Llama-style decoder's inference speed: prefill and KV-cache decode tokens/s at B = 1 and B = 8,
// fp32 and 4-bit (block linears), on wasm and onnxruntime-node in Node; plus the 4-bit logit error
// of the same random model. Sizes: the calibration model of docs/design.md (d 128, 4 layers, 0.8M).
import { time, type BenchEntry, type BenchRow } from '../harness.ts';
import { OrtRuntime } from '../../src/rl/runtime/ort.ts';
import { validateConfig } from '../../src/rl/model/llama/config.ts';
import { initWeights, countParams } from '../../src/rl/model/llama/weights.ts';
import { blocksQuant4, paramSource } from '../../src/rl/model/llama/params.ts';
import { Stepper } from '../../src/rl/runtime/engine/stepper.ts';
import { buildGraph } from '../../src/rl/model/llama/graphs.ts';
import { leftPad, prefillFeeds } from '../../src/rl/model/llama/feeds.ts';
import { compareLogits } from '../../src/rl/model/llama/metrics.ts';
import { Rng } from '../../src/rl/util/rng.ts';

const PROMPT = 64;
const STEPS = 32;

export const model: BenchEntry = {
  name: 'model',
  description: 'decoder d128×4 (vocab 1024): prefill/decode tokens/s, B=1/8, fp32 vs 4-bit, wasm vs onnxruntime-node',
  byDefault: true,
  async run(log) {
    const cfg = validateConfig({ vocabSize: 1024, dModel: 128, nLayers: 4, nHeads: 4, dFf: 384, maxSeq: 256 });
    const w = initWeights(cfg, 1);
    const rng = new Rng(2);
    const rows: BenchRow[] = [];
    const note = `${(countParams(cfg) / 1e6).toFixed(2)}M params, prompt ${PROMPT}, ${STEPS} decode steps`;
    for (const backend of ['wasm', 'node'] as const) {
      const runtime = await OrtRuntime.create(backend);
      if (runtime.info.kind !== backend) {
        log(`model: ${backend} unavailable (${runtime.info.reason})`);
        continue;
      }
      for (const [label, placement] of [
        ['fp32', 'const'],
        ['4-bit', blocksQuant4],
      ] as const) {
        const runner = await Stepper.create(runtime, cfg, paramSource(w, placement), { label: `bench-${label}` });
        for (const batch of [1, 8]) {
          const prompts = Array.from({ length: batch }, () => Array.from({ length: PROMPT }, () => rng.int(cfg.vocabSize)));
          const pre = await time(() => runner.prefill(prompts), { warmup: 2, iterations: 20, budgetMs: 3000 });
          const start = await runner.prefill(prompts);
          const dec = await time(
            async () => {
              // decode consumes the cache it reads: each iteration starts from its own copy of the record
              let s = { ...start, state: { ...start.state, past: { ...start.state.past } } };
              for (let t = 0; t < STEPS; t++)
                s = await runner.decode(
                  s.state,
                  prompts.map((p) => p[t]),
                );
            },
            { warmup: 1, iterations: 10, budgetMs: 4000 },
          );
          const preTps = (batch * PROMPT * 1000) / pre.meanMs;
          const decTps = (batch * STEPS * 1000) / dec.meanMs;
          const c = `${label} B=${batch}, ${backend} (Node)`;
          log(`model ${c}: prefill ${preTps.toFixed(0)} tok/s, decode ${decTps.toFixed(0)} tok/s (${(dec.meanMs / STEPS).toFixed(2)} ms/step)`);
          rows.push(
            { case: c, metric: 'prefill', value: preTps, unit: 'tokens/s', note },
            { case: c, metric: 'decode', value: decTps, unit: 'tokens/s', note },
            { case: c, metric: 'decode step', value: dec.meanMs / STEPS, unit: 'ms' },
          );
        }
        await runner.dispose();
      }
      await runtime.dispose();
    }
    // accuracy cost of the shipped 4-bit placement on this (random, std 0.02) model
    const runtime = await OrtRuntime.create('wasm');
    const prompts = Array.from({ length: 4 }, () => Array.from({ length: 32 }, () => rng.int(cfg.vocabSize)));
    const feeds = prefillFeeds(cfg, leftPad(prompts, 0));
    const logits = [];
    for (const placement of ['const', blocksQuant4] as const) {
      const s = await runtime.createSession(buildGraph(cfg, { kind: 'score', params: paramSource(w, placement) }).bytes, { label: 'bench-score' });
      logits.push((await s.run(feeds)).logits.data as Float32Array);
      await s.dispose();
    }
    await runtime.dispose();
    const d = compareLogits(logits[1], logits[0], 4 * 32, cfg.vocabSize);
    log(`model 4-bit vs fp32 logits: max |Δ| ${d.maxAbs.toFixed(4)}, rel RMS ${d.relRms.toFixed(4)}, KL ${d.meanKl.toExponential(2)}, top-1 ${d.top1}`);
    const q = '4-bit (block linears) vs fp32, random model, 4×32 tokens';
    rows.push(
      { case: q, metric: 'max |Δlogit|', value: d.maxAbs, unit: '' },
      { case: q, metric: 'rel RMS', value: d.relRms, unit: '' },
      { case: q, metric: 'mean KL', value: d.meanKl, unit: 'nats' },
      { case: q, metric: 'top-1 agreement', value: d.top1, unit: '' },
    );
    return rows;
  },
};
