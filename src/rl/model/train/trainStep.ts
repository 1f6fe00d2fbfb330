// The train-step graph (docs/design.md, "One model definition, two kinds of graph"): one ONNX graph that
// runs forward, loss, reverse-mode gradients (autodiff/gradients.ts), global-norm gradient clipping
// and AdamW (Loshchilov & Hutter 2019, Algorithm 2: decoupled weight decay, bias-corrected moments),
// and outputs the loss, statistics and the updated parameters and moments.
//   inputs : parameters <p>; the forward's own inputs (tokens …); the loss inputs (losses.ts);
//            AdamW state <p>.m, <p>.v; scalars step (1-based index of this update), lr, beta1, beta2,
//            eps, weight_decay, max_grad_norm (Infinity disables clipping)
//   outputs: loss, grad_norm (global L2 before clipping), the loss's statistics, <p>.new, <p>.m.new,
//            <p>.v.new (an output cannot share an input's name, so callers swap new → current)
import { GraphBuilder, type DType, type ValueView } from '../onnx/builder.ts';
import { emitGradients } from '../autodiff/gradients.ts';
import type { NBitsBackwardMode } from '../autodiff/nbits.ts';
import { Emit } from '../autodiff/emit.ts';
import { GraphTypes } from '../autodiff/shapes.ts';
import { emitLoss, LossSpecError, type LossSpec } from './losses.ts';

/** A trainable parameter, declared as a graph input of this name and shape. */
export interface TrainParam {
  name: string;
  dims: number[];
  /** Apply AdamW weight decay; default true for matrices (rank ≥ 2), false for vectors (norm gains, biases). */
  decay?: boolean;
}

/** What the forward pass returns: value names in the builder. */
export interface ForwardFnOutputs {
  /** [B, T, V]: logits[b, t] predict the loss input targets[b, t]. */
  logits?: string;
  /** [B, T]: a value head's output. */
  values?: string;
}

/**
 * Emits the model's forward pass into `g`. The trainable parameters are already graph inputs (by
 * their names); frozen weights are the callback's own initializers; it declares its batch inputs.
 */
export type ForwardFn = (g: GraphBuilder) => ForwardFnOutputs;

/** Everything needed to emit one train-step graph. */
export interface TrainStepSpec {
  /** Graph name; default 'train_step'. */
  name?: string;
  forward: ForwardFn;
  loss: LossSpec;
  params: readonly TrainParam[];
  /** B, T: fixed batch shape of this graph (autodiff needs static shapes). */
  batch: number;
  seqLen: number;
  /** Element type of parameters, state and loss inputs; float64 is for gradient checks. Default float32. */
  dtype?: 'float32' | 'float64';
  /** Backward of frozen MatMulNBits layers; default 'fp32-transpose' (autodiff/nbits.ts). */
  nbitsBackward?: NBitsBackwardMode;
  /** Also output each raw gradient as <p>.grad (before clipping), for checks. */
  outputGradients?: boolean;
}

/** The AdamW scalar inputs, in graph order. */
export const HYPER_INPUTS = ['step', 'lr', 'beta1', 'beta2', 'eps', 'weight_decay', 'max_grad_norm'] as const;
export type HyperInput = (typeof HYPER_INPUTS)[number];

/** A built train step: bytes for `OrtRuntime.createSession` and the names of everything. */
export interface TrainStepGraph {
  bytes: Uint8Array;
  dtype: DType;
  params: readonly TrainParam[];
  /** Inputs that are neither parameters, optimizer state nor hyper-parameters: fed per step. */
  batchInputs: readonly ValueView[];
  /** Names of the statistics outputs (rank 0), 'grad_norm' first. */
  stats: readonly string[];
  /** Parameters the loss does not depend on (their gradient is zero). */
  unreached: readonly string[];
  nodeCount: number;
}

/** Raised when a train step cannot be assembled. */
export class TrainStepError extends Error {
  override name = 'TrainStepError';
}

/** Output names for a parameter. */
export const newName = (p: string) => `${p}.new`;
export const momentName = (p: string, which: 'm' | 'v', next = false) => `${p}.${which}${next ? '.new' : ''}`;

