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
import { Trainer } from '../../src/rl/runtime/train/trainer.ts';
import { Rng } from '../../src/rl/util/rng.ts';
import { GraphBuilder } from '../../src/rl/model/onnx/builder.ts';
import { quantize4 } from '../../src/rl/model/quant.ts';
import { emitGradients } from '../../src/rl/model/autodiff/gradients.ts';
import type { NBitsBackwardMode } from '../../src/rl/model/autodiff/nbits.ts';

/** One frozen 4-bit layer: x [M, K] → y = x·W, loss Σ y ⊙ R, output dx. Times forward + dx. */
function nbitsLayerGraph(m: number, k: number, n: number, mode: NBitsBackwardMode): Uint8Array {
  const rng = new Rng(7);
  const w = quantize4(
    Float32Array.from({ length: k * n }, () => rng.normal()),
    k,
    n,
  );
  const g = new GraphBuilder('nbits_dx');
  const x = g.input('x', 'float32', [m, k]);
  const packed = g.initializer('w_packed', 'uint8', [n, k / 32, 16], w.packed);
  const scales = g.initializer('w_scales', 'float32', [w.scales.length], w.scales);
  const y = g.op('MatMulNBits', [x, packed, scales], { K: k, N: n, bits: 4, block_size: 32 }, 'com.microsoft');
  const r = g.constant(
    'float32',
    Float32Array.from({ length: m * n }, () => rng.normal()),
    [m, n],
  );
  const loss = g.op('ReduceSum', [g.op('Mul', [y, r])], { keepdims: 0 });
  g.node('Identity', [emitGradients(g, loss, [x], { nbitsBackward: mode }).grads.get(x) ?? ''], ['dx']);
  g.output('dx', 'float32', [m, k]);
  return g.toBytes();
}

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
    for (const backend of ['wasm', 'node'] as const) {
      const runtime = await OrtRuntime.create(backend);
      if (runtime.info.kind !== backend) continue;
      for (const [m, k, n] of [
        [256, 256, 256],
        [256, 256, 704],
        [1024, 512, 512],
      ]) {
        for (const mode of ['fp32-transpose', 'block-nbits'] as const) {
          const s = await runtime.createSession(nbitsLayerGraph(m, k, n, mode), { label: 'bench-nbits' });
          const x = { type: 'float32' as const, data: new Float32Array(m * k).fill(0.5), dims: [m, k] };
          const t = await time(() => s.run({ x }), { warmup: 2, iterations: 20, budgetMs: 2000 });
          await s.dispose();
          const c = `MatMulNBits forward + dx ${m}×${k}×${n}, ${mode}, ${backend} (Node)`;
          log(`train-step ${c}: ${t.medianMs.toFixed(2)} ms`);
          rows.push({ case: c, metric: 'median', value: t.medianMs, unit: 'ms' });
        }
      }
      await runtime.dispose();
    }
    for (const size of SIZES) {
      const cfg = validateConfig(size.cfg);
      const weights = initWeights(cfg, 1);
      const rng = new Rng(2);
      const rowsIds = Array.from({ length: size.batch }, () => Array.from({ length: size.seq + 1 }, () => rng.int(cfg.vocabSize)));
      const tokens = prefillFeeds(
        cfg,
        leftPad(
          rowsIds.map((r) => r.slice(0, size.seq)),
          0,
        ),
      );
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
        {
          label: 'LoRA r8 over 4-bit (fp32-transpose)',
          trainable: { kind: 'lora', lora: LORA, base: 'quant4' },
          init: initLora(cfg, LORA, 3),
          nbits: 'fp32-transpose',
        },
        {
          label: 'LoRA r8 over 4-bit (block-nbits)',
          trainable: { kind: 'lora', lora: LORA, base: 'quant4' },
          init: initLora(cfg, LORA, 3),
          nbits: 'block-nbits',
        },
      ];
      for (const backend of ['wasm', 'node'] as const) {
        const runtime = await OrtRuntime.create(backend);
        if (runtime.info.kind !== backend) {
          log(`train-step: ${backend} unavailable (${runtime.info.reason})`);
          continue;
        }
        for (const [label, placement] of [
          ['fp32', 'const'],
          ['4-bit', blocksQuant4],
        ] as const) {
          const s = await runtime.createSession(buildGraph(cfg, { kind: 'score', params: paramSource(weights, placement) }).bytes, { label: 'bench-forward' });
          const t = await time(() => s.run(tokens), { warmup: 2, iterations: 30, budgetMs: 3000 });
          await s.dispose();
          const c = `${size.label} forward-only ${label}, ${backend} (Node)`;
          log(`train-step ${c}: ${t.medianMs.toFixed(2)} ms, ${((ntok * 1000) / t.medianMs).toFixed(0)} tokens/s`);
          rows.push(
            { case: c, metric: 'forward', value: (ntok * 1000) / t.medianMs, unit: 'tokens/s', note },
            { case: c, metric: 'forward', value: t.medianMs, unit: 'ms' },
          );
        }
        for (const k of cases) {
          const graph = buildLlamaTrainStep({
            cfg,
            weights,
            trainable: k.trainable,
            loss: { kind: 'sft' },
            batch: size.batch,
            seqLen: size.seq,
            nbitsBackward: k.nbits,
          });
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
