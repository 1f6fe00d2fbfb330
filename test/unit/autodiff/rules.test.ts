// Every backward rule against central finite differences, in float64 on ORT wasm (MatMulNBits has
// float32 kernels only, so it is checked in float32 with a looser bound and against W·dy directly).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { GraphBuilder } from '../../../src/rl/model/onnx/builder.ts';
import { emitGradients } from '../../../src/rl/model/autodiff/gradients.ts';
import { DIFFERENTIABLE_OPS } from '../../../src/rl/model/autodiff/ops.ts';
import { quantize4, dequantize4 } from '../../../src/rl/model/quant.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { fdCheck, type CheckInput } from './fdCheck.ts';

type Build = (g: GraphBuilder, n: string[]) => string;
interface Case {
  op: string;
  inputs: CheckInput[];
  build: Build;
}

const x = (name: string, ...dims: number[]): CheckInput => ({ name, dims });
const positive = (name: string, ...dims: number[]): CheckInput => ({
  name,
  dims,
  data: Array.from({ length: dims.reduce((a, b) => a * b, 1) }, (_, i) => 0.5 + ((i * 7) % 11) / 5),
});
const i64 = (g: GraphBuilder, v: number[]) => g.constant('int64', v);
const f64 = (g: GraphBuilder, v: number[], dims?: number[]) => g.constant('float64', v, dims ?? []);
const unary =
  (op: string, attrs = {}): Build =>
  (g, [a]) =>
    g.op(op, [a], attrs);
const binary =
  (op: string): Build =>
  (g, [a, b]) =>
    g.op(op, [a, b]);

