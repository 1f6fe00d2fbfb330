// Train-step speed of the Llama decoder: one whole step (forward, loss, backward, clipping, AdamW)
// for full-parameter SFT and for LoRA over a 4-bit base (both MatMulNBits backward emissions), next
// to the forward-only score graph of the same shape, on wasm and onnxruntime-node in Node. Sizes: the
// prototype's (d 64, seq 32, batch 4) and the calibration model's (d 128 × 4 layers, seq 64, batch 8).
import { time, type BenchEntry, type BenchRow } from '../harness.ts';
import { OrtRuntime, type TensorData } from '../../src/rl/runtime/ort.ts';
import { validateConfig, type ModelConfigInput } from '../../src/rl/model/llama/config.ts';
import { ALL_LORA_TARGETS, countParams, initLora, initWeights } from '../../src/rl/model/llama/weights.ts';
import { blocksQuant4, paramSource } from '../../src/rl/model/llama/params.ts';
import { buildGraph } from '../../src/rl/model/llama/graphs.ts';
import { leftPad, prefillFeeds } from '../../src/rl/model/llama/feeds.ts';
import { buildLlamaTrainStep, type LlamaTrainable } from '../../src/rl/model/train/llama.ts';
import { Trainer } from '../../src/rl/model/train/trainer.ts';
import { Rng } from '../../src/rl/util/rng.ts';

const SIZES: { label: string; cfg: ModelConfigInput; batch: number; seq: number }[] = [
  { label: 'd64×1', cfg: { vocabSize: 256, dModel: 64, nLayers: 1, nHeads: 4, dFf: 192, maxSeq: 64 }, batch: 4, seq: 32 },
  { label: 'd128×4', cfg: { vocabSize: 1024, dModel: 128, nLayers: 4, nHeads: 4, dFf: 384, maxSeq: 128 }, batch: 8, seq: 64 },
];

const LORA = { rank: 8, alpha: 16, targets: ALL_LORA_TARGETS };

export const trainStep: BenchEntry = {
  name: 'train-step',
  description: 'Llama train step (full SFT, LoRA over 4-bit) vs forward-only, tokens/s, wasm vs onnxruntime-node',
  byDefault: true,
  async run(log) {
    const rows: BenchRow[] = [];
    for (const size of SIZES) {
      const cfg = validateConfig(size.cfg);
      const weights = initWeights(cfg, 1);
      const rng = new Rng(2);
      const rowsIds = Array.from({ length: size.batch }, () => Array.from({ length: size.seq + 1 }, () => rng.int(cfg.vocabSize)));
      const tokens = prefillFeeds(cfg, leftPad(rowsIds.map((r) => r.slice(0, size.seq)), 0));
      const dims = [size.batch, size.seq];
      const batch: Record<string, TensorData> = {
        ...tokens,
        targets: { type: 'int32', data: Int32Array.from(rowsIds.flatMap((r) => r.slice(1))), dims },
        loss_mask: { type: 'float32', data: new Float32Array(size.batch * size.seq).fill(1), dims },
      };
      const ntok = size.batch * size.seq;
      const note = `${(countParams(cfg) / 1e6).toFixed(2)}M params, B=${size.batch}, seq ${size.seq}`;
      const cases: { label: string; trainable: LlamaTrainable; init: Record<string, Float32Array>; nbits?: 'fp32-transpose' | 'block-nbits' }[] = [
        { label: 'full SFT', trainable: { kind: 'full' }, init: weights },
        { label: 'LoRA r8 over 4-bit (fp32-transpose)', trainable: { kind: 'lora', lora: LORA, base: 'quant4' }, init: initLora(cfg, LORA, 3), nbits: 'fp32-transpose' },
        { label: 'LoRA r8 over 4-bit (block-nbits)', trainable: { kind: 'lora', lora: LORA, base: 'quant4' }, init: initLora(cfg, LORA, 3), nbits: 'block-nbits' },
      ];
      for (const backend of ['wasm', 'node'] as const) {
        const runtime = await OrtRuntime.create(backend);
        if (runtime.info.kind !== backend) {
          log(`train-step: ${backend} unavailable (${runtime.info.reason})`);
          continue;
        }
        for (const [label, placement] of [['fp32', 'const'], ['4-bit', blocksQuant4]] as const) {
          const s = await runtime.createSession(buildGraph(cfg, { kind: 'score', params: paramSource(weights, placement) }).bytes, { label: 'bench-forward' });
          const t = await time(() => s.run(tokens), { warmup: 2, iterations: 30, budgetMs: 3000 });
          await s.dispose();
          const c = `${size.label} forward-only ${label}, ${backend} (Node)`;
          log(`train-step ${c}: ${t.medianMs.toFixed(2)} ms, ${((ntok * 1000) / t.medianMs).toFixed(0)} tokens/s`);
          rows.push({ case: c, metric: 'forward', value: (ntok * 1000) / t.medianMs, unit: 'tokens/s', note }, { case: c, metric: 'forward', value: t.medianMs, unit: 'ms' });
        }
        for (const k of cases) {
          const graph = buildLlamaTrainStep({ cfg, weights, trainable: k.trainable, loss: { kind: 'sft' }, batch: size.batch, seqLen: size.seq, nbitsBackward: k.nbits });
          const trainer = await Trainer.create(runtime, graph, k.init, { lr: 1e-3 });
          const t = await time(() => trainer.step(batch), { warmup: 2, iterations: 30, budgetMs: 4000 });
          await trainer.dispose();
          const c = `${size.label} ${k.label}, ${backend} (Node)`;
          log(`train-step ${c}: ${t.medianMs.toFixed(2)} ms/step, ${((ntok * 1000) / t.medianMs).toFixed(0)} tokens/s, ${graph.nodeCount} nodes`);
          rows.push(
            { case: c, metric: 'train step', value: (ntok * 1000) / t.medianMs, unit: 'tokens/s', note: `${note}, ${graph.nodeCount} nodes` },
            { case: c, metric: 'train step', value: t.medianMs, unit: 'ms' },
          );
        }
        await runtime.dispose();
      }
    }
    return rows;
  },
};
