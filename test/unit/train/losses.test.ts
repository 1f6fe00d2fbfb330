// Loss values against numbers computed by hand. The "model" is a free parameter tensor of logits
// [B, T, V] (and of values [B, T]), so every log-probability is chosen: zeros over V = 2 give
// log π = −ln 2; logits (ln 3, 0) with target 1 give log π = ln ¼.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrtRuntime, type TensorData } from '../../../src/rl/runtime/ort.ts';
import { buildTrainStep } from '../../../src/rl/model/train/trainStep.ts';
import { LossSpecError, type LossSpec } from '../../../src/rl/model/train/losses.ts';
import { NO_UPDATE, stateFeeds } from './harness.ts';

const LN2 = Math.log(2);

interface Free {
  b: number;
  t: number;
  v: number;
  logits?: number[];
  values?: number[];
}

async function lossOutputs(runtime: OrtRuntime, spec: LossSpec, m: Free, batch: Record<string, number[]>): Promise<Record<string, number>> {
  const params = [
    { name: 'free_logits', dims: [m.b, m.t, m.v] },
    { name: 'free_values', dims: [m.b, m.t] },
  ];
  const graph = buildTrainStep({
    forward: () => ({ logits: 'free_logits', values: 'free_values' }),
    loss: spec,
    params,
    batch: m.b,
    seqLen: m.t,
    dtype: 'float64',
  });
  const init = {
    free_logits: Float64Array.from(m.logits ?? new Array<number>(m.b * m.t * m.v).fill(0)),
    free_values: Float64Array.from(m.values ?? new Array<number>(m.b * m.t).fill(0)),
  };
  const feeds: Record<string, TensorData> = stateFeeds(graph, init, NO_UPDATE);
  for (const v of graph.batchInputs) {
    const data = batch[v.name];
    if (!data) throw new Error(`test gives no ${v.name}`);
    feeds[v.name] = {
      type: v.dtype as TensorData['type'],
      data: v.dtype === 'int32' ? Int32Array.from(data) : Float64Array.from(data),
      dims: v.dims as number[],
    };
  }
  const session = await runtime.createSession(graph.bytes, { label: 'loss_values', optimization: 'basic' });
  const out = await session.run(feeds);
  await session.dispose();
  return Object.fromEntries(['loss', ...graph.stats].map((k) => [k, Number(out[k].data[0])]));
}