const CASES: Case[] = [
  { op: 'MatMul', inputs: [x('a', 3, 4), x('b', 4, 2)], build: binary('MatMul') },
  { op: 'MatMul', inputs: [x('a', 2, 3, 4), x('b', 4, 5)], build: binary('MatMul') },
  { op: 'MatMul', inputs: [x('a', 2, 1, 3, 4), x('b', 3, 4, 2)], build: binary('MatMul') },
  {
    op: 'Gemm',
    inputs: [x('a', 3, 4), x('b', 5, 4), x('c', 5)],
    build: (g, [a, b, c]) => g.op('Gemm', [a, b, c], { transB: 1, alpha: { float: 0.7 }, beta: { float: 1.3 } }),
  },
  { op: 'Gemm', inputs: [x('a', 4, 3), x('b', 4, 2)], build: (g, [a, b]) => g.op('Gemm', [a, b], { transA: 1 }) },
  { op: 'Add', inputs: [x('a', 2, 3, 4), x('b', 4)], build: binary('Add') },
  { op: 'Sub', inputs: [x('a', 3, 1), x('b', 1, 4)], build: binary('Sub') },
  { op: 'Mul', inputs: [x('a', 2, 3), x('b', 2, 1)], build: binary('Mul') },
  { op: 'Div', inputs: [x('a', 2, 3), positive('b', 3)], build: binary('Div') },
  { op: 'Neg', inputs: [x('a', 2, 3)], build: unary('Neg') },
  { op: 'Sqrt', inputs: [positive('a', 2, 3)], build: unary('Sqrt') },
  { op: 'Pow', inputs: [x('a', 2, 3)], build: (g, [a]) => g.op('Pow', [a, f64(g, [2])]) },
  { op: 'Pow', inputs: [positive('a', 2, 3)], build: (g, [a]) => g.op('Pow', [a, f64(g, [-0.5])]) },
  { op: 'Exp', inputs: [x('a', 2, 3)], build: unary('Exp') },
  { op: 'Log', inputs: [positive('a', 2, 3)], build: unary('Log') },
  { op: 'Sigmoid', inputs: [x('a', 2, 3)], build: unary('Sigmoid') },
  // x·sigmoid(x) is the SwiGLU gate; ORT would fuse it at level 'all'.
  { op: 'Sigmoid', inputs: [x('a', 2, 3)], build: (g, [a]) => g.op('Mul', [a, g.op('Sigmoid', [a])]) },
  { op: 'Tanh', inputs: [x('a', 2, 3)], build: unary('Tanh') },
  { op: 'Relu', inputs: [x('a', 3, 4)], build: unary('Relu') },
  { op: 'Softmax', inputs: [x('a', 2, 5)], build: unary('Softmax', { axis: -1 }) },
  { op: 'Softmax', inputs: [x('a', 2, 3, 4)], build: unary('Softmax', { axis: 1 }) },
  { op: 'LogSoftmax', inputs: [x('a', 3, 5)], build: unary('LogSoftmax', { axis: -1 }) },
  { op: 'ReduceSum', inputs: [x('a', 2, 3, 4)], build: (g, [a]) => g.op('ReduceSum', [a, i64(g, [1])], { keepdims: 0 }) },
  { op: 'ReduceSum', inputs: [x('a', 2, 3)], build: (g, [a]) => g.op('ReduceSum', [a], { keepdims: 1 }) },
  { op: 'ReduceMean', inputs: [x('a', 2, 3, 4)], build: (g, [a]) => g.op('ReduceMean', [a], { axes: [-1], keepdims: 1 }) },
  { op: 'ReduceMean', inputs: [x('a', 2, 3, 4)], build: (g, [a]) => g.op('ReduceMean', [a], { axes: [0, 2], keepdims: 0 }) },
  { op: 'ReduceMax', inputs: [x('a', 2, 3, 4)], build: (g, [a]) => g.op('ReduceMax', [a], { axes: [1], keepdims: 0 }) },
  { op: 'Reshape', inputs: [x('a', 2, 6)], build: (g, [a]) => g.op('Reshape', [a, i64(g, [3, -1])]) },
  { op: 'Reshape', inputs: [x('a', 2, 3, 4)], build: (g, [a]) => g.op('Reshape', [a, i64(g, [0, 0, 2, 2])]) },
  { op: 'Transpose', inputs: [x('a', 2, 3, 4)], build: unary('Transpose', { perm: [2, 0, 1] }) },
  { op: 'Unsqueeze', inputs: [x('a', 2, 3)], build: (g, [a]) => g.op('Unsqueeze', [a, i64(g, [1, -1])]) },
  { op: 'Squeeze', inputs: [x('a', 3, 1, 2)], build: (g, [a]) => g.op('Squeeze', [a, i64(g, [1])]) },
  { op: 'Concat', inputs: [x('a', 2, 1), x('b', 2, 3), x('c', 2, 2)], build: (g, n) => g.op('Concat', n, { axis: 1 }) },
  {
    op: 'Slice',
    inputs: [x('a', 4, 5)],
    build: (g, [a]) => g.op('Slice', [a, i64(g, [1, 0]), i64(g, [3, -1]), i64(g, [0, 1])]),
  },
  {
    op: 'Gather',
    inputs: [x('table', 5, 3)],
    build: (g, [t]) => g.op('Gather', [t, g.constant('int32', [4, 0, 4, 2, 1, 4], [2, 3])], { axis: 0 }),
  },
  { op: 'Expand', inputs: [x('a', 3, 1)], build: (g, [a]) => g.op('Expand', [a, i64(g, [2, 3, 4])]) },
  {
    op: 'Where',
    inputs: [x('a', 2, 3), x('b', 3)],
    build: (g, [a, b]) => g.op('Where', [g.constant('bool', [1, 0, 1, 0, 0, 1], [2, 3]), a, b]),
  },
  { op: 'Cast', inputs: [x('a', 2, 3)], build: (g, [a]) => g.op('Cast', [g.op('Mul', [a, a])], { to: 11 }) },
  { op: 'Identity', inputs: [x('a', 2, 3)], build: unary('Identity') },
  { op: 'Clip', inputs: [x('a', 3, 4)], build: (g, [a]) => g.op('Clip', [a, f64(g, [-0.5]), f64(g, [0.7])]) },
  { op: 'Min', inputs: [x('a', 2, 3), x('b', 3)], build: binary('Min') },
  { op: 'Max', inputs: [x('a', 2, 3), x('b', 2, 1)], build: binary('Max') },
];

