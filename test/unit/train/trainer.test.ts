// The AdamW update against a plain TypeScript AdamW, SFT driving the tiny decoder's loss near zero
// on one batch, wasm vs onnxruntime-node agreement, and the Trainer's named errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrtRuntime, type TensorData } from '../../../src/rl/runtime/ort.ts';
import { buildTrainStep, type TrainStepGraph } from '../../../src/rl/model/train/trainStep.ts';
import { Trainer, TrainerError } from '../../../src/rl/runtime/train/trainer.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { TINY, tinyBatch, tinyForward, tinyInit, tinyParams, type TinyConfig } from './tinyModel.ts';
import { batchFeeds, stateFeeds, type Hyper } from './harness.ts';

function sftGraph(c: TinyConfig, extra: { outputGradients?: boolean } = {}): TrainStepGraph {
  return buildTrainStep({ forward: tinyForward(c, tinyInit(c)), loss: { kind: 'sft' }, params: tinyParams(c), batch: c.batch, seqLen: c.seqLen, ...extra });
}

function sftBatch(c: TinyConfig): Record<string, TensorData> {
  const { tokens, targets, mask } = tinyBatch(c);
  const dims = [c.batch, c.seqLen];
  return {
    tokens: { type: 'int32', data: tokens, dims },
    targets: { type: 'int32', data: targets, dims },
    loss_mask: { type: 'float32', data: mask, dims },
  };
}

