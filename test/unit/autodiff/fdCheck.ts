// Finite-difference harness for backward rules: builds a check graph
//   loss = Σ op(inputs) ⊙ R   (R a fixed random tensor, so dy is not uniform)
// appends autodiff's gradients, runs it on ORT (wasm, optimisation 'basic' — at 'all' ORT fuses
// x·sigmoid(x) into a float-only op), and compares every gradient element with the central
// difference (L(x + h) − L(x − h)) / 2h computed by running the same graph.
import { GraphBuilder, type DType } from '../../../src/rl/model/onnx/builder.ts';
import { emitGradients, type GradientOptions } from '../../../src/rl/model/autodiff/gradients.ts';
import { GraphTypes } from '../../../src/rl/model/autodiff/shapes.ts';
import type { OrtRuntime, TensorData } from '../../../src/rl/runtime/ort.ts';
import { Rng } from '../../../src/rl/util/rng.ts';

export interface CheckInput {
  name: string;
  dims: number[];
  /** Values; default standard normal from the seed. */
  data?: number[];
}

export interface CheckResult {
  /** max |analytic − fd| / (1 + |fd|) over all parameter elements. */
  maxError: number;
  /** Number of elements checked. */
  checked: number;
  /** Largest |gradient| seen, so a test can tell a trivially zero gradient. */
  maxGrad: number;
}

export interface CheckOptions extends GradientOptions {
  dtype?: DType;
  h?: number;
  seed?: number;
}

/** Builds op(inputs) with `build`, differentiates, and compares with central differences. */
export async function fdCheck(
  runtime: OrtRuntime,
  inputs: CheckInput[],
  build: (g: GraphBuilder, names: string[]) => string,
  options: CheckOptions = {},
): Promise<CheckResult> {
  const dtype = options.dtype ?? 'float64';
  const h = options.h ?? (dtype === 'float64' ? 1e-6 : 1e-2);
  const rng = new Rng(options.seed ?? 1);
  const g = new GraphBuilder('fd_check');
  const names = inputs.map((i) => g.input(i.name, dtype, i.dims));
  const y = build(g, names);
  const yType = new GraphTypes(g).of(y);
  const count = yType.dims.reduce((a, b) => a * b, 1);
  const r = g.constant(
    dtype,
    Array.from({ length: count }, () => rng.normal()),
    yType.dims,
  );
  const yCast = yType.dtype === dtype ? y : g.op('Cast', [y], { to: dtype === 'float64' ? 11 : 1 });
  g.node('ReduceSum', [g.op('Mul', [yCast, r])], ['loss'], { keepdims: 0 });
  const { grads } = emitGradients(g, 'loss', names, options);
  g.output('loss', dtype, []);
  names.forEach((n, k) => {
    g.node('Identity', [grads.get(n) ?? ''], [`grad_${n}`]);
    g.output(`grad_${n}`, dtype, inputs[k].dims);
  });
  const session = await runtime.createSession(g.toBytes(), { label: 'fd_check', optimization: 'basic' });
  const Arr = dtype === 'float64' ? Float64Array : Float32Array;
  const values = inputs.map((i) => Arr.from(i.data ?? Array.from({ length: i.dims.reduce((a, b) => a * b, 1) }, () => rng.normal())));
  const feeds = (): Record<string, TensorData> => Object.fromEntries(inputs.map((inp, k) => [inp.name, { type: dtype, data: values[k], dims: inp.dims }]));
  try {
    const base = await session.run(feeds());
    let maxError = 0;
    let maxGrad = 0;
    let checked = 0;
    for (let k = 0; k < inputs.length; k++) {
      const analytic = base[`grad_${inputs[k].name}`].data as Float64Array;
      for (let j = 0; j < values[k].length; j++) {
        const x0 = values[k][j];
        values[k][j] = x0 + h;
        const up = Number((await session.run(feeds())).loss.data[0]);
        values[k][j] = x0 - h;
        const down = Number((await session.run(feeds())).loss.data[0]);
        values[k][j] = x0;
        const fd = (up - down) / (2 * h);
        maxError = Math.max(maxError, Math.abs(analytic[j] - fd) / (1 + Math.abs(fd)));
        maxGrad = Math.max(maxGrad, Math.abs(analytic[j]));
        checked++;
      }
    }
    return { maxError, checked, maxGrad };
  } finally {
    await session.dispose();
  }
}
