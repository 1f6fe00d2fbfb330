// Backward rules (vector–Jacobian products) for the op set of ops.ts. Each rule receives the
// gradient dy of the node's single output and returns, per input, the gradient already summed back
// to that input's shape (undefined where no gradient is wanted or none exists). The formulas are
// the standard ones, e.g. softmax: dx = y ⊙ (dy − Σ dy ⊙ y); log-softmax: dx = dy − eʸ Σ dy.
import type { NodeView } from '../onnx/builder.ts';
import type { Emit } from './emit.ts';
import { AutodiffError, axis, castCode, reducedShape, type GraphTypes, type ValueType } from './shapes.ts';
import { matMulNBitsBackward, type NBitsBackward } from './nbits.ts';

/** What a rule sees. */
export interface RuleContext {
  e: Emit;
  types: GraphTypes;
  node: NodeView;
  /** Gradient of output 0. */
  dy: string;
  /** Type of output 0 (and of dy). */
  y: ValueType;
  /** True when input i is on a path from a trainable parameter. */
  wants(i: number): boolean;
  nbits: NBitsBackward;
}

export type Rule = (c: RuleContext) => (string | undefined)[];

const inT = (c: RuleContext, i: number) => c.types.of(c.node.inputs[i]);
const out = (c: RuleContext) => c.node.outputs[0];

function intAttr(c: RuleContext, name: string, fallback: number): number {
  const v = c.node.attrs[name];
  return typeof v === 'number' ? v : fallback;
}

/** Builds a rule for a two-input broadcasting op from its two unreduced partials. */
function binary(da: (c: RuleContext) => string, db: (c: RuleContext) => string): Rule {
  return (c) => [c.wants(0) ? c.e.sumTo(da(c), c.y.dims, inT(c, 0).dims) : undefined, c.wants(1) ? c.e.sumTo(db(c), c.y.dims, inT(c, 1).dims) : undefined];
}

function minMax(pick: 'GreaterOrEqual' | 'LessOrEqual'): Rule {
  return (c) => {
    if (c.node.inputs.length !== 2) throw new AutodiffError(`${c.node.opType}: autodiff supports exactly two inputs`);
    // Ties send the gradient to the first input.
    const mask = c.e.op(pick, [c.node.inputs[0], c.node.inputs[1]]);
    const full = c.e.op('Expand', [mask, c.e.ints(c.y.dims)]);
    return binary(
      (k) => k.e.masked(full, k.dy, k.y.dtype),
      (k) => k.e.masked(full, k.dy, k.y.dtype, true),
    )(c);
  };
}

function reshapeBack(c: RuleContext): (string | undefined)[] {
  return [c.e.reshape(c.dy, inT(c, 0).dims)];
}

/** dy of a reduction, brought back to the input's full shape (before any 1/count or mask). */
function expandReduced(c: RuleContext): { dyFull: string; keep: number[]; axes: number[] } {
  const x = inT(c, 0);
  const axes = c.types.reduceAxes(c.node, x.dims.length);
  const keep = reducedShape(x.dims, axes, true);
  const dyk = intAttr(c, 'keepdims', 1) === 1 ? c.dy : c.e.reshape(c.dy, keep);
  return { dyFull: c.e.op('Expand', [dyk, c.e.ints(x.dims)]), keep, axes };
}

function matmulRule(c: RuleContext): (string | undefined)[] {
  const [a, b] = [inT(c, 0), inT(c, 1)];
  const [A, B] = c.node.inputs;
  let da: string | undefined;
  let db: string | undefined;
  if (c.wants(0)) {
    const full = c.e.op('MatMul', [c.dy, c.e.transposeLast(B, b.dims.length)]);
    da = c.e.sumTo(full, [...c.y.dims.slice(0, -2), a.dims[a.dims.length - 2], a.dims[a.dims.length - 1]], a.dims);
  }
  if (c.wants(1)) {
    const k = a.dims[a.dims.length - 1];
    const n = b.dims[b.dims.length - 1];
    if (b.dims.length === 2 && a.dims.length > 2) {
      // Flatten the batch: dB = A₂ᵀ · dy₂ with A₂ [rows, K], dy₂ [rows, N].
      const a2 = c.e.reshape(A, [-1, k]);
      db = c.e.op('MatMul', [c.e.op('Transpose', [a2], { perm: [1, 0] }), c.e.reshape(c.dy, [-1, n])]);
    } else {
      const full = c.e.op('MatMul', [c.e.transposeLast(A, a.dims.length), c.dy]);
      db = c.e.sumTo(full, [...c.y.dims.slice(0, -2), k, n], b.dims);
    }
  }
  return [da, db];
}