describe('loss values vs hand computation', () => {
  let runtime: OrtRuntime;
  beforeAll(async () => {
    runtime = await OrtRuntime.create('wasm');
  });
  afterAll(async () => runtime.dispose());

  it('SFT: uniform logits over 4 tokens cost ln 4 per masked token; weights scale it', async () => {
    const m = { b: 1, t: 3, v: 4 };
    const batch = { targets: [0, 1, 2], loss_mask: [1, 1, 0], weights: [3, 1, 5] };
    const plain = await lossOutputs(runtime, { kind: 'sft' }, m, batch);
    expect(plain.loss).toBeCloseTo(Math.log(4), 12);
    expect(plain.entropy).toBeCloseTo(Math.log(4), 12);
    expect(plain.token_accuracy).toBe(0.5); // argmax of equal logits is 0: only target 0 hits
    const weighted = await lossOutputs(runtime, { kind: 'sft', weighted: true }, m, batch);
    expect(weighted.loss).toBeCloseTo(((3 + 1) * Math.log(4)) / 2, 12);
  });

  it('clipped policy gradient: ratio 1.5 is clipped at 1 + ε_high for A > 0 only', async () => {
    const m = { b: 1, t: 2, v: 2 };
    const batch = { targets: [0, 1], loss_mask: [1, 1], advantages: [1, -1], old_logp: [-LN2 - Math.log(1.5), -LN2 - Math.log(1.5)], ref_logp: [-LN2, -LN2] };
    const spec: LossSpec = { kind: 'policy-gradient', clipLow: 0.2, clipHigh: 0.28 };
    const r = await lossOutputs(runtime, spec, m, batch);
    // A = +1: min(1.5, 1.28) = 1.28; A = −1: min(−1.5, −1.28) = −1.5; loss = mean(−1.28, 1.5)
    expect(r.loss).toBeCloseTo(0.11, 12);
    expect(r.clip_frac).toBe(1);
    expect(r.approx_kl).toBeCloseTo(1 / 1.5 + Math.log(1.5) - 1, 12);
    expect(r.entropy).toBeCloseTo(LN2, 12);
    const withTerms = await lossOutputs(runtime, { ...spec, klCoef: 0.5, entropyCoef: 0.1 }, m, batch);
    expect(withTerms.kl_ref).toBeCloseTo(0, 12);
    expect(withTerms.loss).toBeCloseTo(0.11 - 0.1 * LN2, 12);
  });

  it('clipped policy gradient: ratio 0.5 is clipped at 1 − ε_low for A < 0 only; inside the range nothing clips', async () => {
    const m = { b: 1, t: 2, v: 2 };
    const low = await lossOutputs(runtime, { kind: 'policy-gradient', clipLow: 0.2, clipHigh: 0.28 }, m, {
      targets: [0, 1],
      loss_mask: [1, 1],
      advantages: [-1, 1],
      old_logp: [0, 0],
    });
    // A = −1: min(−0.5, −0.8) = −0.8 → 0.8; A = +1: min(0.5, 0.8) = 0.5 → −0.5
    expect(low.loss).toBeCloseTo(0.15, 12);
    const inside = await lossOutputs(runtime, { kind: 'policy-gradient', clipLow: 0.2, clipHigh: 0.28 }, m, {
      targets: [0, 1],
      loss_mask: [1, 1],
      advantages: [1, -1],
      old_logp: [-LN2 - Math.log(1.1), -LN2 - Math.log(1.1)],
    });
    expect(inside.loss).toBeCloseTo(0, 12);
    expect(inside.clip_frac).toBe(0);
  });

  const pairModel: Free = { b: 2, t: 2, v: 2, logits: [0, 0, 0, 0, Math.log(3), 0, Math.log(3), 0] };
  const pairBatch = { targets: [0, 1, 1, 1], loss_mask: [1, 1, 1, 1], ref_logp: [-LN2, -LN2, -LN2, -LN2], chosen: [0], rejected: [1] };

  it('DPO: margin β·(0 − ln ¼·2 + ln ½·2) = ln 2 gives −log σ(ln 2) = ln 1.5, plus the chosen NLL', async () => {
    const r = await lossOutputs(runtime, { kind: 'dpo', beta: 0.5, pairs: 1 }, pairModel, pairBatch);
    expect(r.loss).toBeCloseTo(Math.log(1.5), 12);
    expect(r.reward_margin).toBeCloseTo(LN2, 12);
    expect(r.chosen_reward).toBeCloseTo(0, 12);
    expect(r.rejected_reward).toBeCloseTo(-LN2, 12);
    expect(r.reward_accuracy).toBe(1);
    const withNll = await lossOutputs(runtime, { kind: 'dpo', beta: 0.5, nllCoef: 0.1, pairs: 1 }, pairModel, pairBatch);
    expect(withNll.nll).toBeCloseTo(LN2, 12);
    expect(withNll.loss).toBeCloseTo(Math.log(1.5) + 0.1 * LN2, 12);
  });

  it('Bradley–Terry on per-turn log-ratio advantages: ΣA_c − ΣA_r = ln 4 gives ln 1.25', async () => {
    // Rejected row: two one-token turns, each A = ln ¼ − ln ½ = −ln 2; chosen row: A = 0.
    const r = await lossOutputs(runtime, { kind: 'bradley-terry', source: 'log-ratio', beta: 1, pairs: 1 }, pairModel, {
      ...pairBatch,
      turn_weights: [0.5, 0.5, 1, 1],
    });
    expect(r.loss).toBeCloseTo(Math.log(1.25), 12);
    expect(r.bt_margin).toBeCloseTo(Math.log(4), 12);
    expect(r.bt_accuracy).toBe(1);
    // the ridge: a² weighted by turn_weights over Σ turn_weights = (0 + 0 + ln²2 + ln²2) / 3
    const ridged = await lossOutputs(runtime, { kind: 'bradley-terry', source: 'log-ratio', beta: 1, pairs: 1, ridge: 0.5 }, pairModel, {
      ...pairBatch,
      turn_weights: [0.5, 0.5, 1, 1],
    });
    expect(ridged.bt_ridge).toBeCloseTo((2 * LN2 * LN2) / 3, 12);
    expect(ridged.bt_loss).toBeCloseTo(Math.log(1.25), 12);
    expect(ridged.loss).toBeCloseTo(Math.log(1.25) + (0.5 * 2 * LN2 * LN2) / 3, 12);
  });

  it('Bradley–Terry on a value head: ΣA_c = 1, ΣA_r = −0.5 gives log(1 + e^−1.5)', async () => {
    const r = await lossOutputs(
      runtime,
      { kind: 'bradley-terry', source: 'value', beta: 1, pairs: 1 },
      { b: 2, t: 2, v: 2, values: [1, 2, 0.5, -1] },
      {
        turn_weights: [1, 0, 1, 1],
        chosen: [0],
        rejected: [1],
      },
    );
    expect(r.loss).toBeCloseTo(Math.log(1 + Math.exp(-1.5)), 12);
  });

  it('value MSE, plain and clipped around the old values', async () => {
    const m = { b: 1, t: 3, v: 2, values: [1, 2, 3] };
    const plain = await lossOutputs(runtime, { kind: 'value-mse' }, m, { loss_mask: [1, 1, 1], returns: [0, 2, 5] });
    expect(plain.loss).toBeCloseTo((0.5 * (1 + 0 + 4)) / 3, 12);
    const clipped = await lossOutputs(runtime, { kind: 'value-mse', clip: 0.5 }, m, {
      loss_mask: [1, 1, 1],
      returns: [0, 2, 5],
      old_values: [0.8, 1, 3],
    });
    // v_clip = [1, 1.5, 3]; max((v−R)², (v_clip−R)²) = [1, 0.25, 4]
    expect(clipped.loss).toBeCloseTo((0.5 * 5.25) / 3, 12);
  });

  it('names bad specs', () => {
    const build =
      (loss: LossSpec, logits = true) =>
      () =>
        buildTrainStep({ forward: () => (logits ? { logits: 'p' } : {}), loss, params: [{ name: 'p', dims: [1, 2, 3] }], batch: 1, seqLen: 2 });
    expect(build({ kind: 'dpo', beta: 0, pairs: 1 })).toThrow(LossSpecError);
    expect(build({ kind: 'dpo', beta: 0, pairs: 1 })).toThrow(/beta must be > 0/);
    expect(build({ kind: 'bradley-terry', source: 'log-ratio', beta: 1, pairs: 1, ridge: -1 })).toThrow(/ridge must be ≥ 0/);
    expect(build({ kind: 'sft' }, false)).toThrow(/needs logits/);
    expect(build({ kind: 'value-mse' })).toThrow(/value-mse needs values/);
  });
});