describe('train step and Trainer', () => {
  let wasm: OrtRuntime;
  beforeAll(async () => {
    wasm = await OrtRuntime.create('wasm');
  });
  afterAll(async () => wasm.dispose());

  it('applies clipped AdamW exactly as a plain TypeScript AdamW does', async () => {
    const c: TinyConfig = { ...TINY, nbits: true, d: 32, ff: 16 };
    const graph = sftGraph(c, { outputGradients: true });
    const init = tinyInit(c);
    const rng = new Rng(4);
    const hyper: Hyper = { step: 3, lr: 0.01, beta1: 0.9, beta2: 0.99, eps: 1e-6, weight_decay: 0.1, max_grad_norm: 0.05 };
    const feeds = { ...batchFeeds(graph, c), ...stateFeeds(graph, init, hyper) };
    for (const p of graph.params) {
      for (const k of ['m', 'v'] as const) {
        const d = feeds[`${p.name}.${k}`].data as Float32Array;
        for (let i = 0; i < d.length; i++) d[i] = k === 'm' ? 0.01 * rng.normal() : 1e-4 * rng.next();
      }
    }
    const session = await wasm.createSession(graph.bytes, { label: 'adamw' });
    const out = await session.run(feeds);
    await session.dispose();
    let sq = 0;
    for (const p of graph.params) for (const g of out[`${p.name}.grad`].data as Float32Array) sq += g * g;
    const norm = Math.sqrt(sq);
    expect(Number(out.grad_norm.data[0])).toBeCloseTo(norm, 5);
    expect(norm).toBeGreaterThan(hyper.max_grad_norm); // clipping is active
    const scale = Math.min(1, hyper.max_grad_norm / (norm + 1e-6));
    let maxRel = 0;
    for (const p of graph.params) {
      const decay = p.dims.length >= 2;
      const [w, m, v, g] = [p.name, `${p.name}.m`, `${p.name}.v`, `${p.name}.grad`].map((k) => (feeds[k] ?? out[k]).data as Float32Array);
      const [wNew, mNew, vNew] = [`${p.name}.new`, `${p.name}.m.new`, `${p.name}.v.new`].map((k) => out[k].data as Float32Array);
      for (let i = 0; i < w.length; i++) {
        const gi = g[i] * scale;
        const m1 = hyper.beta1 * m[i] + (1 - hyper.beta1) * gi;
        const v1 = hyper.beta2 * v[i] + (1 - hyper.beta2) * gi * gi;
        const upd = m1 / (1 - hyper.beta1 ** hyper.step) / (Math.sqrt(v1 / (1 - hyper.beta2 ** hyper.step)) + hyper.eps);
        const w1 = w[i] - hyper.lr * (upd + (decay ? hyper.weight_decay * w[i] : 0));
        // Errors are measured against the size of the terms summed (float32 rounds each term, and
        // m, v and the new weight can cancel to near zero).
        const mScale = hyper.beta1 * Math.abs(m[i]) + (1 - hyper.beta1) * Math.abs(gi);
        const vScale = hyper.beta2 * v[i] + (1 - hyper.beta2) * gi * gi;
        const wScale =
          Math.abs(w[i]) +
          hyper.lr *
            (mScale / (1 - hyper.beta1 ** hyper.step) / (Math.sqrt(v1 / (1 - hyper.beta2 ** hyper.step)) + hyper.eps) + hyper.weight_decay * Math.abs(w[i]));
        const errors = [Math.abs(mNew[i] - m1) / mScale, Math.abs(vNew[i] - v1) / vScale, Math.abs(wNew[i] - w1) / wScale];
        maxRel = Math.max(maxRel, ...errors);
      }
    }
    expect(maxRel).toBeLessThan(1e-5);
  });

  it('SFT on one batch drives the loss near zero within 200 steps', async () => {
    const c: TinyConfig = { ...TINY, d: 16, ff: 32, seqLen: 8 };
    const trainer = await Trainer.create(wasm, sftGraph(c), tinyInit(c), { lr: 0.02, maxGradNorm: 1 });
    const batch = sftBatch(c);
    const first = await trainer.step(batch);
    let last = first;
    for (let i = 1; i < 200; i++) last = await trainer.step(batch);
    await trainer.dispose();
    expect(first.loss).toBeGreaterThan(1.5); // ≈ ln 11 at initialisation
    expect(last.step).toBe(200);
    expect(last.loss).toBeLessThan(0.01); // seen: 3e-4
    expect(last.stats.token_accuracy).toBe(1);
    expect(Object.keys(last.stats)).toEqual(['grad_norm', 'nll', 'entropy', 'token_accuracy']);
    expect(wasm.liveSessions).toBe(0);
  });

  it('wasm and onnxruntime-node give the same loss and updated weights (1e-4 relative)', async () => {
    const node = await OrtRuntime.create('node');
    expect(node.info.kind).toBe('node');
    const c: TinyConfig = { ...TINY, nbits: true, d: 32, ff: 16 };
    const graph = buildTrainStep({
      forward: tinyForward(c, tinyInit(c)),
      loss: { kind: 'policy-gradient', clipLow: 0.2, clipHigh: 0.28, klCoef: 0.05 },
      params: tinyParams(c),
      batch: c.batch,
      seqLen: c.seqLen,
    });
    const batch = batchFeeds(graph, c);
    const runs = await Promise.all(
      [wasm, node].map(async (rt) => {
        const t = await Trainer.create(rt, graph, tinyInit(c), { lr: 0.01 });
        const losses = [];
        for (let i = 0; i < 3; i++) losses.push((await t.step(batch)).loss);
        const weights = graph.params.map((p) => t.param(p.name).slice());
        await t.dispose();
        return { losses, weights };
      }),
    );
    await node.dispose();
    const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(1e-3, Math.abs(a), Math.abs(b));
    runs[0].losses.forEach((l, i) => expect(rel(l, runs[1].losses[i])).toBeLessThan(1e-4));
    let worst = 0;
    runs[0].weights.forEach((w, k) => w.forEach((x, i) => (worst = Math.max(worst, rel(x, runs[1].weights[k][i])))));
    expect(worst).toBeLessThan(1e-4);
  });

  it('without a memory pattern (what a bucketed learner opens) steps exactly as with one', async () => {
    const c: TinyConfig = { ...TINY, nbits: true, d: 32, ff: 16 };
    const graph = sftGraph(c);
    const batch = sftBatch(c);
    const node = await OrtRuntime.create('node');
    const opened: (boolean | undefined)[] = [];
    const create = node.createSession.bind(node);
    node.createSession = (model, options) => (opened.push(options.memPattern), create(model, options));
    const runs = [];
    for (const memPattern of [true, false]) {
      const t = await Trainer.create(node, graph, tinyInit(c), { lr: 0.01 }, { memPattern });
      const losses = [];
      for (let i = 0; i < 3; i++) losses.push((await t.step(batch)).loss);
      runs.push({ losses, weights: graph.params.map((p) => Array.from(t.param(p.name))) });
      await t.dispose();
    }
    await node.dispose();
    expect(opened).toEqual([true, false]);
    expect(runs[1]).toEqual(runs[0]);
  });

  it('names a missing or mis-shaped batch input and a missing parameter', async () => {
    const c = TINY;
    const graph = sftGraph(c);
    await expect(Trainer.create(wasm, graph, {})).rejects.toMatchObject({
      name: 'TrainerError',
      code: 'bad-param',
      message: expect.stringMatching(/no initial value for parameter "embed"/),
    });
    const trainer = await Trainer.create(wasm, graph, tinyInit(c));
    const batch = sftBatch(c);
    await expect(trainer.step({ ...batch, targets: undefined as unknown as TensorData })).rejects.toThrow(/batch input "targets" is missing/);
    await expect(trainer.step({ ...batch, loss_mask: { ...batch.loss_mask, dims: [c.seqLen, c.batch] } })).rejects.toThrow(TrainerError);
    expect(trainer.steps).toBe(0);
    await trainer.dispose();
    await expect(trainer.step(batch)).rejects.toMatchObject({ code: 'disposed' });
  });
});