function gemmRule(c: RuleContext): (string | undefined)[] {
  const alpha = { float: (c.node.attrs.alpha as { float: number } | undefined)?.float ?? 1 };
  const beta = (c.node.attrs.beta as { float: number } | undefined)?.float ?? 1;
  const ta = intAttr(c, 'transA', 0);
  const tb = intAttr(c, 'transB', 0);
  const [A, B, C] = c.node.inputs;
  const da = c.wants(0) ? (ta ? c.e.op('Gemm', [B, c.dy], { alpha, transA: tb, transB: 1 }) : c.e.op('Gemm', [c.dy, B], { alpha, transB: 1 - tb })) : undefined;
  const db = c.wants(1) ? (tb ? c.e.op('Gemm', [c.dy, A], { alpha, transA: 1, transB: ta }) : c.e.op('Gemm', [A, c.dy], { alpha, transA: 1 - ta })) : undefined;
  let dc: string | undefined;
  if (C && c.wants(2)) {
    const summed = c.e.sumTo(c.dy, c.y.dims, inT(c, 2).dims);
    dc = beta === 1 ? summed : c.e.op('Mul', [summed, c.e.scalar(c.y.dtype, beta)]);
  }
  return [da, db, dc];
}

export const RULES: Record<string, Rule> = {
  Identity: (c) => [c.dy],
  Neg: (c) => [c.e.op('Neg', [c.dy])],
  Add: binary(
    (c) => c.dy,
    (c) => c.dy,
  ),
  Sub: binary(
    (c) => c.dy,
    (c) => c.e.op('Neg', [c.dy]),
  ),
  Mul: binary(
    (c) => c.e.op('Mul', [c.dy, c.node.inputs[1]]),
    (c) => c.e.op('Mul', [c.dy, c.node.inputs[0]]),
  ),
  // y = a / b: da = dy / b, db = −dy · y / b
  Div: binary(
    (c) => c.e.op('Div', [c.dy, c.node.inputs[1]]),
    (c) => c.e.op('Neg', [c.e.op('Mul', [c.dy, c.e.op('Div', [out(c), c.node.inputs[1]])])]),
  ),
  Sqrt: (c) => [c.e.op('Div', [c.e.op('Mul', [c.dy, c.e.scalar(c.y.dtype, 0.5)]), out(c)])],
  Pow: (c) => {
    if (c.wants(1)) throw new AutodiffError('Pow: the exponent must not depend on a trainable parameter');
    const exps = c.types.constFloats(c.node.inputs[1]);
    if (!exps || exps.length !== 1) throw new AutodiffError('Pow: autodiff needs a scalar constant exponent');
    const p = exps[0];
    const deriv =
      p === 2
        ? c.e.op('Mul', [c.node.inputs[0], c.e.scalar(c.y.dtype, 2)])
        : c.e.op('Mul', [c.e.op('Pow', [c.node.inputs[0], c.e.scalar(c.y.dtype, p - 1)]), c.e.scalar(c.y.dtype, p)]);
    return [c.e.op('Mul', [c.dy, deriv]), undefined];
  },
  Exp: (c) => [c.e.op('Mul', [c.dy, out(c)])],
  Log: (c) => [c.e.op('Div', [c.dy, c.node.inputs[0]])],
  Sigmoid: (c) => [c.e.op('Mul', [c.dy, c.e.op('Mul', [out(c), c.e.op('Sub', [c.e.scalar(c.y.dtype, 1), out(c)])])])],
  Tanh: (c) => [c.e.op('Mul', [c.dy, c.e.op('Sub', [c.e.scalar(c.y.dtype, 1), c.e.op('Mul', [out(c), out(c)])])])],
  Relu: (c) => [c.e.masked(c.e.op('Greater', [c.node.inputs[0], c.e.scalar(c.y.dtype, 0)]), c.dy, c.y.dtype)],
  Clip: (c) => {
    if (c.wants(1) || c.wants(2)) throw new AutodiffError('Clip: min and max must not depend on a trainable parameter');
    const [x, lo, hi] = c.node.inputs;
    const conds: string[] = [];
    if (lo) conds.push(c.e.op('GreaterOrEqual', [x, lo]));
    if (hi) conds.push(c.e.op('LessOrEqual', [x, hi]));
    if (conds.length === 0) return [c.dy];
    const mask = conds.length === 2 ? c.e.op('And', conds) : conds[0];
    return [c.e.masked(mask, c.dy, c.y.dtype)];
  },
  Min: minMax('LessOrEqual'),
  Max: minMax('GreaterOrEqual'),
  Softmax: (c) => {
    const ax = axis(intAttr(c, 'axis', -1), c.y.dims.length);
    const s = c.e.op('ReduceSum', [c.e.op('Mul', [c.dy, out(c)]), c.e.ints([ax])], { keepdims: 1 });
    return [c.e.op('Mul', [out(c), c.e.op('Sub', [c.dy, s])])];
  },
  LogSoftmax: (c) => {
    const ax = axis(intAttr(c, 'axis', -1), c.y.dims.length);
    const s = c.e.op('ReduceSum', [c.dy, c.e.ints([ax])], { keepdims: 1 });
    return [c.e.op('Sub', [c.dy, c.e.op('Mul', [c.e.op('Exp', [out(c)]), s])])];
  },
  Cast: (c) => [c.e.op('Cast', [c.dy], { to: castCode(inT(c, 0).dtype) })],
  ReduceSum: (c) => [expandReduced(c).dyFull],
  ReduceMean: (c) => {
    const x = inT(c, 0);
    const { dyFull, axes } = expandReduced(c);
    const count = axes.reduce((n, a) => n * x.dims[a], 1);
    return [c.e.op('Mul', [dyFull, c.e.scalar(c.y.dtype, 1 / count)])];
  },
  ReduceMax: (c) => {
    // Subgradient: split dy evenly among the entries equal to the maximum.
    const x = inT(c, 0);
    const { dyFull, keep, axes } = expandReduced(c);
    const yk = intAttr(c, 'keepdims', 1) === 1 ? out(c) : c.e.reshape(out(c), keep);
    const mask = c.e.op('Cast', [c.e.op('Equal', [c.node.inputs[0], yk])], { to: castCode(x.dtype) });
    const count = c.e.op('ReduceSum', [mask, c.e.ints(axes)], { keepdims: 1 });
    return [c.e.op('Mul', [dyFull, c.e.op('Div', [mask, count])])];
  },
  Reshape: reshapeBack,
  Unsqueeze: reshapeBack,
  Squeeze: reshapeBack,
  Expand: (c) => [c.e.sumTo(c.dy, c.y.dims, inT(c, 0).dims)],
  Transpose: (c) => {
    const rank = c.y.dims.length;
    const perm = (c.node.attrs.perm as number[] | undefined) ?? Array.from({ length: rank }, (_, i) => rank - 1 - i);
    const inv = new Array<number>(rank);
    perm.forEach((p, i) => (inv[p] = i));
    return [c.e.op('Transpose', [c.dy], { perm: inv })];
  },
  Concat: (c) => {
    const ax = axis(intAttr(c, 'axis', 0), c.y.dims.length);
    let start = 0;
    return c.node.inputs.map((name, i) => {
      const size = c.types.of(name).dims[ax];
      const s = start;
      start += size;
      return c.wants(i) ? c.e.op('Slice', [c.dy, c.e.ints([s]), c.e.ints([s + size]), c.e.ints([ax])]) : undefined;
    });
  },
  Slice: (c) => {
    const x = inT(c, 0);
    const pads = new Array<number>(2 * x.dims.length).fill(0);
    for (const s of c.types.sliceSpec(c.node, x.dims)) {
      pads[s.axis] = s.start;
      pads[x.dims.length + s.axis] = x.dims[s.axis] - s.end;
    }
    return [c.e.op('Pad', [c.dy, c.e.ints(pads)])];
  },
  Gather: (c) => {
    if (c.wants(1)) throw new AutodiffError('Gather: indices carry no gradient');
    const data = inT(c, 0);
    if (axis(intAttr(c, 'axis', 0), data.dims.length) !== 0) throw new AutodiffError('Gather: autodiff supports axis 0 only');
    const idx = inT(c, 1);
    const vocab = data.dims[0];
    const rows = idx.dims.reduce((a, b) => a * b, 1);
    const rest = data.dims.slice(1).reduce((a, b) => a * b, 1);
    // One-hot scatter-add as a MatMul: onehot [V, rows] · dy [rows, rest]. Duplicates add up, and
    // it needs no ScatterND reduction kernel (absent on some EPs).
    const range = c.e.g.constant(
      idx.dtype,
      Array.from({ length: vocab }, (_, i) => i),
      [vocab, 1],
    );
    const flat = c.e.reshape(c.node.inputs[1], [1, rows]);
    const onehot = c.e.op('Cast', [c.e.op('Equal', [range, flat])], { to: castCode(data.dtype) });
    const grad = c.e.op('MatMul', [onehot, c.e.reshape(c.dy, [rows, rest])]);
    return [c.e.reshape(grad, data.dims), undefined];
  },
  Where: (c) => {
    const cond = c.node.inputs[0];
    const t = (i: number) => c.e.sumTo(c.e.masked(cond, c.dy, c.y.dtype, i === 2), c.y.dims, inT(c, i).dims);
    return [undefined, c.wants(1) ? t(1) : undefined, c.wants(2) ? t(2) : undefined];
  },
  MatMul: matmulRule,
  Gemm: gemmRule,
  MatMulNBits: (c) => [matMulNBitsBackward(c.e, c.types, c.node, c.dy, c.nbits), undefined, undefined],
};
