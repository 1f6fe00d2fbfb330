// Feeds for train-step graphs in tests: seeded batch inputs by name (losses.ts LOSS_INPUTS), the
// parameters, zero moments and the AdamW scalars; and a finite-difference check of the graph's
// raw gradient outputs (<p>.grad) against its loss output.
import type { ManagedSession, TensorData } from '../../../src/rl/runtime/ort.ts';
import type { TrainStepGraph } from '../../../src/rl/model/train/trainStep.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { tinyBatch, type TinyConfig } from './tinyModel.ts';

export interface Hyper {
  step: number;
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weight_decay: number;
  max_grad_norm: number;
}

export const NO_UPDATE: Hyper = { step: 1, lr: 0, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0, max_grad_norm: Infinity };

/** Seeded values for every batch input of the graph. */
export function batchFeeds(graph: TrainStepGraph, c: TinyConfig, seed = 3): Record<string, TensorData> {
  const rng = new Rng(seed);
  const { tokens, targets, mask } = tinyBatch(c, seed);
  const type = graph.dtype as 'float32' | 'float64';
  const arr = (values: ArrayLike<number>) => (type === 'float64' ? Float64Array.from(values) : Float32Array.from(values));
  const feeds: Record<string, TensorData> = {};
  for (const v of graph.batchInputs) {
    const dims = v.dims as number[];
    const n = dims.reduce((a, b) => a * b, 1);
    const p = dims[0] ?? 0;
    const gen: Record<string, () => TensorData['data']> = {
      tokens: () => tokens,
      targets: () => targets,
      loss_mask: () => arr(mask),
      weights: () => arr(Array.from({ length: n }, () => 0.5 + rng.next())),
      advantages: () => arr(Array.from({ length: n }, () => rng.normal())),
      old_logp: () => arr(Array.from({ length: n }, () => -Math.log(c.vocab) + 0.4 * rng.normal())),
      ref_logp: () => arr(Array.from({ length: n }, () => -Math.log(c.vocab) + 0.4 * rng.normal())),
      turn_weights: () => arr(Array.from({ length: n }, (_, i) => (i % c.seqLen < 2 ? 0 : 1 / (1 + (i % 2))))),
      returns: () => arr(Array.from({ length: n }, () => rng.normal())),
      old_values: () => arr(Array.from({ length: n }, () => rng.normal())),
      chosen: () => Int32Array.from({ length: p }, (_, i) => i),
      rejected: () => Int32Array.from({ length: p }, (_, i) => c.batch - 1 - i),
    };
    const make = gen[v.name];
    if (!make) throw new Error(`no test data for batch input ${v.name}`);
    feeds[v.name] = { type: v.dtype as TensorData['type'], data: make(), dims };
  }
  return feeds;
}

/** Parameters, zero moments and scalars. */
export function stateFeeds(graph: TrainStepGraph, values: Record<string, Float32Array | Float64Array>, hyper: Hyper = NO_UPDATE): Record<string, TensorData> {
  const type = graph.dtype as 'float32' | 'float64';
  const Arr = type === 'float64' ? Float64Array : Float32Array;
  const feeds: Record<string, TensorData> = {};
  for (const p of graph.params) {
    const n = p.dims.reduce((a, b) => a * b, 1);
    feeds[p.name] = { type, data: Arr.from(values[p.name]), dims: p.dims };
    feeds[`${p.name}.m`] = { type, data: new Arr(n), dims: p.dims };
    feeds[`${p.name}.v`] = { type, data: new Arr(n), dims: p.dims };
  }
  for (const [k, v] of Object.entries(hyper)) feeds[k] = { type, data: Arr.of(v), dims: [] };
  return feeds;
}

/**
 * Compares `samples` randomly chosen gradient elements (over all parameters) with central
 * differences of the loss output. Returns max |analytic − fd| / (1 + |fd|) and the largest |grad|.
 */
export async function fdTrainStep(
  session: ManagedSession,
  graph: TrainStepGraph,
  feeds: Record<string, TensorData>,
  samples: number,
  h: number,
  seed = 9,
): Promise<{ maxError: number; maxGrad: number; checked: number }> {
  const rng = new Rng(seed);
  const base = await session.run(feeds);
  let maxError = 0;
  let maxGrad = 0;
  let checked = 0;
  for (let s = 0; s < samples; s++) {
    const p = graph.params[rng.int(graph.params.length)];
    const data = feeds[p.name].data as Float64Array;
    const j = rng.int(data.length);
    const x0 = data[j];
    data[j] = x0 + h;
    const up = Number((await session.run(feeds)).loss.data[0]);
    data[j] = x0 - h;
    const down = Number((await session.run(feeds)).loss.data[0]);
    data[j] = x0;
    const fd = (up - down) / (2 * h);
    const analytic = Number(base[`${p.name}.grad`].data[j]);
    maxError = Math.max(maxError, Math.abs(analytic - fd) / (1 + Math.abs(fd)));
    maxGrad = Math.max(maxGrad, Math.abs(analytic));
    checked++;
  }
  return { maxError, maxGrad, checked };
}