/** Emits forward + loss + gradients + clipping + AdamW as one graph. */
export function buildTrainStep(spec: TrainStepSpec): TrainStepGraph {
  const dtype = spec.dtype ?? 'float32';
  if (spec.params.length === 0) throw new TrainStepError('no trainable parameters');
  const g = new GraphBuilder(spec.name ?? 'train_step');
  for (const p of spec.params) g.input(p.name, dtype, p.dims);
  const fwd = spec.forward(g);
  const types = new GraphTypes(g);
  const vocab = fwd.logits ? types.of(fwd.logits).dims.at(-1) : undefined;
  for (const [name, value] of Object.entries(fwd)) {
    if (typeof value === 'string' && types.of(value).dtype !== dtype) {
      throw new TrainStepError(`forward output ${name} "${value}" is ${types.of(value).dtype}, the train step is ${dtype}`);
    }
  }
  let lossOut;
  try {
    lossOut = emitLoss(spec.loss, { g, dtype, batch: spec.batch, seqLen: spec.seqLen, logits: fwd.logits, values: fwd.values, vocab });
  } catch (err) {
    if (err instanceof LossSpecError) throw err;
    throw new TrainStepError(`emitting the ${spec.loss.kind} loss failed: ${(err as Error).message}`);
  }
  const forwardInputs = [...g.inputList()];
  const names = spec.params.map((p) => p.name);
  const { grads, unreached } = emitGradients(g, lossOut.loss, names, { nbitsBackward: spec.nbitsBackward });

  const e = new Emit(g);
  const hyper = Object.fromEntries(HYPER_INPUTS.map((h) => [h, g.input(h, dtype, [])])) as Record<HyperInput, string>;
  const one = e.scalar(dtype, 1);
  const squares = names.map((p) => {
    const gp = grads.get(p) ?? '';
    return e.op('ReduceSum', [e.op('Mul', [gp, gp])], { keepdims: 0 });
  });
  g.node('Sqrt', [e.sum(squares)], ['grad_norm']);
  // Global-norm clipping (Pascanu et al. 2013): g ← g · min(1, max_norm / (‖g‖ + 1e-6)).
  const scale = e.op('Min', [one, e.op('Div', [hyper.max_grad_norm, e.op('Add', ['grad_norm', e.scalar(dtype, 1e-6)])])]);
  const bias1 = e.op('Sub', [one, e.op('Pow', [hyper.beta1, hyper.step])]);
  const bias2 = e.op('Sub', [one, e.op('Pow', [hyper.beta2, hyper.step])]);
  const oneMinus = (x: string) => e.op('Sub', [one, x]);
  const [c1, c2] = [oneMinus(hyper.beta1), oneMinus(hyper.beta2)];
  for (const p of spec.params) {
    const m = g.input(momentName(p.name, 'm'), dtype, p.dims);
    const v = g.input(momentName(p.name, 'v'), dtype, p.dims);
    const gp = e.op('Mul', [grads.get(p.name) ?? '', scale]);
    if (spec.outputGradients) {
      g.node('Identity', [grads.get(p.name) ?? ''], [`${p.name}.grad`]);
    }
    const m1 = g.node('Add', [e.op('Mul', [m, hyper.beta1]), e.op('Mul', [gp, c1])], [momentName(p.name, 'm', true)])[0];
    const v1 = g.node('Add', [e.op('Mul', [v, hyper.beta2]), e.op('Mul', [e.op('Mul', [gp, gp]), c2])], [momentName(p.name, 'v', true)])[0];
    const mHat = e.op('Div', [m1, bias1]);
    const denom = e.op('Add', [e.op('Sqrt', [e.op('Div', [v1, bias2])]), hyper.eps]);
    let update = e.op('Div', [mHat, denom]);
    if (p.decay ?? p.dims.length >= 2) update = e.op('Add', [update, e.op('Mul', [p.name, hyper.weight_decay])]);
    g.node('Sub', [p.name, e.op('Mul', [update, hyper.lr])], [newName(p.name)]);
  }

  g.node('Identity', [lossOut.loss], ['loss']);
  g.output('loss', dtype, []);
  g.output('grad_norm', dtype, []);
  const stats = ['grad_norm'];
  for (const [name, value] of Object.entries(lossOut.stats)) {
    g.node('Identity', [value], [name]);
    g.output(name, dtype, []);
    stats.push(name);
  }
  for (const p of spec.params) {
    g.output(newName(p.name), dtype, p.dims);
    g.output(momentName(p.name, 'm', true), dtype, p.dims);
    g.output(momentName(p.name, 'v', true), dtype, p.dims);
    if (spec.outputGradients) g.output(`${p.name}.grad`, dtype, p.dims);
  }
  const paramSet = new Set(names);
  return {
    bytes: g.toBytes(),
    dtype,
    params: spec.params,
    batchInputs: forwardInputs.filter((v) => !paramSet.has(v.name)),
    stats,
    unreached,
    nodeCount: g.nodeCount,
  };
}