describe('backward rules vs central finite differences (float64, wasm)', () => {
  let runtime: OrtRuntime;
  beforeAll(async () => {
    runtime = await OrtRuntime.create('wasm');
  });
  afterAll(async () => runtime.dispose());

  it('has a case for every differentiable op except MatMulNBits (checked below)', () => {
    const covered = new Set(CASES.map((c) => c.op));
    expect(DIFFERENTIABLE_OPS.filter((op) => !covered.has(op))).toEqual(['MatMulNBits']);
  });

  for (const [i, c] of CASES.entries()) {
    it(`${c.op} #${i}: ${c.inputs.map((inp) => `[${inp.dims}]`).join(' ')}`, async () => {
      const r = await fdCheck(runtime, c.inputs, c.build, { seed: i + 1 });
      expect(r.checked).toBeGreaterThan(0);
      expect(r.maxGrad).toBeGreaterThan(1e-3);
      expect(r.maxError).toBeLessThan(1e-7);
    });
  }

  for (const mode of ['fp32-transpose', 'block-nbits'] as const) {
    it(`MatMulNBits (${mode}) in float32: gradient equals r · Wᵀ and finite differences`, async () => {
      const rng = new Rng(3);
      const [k, n, m] = [64, 32, 2];
      const w = quantize4(
        Float32Array.from({ length: k * n }, () => rng.normal()),
        k,
        n,
      );
      const nbits: Build = (g, [a]) => {
        const b = g.initializer('w_packed', 'uint8', [n, k / 32, 16], w.packed);
        const s = g.initializer('w_scales', 'float32', [w.scales.length], w.scales);
        return g.op('MatMulNBits', [a, b, s], { K: k, N: n, bits: 4, block_size: 32 }, 'com.microsoft');
      };
      // The layer is linear, so a large step has no truncation error; float32 rounding sets the bound.
      const r = await fdCheck(runtime, [x('a', m, k)], nbits, { dtype: 'float32', h: 0.25, nbitsBackward: mode });
      expect(r.maxError).toBeLessThan(2e-3);
      expect(r.maxGrad).toBeGreaterThan(0.1);

      // Exact check: d/da Σ (a·W) ⊙ R = R · Wᵀ with W the dequantised weight.
      const g = new GraphBuilder('nbits_exact');
      const a = g.input('a', 'float32', [m, k]);
      const rv = Float32Array.from({ length: m * n }, () => rng.normal());
      g.node('ReduceSum', [g.op('Mul', [nbits(g, [a]), g.constant('float32', rv, [m, n])])], ['loss'], { keepdims: 0 });
      g.node('Identity', [emitGradients(g, 'loss', [a], { nbitsBackward: mode }).grads.get(a) ?? ''], ['da']);
      g.output('da', 'float32', [m, k]);
      const session = await runtime.createSession(g.toBytes(), { label: 'nbits_exact' });
      const out = await session.run({ a: { type: 'float32', data: new Float32Array(m * k), dims: [m, k] } });
      await session.dispose();
      const full = dequantize4(w);
      let maxDiff = 0;
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < k; j++) {
          let ref = 0;
          for (let c = 0; c < n; c++) ref += rv[i * n + c] * full[j * n + c];
          maxDiff = Math.max(maxDiff, Math.abs((out.da.data[i * k + j] as number) - ref));
        }
      }
      expect(maxDiff).toBeLessThan(1e-4);
    });
  }
});

describe('autodiff errors', () => {
  const scalarLoss = (g: GraphBuilder, y: string) => g.op('ReduceSum', [y], { keepdims: 0 });

  it('names an op with no backward rule on the path', () => {
    const g = new GraphBuilder('bad');
    const a = g.input('a', 'float32', [2, 3]);
    const loss = scalarLoss(g, g.op('Erf', [a]));
    expect(() => emitGradients(g, loss, [a])).toThrow(/no backward rule for op Erf/);
  });

  it('allows unsupported ops off the path', () => {
    const g = new GraphBuilder('ok');
    const a = g.input('a', 'float32', [2, 3]);
    const c = g.op('Erf', [g.constant('float32', [1, 2, 3], [3])]);
    const loss = scalarLoss(g, g.op('Mul', [a, c]));
    expect(emitGradients(g, loss, [a]).grads.size).toBe(1);
  });

  it('requires fixed shapes on the path', () => {
    const g = new GraphBuilder('sym');
    const a = g.input('a', 'float32', ['batch', 3]);
    const loss = scalarLoss(g, g.op('Exp', [a]));
    expect(() => emitGradients(g, loss, [a])).toThrow(/symbolic dims.*fixed shapes/);
  });

  it('requires a scalar loss and float parameters', () => {
    const g = new GraphBuilder('shape');
    const a = g.input('a', 'float32', [2, 3]);
    const t = g.input('t', 'int32', [2]);
    expect(() => emitGradients(g, g.op('Exp', [a]), [a])).toThrow(/must be a scalar/);
    expect(() => emitGradients(g, scalarLoss(g, a), [t])).toThrow(/not a float/);
  });

  it('zero-fills the gradient of a parameter the loss does not use', () => {
    const g = new GraphBuilder('unused');
    const a = g.input('a', 'float32', [2]);
    const b = g.input('b', 'float32', [3]);
    const r = emitGradients(g, scalarLoss(g, a), [a, b]);
    expect(r.unreached).toEqual(['b']);
  });
});
