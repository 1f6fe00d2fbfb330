// Static shape and element-type inference over a GraphBuilder's node list, for the op set of
// ops.ts (ONNX operator specs, opset 17). Autodiff needs every shape on the differentiated path:
// the gradient of a broadcast binary op is summed back to its input's shape, and reshapes are
// undone with constant shapes. Train-step graphs are therefore built with fixed batch dimensions
// (one graph per batch shape); a symbolic dimension on the path is an error that names the value.
import type { DType, GraphBuilder, NodeView } from '../onnx/builder.ts';

/** A value's static type. */
export interface ValueType {
  dtype: DType;
  dims: number[];
}

/** Raised when autodiff cannot proceed: unknown shape, unsupported op or attribute, bad request. */
export class AutodiffError extends Error {
  override name = 'AutodiffError';
}

// ONNX TensorProto.DataType codes for Cast's `to` attribute.
const CAST_TO: Record<number, DType> = { 1: 'float32', 2: 'uint8', 6: 'int32', 7: 'int64', 9: 'bool', 11: 'float64' };

/** ONNX TensorProto.DataType code of a dtype, for Cast's `to` attribute. */
export function castCode(dtype: DType): number {
  for (const [code, d] of Object.entries(CAST_TO)) if (d === dtype) return Number(code);
  throw new AutodiffError(`no Cast code for ${dtype}`);
}

export function isFloat(dtype: DType): boolean {
  return dtype === 'float32' || dtype === 'float64';
}

/** Numpy-style broadcast of two shapes. */
export function broadcast(a: readonly number[], b: readonly number[], where: string): number[] {
  const n = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1;
    const y = b[b.length - n + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) throw new AutodiffError(`${where}: shapes [${a}] and [${b}] do not broadcast`);
    out.push(x === 1 ? y : x);
  }
  return out;
}

/** Normalises a possibly negative axis against a rank. */
export function axis(a: number, rank: number): number {
  return a < 0 ? a + rank : a;
}

function intAttr(node: NodeView, name: string, fallback: number): number {
  const v = node.attrs[name];
  return typeof v === 'number' ? v : fallback;
}

function intsAttr(node: NodeView, name: string): number[] | undefined {
  const v = node.attrs[name];
  return Array.isArray(v) ? v : undefined;
}

/**
 * Static knowledge of a graph: the type of every value whose shape can be inferred, and the
 * values of integer constants (initializers) that shape-like inputs (axes, shapes, starts) use.
 */
export class GraphTypes {
  private readonly types = new Map<string, ValueType>();
  private readonly unknown = new Map<string, string>();

  constructor(private readonly g: GraphBuilder) {
    for (const v of g.inputList()) {
      if (v.dims.every((d) => typeof d === 'number')) this.types.set(v.name, { dtype: v.dtype, dims: v.dims as number[] });
      else this.unknown.set(v.name, `graph input "${v.name}" has symbolic dims [${v.dims}]; train graphs need fixed shapes`);
    }
    for (const node of g.nodeList()) this.inferNode(node);
  }

  /** The type of a value; throws an AutodiffError that says why it is unknown. */
  of(name: string): ValueType {
    const init = this.g.initializerOf(name);
    if (init) return { dtype: init.dtype, dims: [...init.dims] };
    const t = this.types.get(name);
    if (t) return t;
    throw new AutodiffError(this.unknown.get(name) ?? `no type known for value "${name}"`);
  }

  /** Integer contents of a constant initializer (axes, shapes, slice bounds, exponents). */
  constInts(name: string, what: string): number[] {
    const init = this.g.initializerOf(name);
    if (!init) throw new AutodiffError(`${what}: "${name}" must be a constant initializer`);
    return Array.from(init.data as ArrayLike<number | bigint>, (v) => Number(v));
  }

  /** Float contents of a constant initializer, or undefined when it is not one. */
  constFloats(name: string): number[] | undefined {
    const init = this.g.initializerOf(name);
    return init ? Array.from(init.data as ArrayLike<number | bigint>, (v) => Number(v)) : undefined;
  }

  private inferNode(node: NodeView): void {
    let outs: ValueType[];
    try {
      outs = this.infer(node);
    } catch (e) {
      const why = e instanceof AutodiffError ? e.message : String(e);
      for (const o of node.outputs) this.unknown.set(o, `${node.opType} → "${o}": ${why}`);
      return;
    }
    node.outputs.forEach((o, i) => this.types.set(o, outs[i]));
  }

  /** Shape of an optional int input (axes) or attribute, as the op's opset-17 form allows. */
  axesOf(node: NodeView, inputIndex: number): number[] | undefined {
    const name = node.inputs[inputIndex];
    if (name) return this.constInts(name, `${node.opType} axes`);
    return intsAttr(node, 'axes');
  }

  private infer(node: NodeView): ValueType[] {
    const ins = node.inputs.map((n) => (n === '' ? undefined : n));
    const t = (i: number): ValueType => {
      const n = ins[i];
      if (!n) throw new AutodiffError(`${node.opType}: missing input ${i}`);
      return this.of(n);
    };
    const op = node.opType;
    switch (op) {
      case 'Neg':
      case 'Sqrt':
      case 'Exp':
      case 'Log':
      case 'Sigmoid':
      case 'Tanh':
      case 'Relu':
      case 'Softmax':
      case 'LogSoftmax':
      case 'Identity':
      case 'Clip':
      case 'Sin':
      case 'Cos':
      case 'Abs':
      case 'Reciprocal':
      case 'Trilu':
      case 'Erf':
        return [t(0)];
      case 'Not':
        return [{ dtype: 'bool', dims: t(0).dims }];
      case 'Add':
      case 'Sub':
      case 'Mul':
      case 'Div':
      case 'Pow':
      case 'Min':
      case 'Max':
        return [{ dtype: t(0).dtype, dims: node.inputs.slice(1).reduce((d, _, i) => broadcast(d, t(i + 1).dims, op), t(0).dims) }];
      case 'Equal':
      case 'Less':
      case 'Greater':
      case 'LessOrEqual':
      case 'GreaterOrEqual':
      case 'And':
      case 'Or':
        return [{ dtype: 'bool', dims: broadcast(t(0).dims, t(1).dims, op) }];
      case 'Where':
        return [{ dtype: t(1).dtype, dims: broadcast(broadcast(t(0).dims, t(1).dims, op), t(2).dims, op) }];
      case 'Cast': {
        const to = CAST_TO[intAttr(node, 'to', -1)];
        if (!to) throw new AutodiffError(`Cast to type code ${String(node.attrs.to)} is not supported`);
        return [{ dtype: to, dims: t(0).dims }];
      }
      case 'MatMul':
        return [{ dtype: t(0).dtype, dims: matmulShape(t(0).dims, t(1).dims) }];
      case 'MatMulNBits': {
        const a = t(0).dims;
        return [{ dtype: t(0).dtype, dims: [...a.slice(0, -1), intAttr(node, 'N', 0)] }];
      }
      case 'Gemm': {
        const a = t(0).dims;
        const b = t(1).dims;
        const m = intAttr(node, 'transA', 0) ? a[1] : a[0];
        const n = intAttr(node, 'transB', 0) ? b[0] : b[1];
        return [{ dtype: t(0).dtype, dims: [m, n] }];
      }
      case 'ReduceSum':
      case 'ReduceMean':
      case 'ReduceMax': {
        const x = t(0);
        return [{ dtype: x.dtype, dims: reducedShape(x.dims, this.reduceAxes(node, x.dims.length), intAttr(node, 'keepdims', 1) === 1) }];
      }
      case 'Reshape':
        return [{ dtype: t(0).dtype, dims: reshapeTarget(t(0).dims, this.constInts(ins[1] ?? '', 'Reshape shape')) }];
      case 'Transpose': {
        const x = t(0);
        const perm = intsAttr(node, 'perm') ?? x.dims.map((_, i) => x.dims.length - 1 - i);
        return [{ dtype: x.dtype, dims: perm.map((p) => x.dims[p]) }];
      }
      case 'Unsqueeze': {
        const x = t(0);
        const rank = x.dims.length + (this.axesOf(node, 1) ?? []).length;
        const axes = new Set((this.axesOf(node, 1) ?? []).map((a) => axis(a, rank)));
        const dims: number[] = [];
        let j = 0;
        for (let i = 0; i < rank; i++) dims.push(axes.has(i) ? 1 : x.dims[j++]);
        return [{ dtype: x.dtype, dims }];
      }
      case 'Squeeze': {
        const x = t(0);
        const given = this.axesOf(node, 1);
        const axes = new Set(given ? given.map((a) => axis(a, x.dims.length)) : x.dims.flatMap((d, i) => (d === 1 ? [i] : [])));
        return [{ dtype: x.dtype, dims: x.dims.filter((_, i) => !axes.has(i)) }];
      }
      case 'Concat': {
        const first = t(0);
        const ax = axis(intAttr(node, 'axis', 0), first.dims.length);
        const dims = [...first.dims];
        dims[ax] = node.inputs.reduce((s, _, i) => s + t(i).dims[ax], 0);
        return [{ dtype: first.dtype, dims }];
      }
      case 'Slice': {
        const x = t(0);
        const dims = [...x.dims];
        for (const s of this.sliceSpec(node, x.dims)) dims[s.axis] = s.end - s.start;
        return [{ dtype: x.dtype, dims }];
      }
      case 'Gather': {
        const data = t(0);
        const ax = axis(intAttr(node, 'axis', 0), data.dims.length);
        return [{ dtype: data.dtype, dims: [...data.dims.slice(0, ax), ...t(1).dims, ...data.dims.slice(ax + 1)] }];
      }
      case 'Expand':
        return [{ dtype: t(0).dtype, dims: broadcast(t(0).dims, this.constInts(ins[1] ?? '', 'Expand shape'), 'Expand') }];
      case 'Shape':
        return [{ dtype: 'int64', dims: [t(0).dims.length] }];
      default:
        throw new AutodiffError(`no shape rule for op ${op}`);
    }
  }

  /** Normalised, sorted reduction axes of a Reduce* node (all axes when none are given). */
  reduceAxes(node: NodeView, rank: number): number[] {
    const given = node.opType === 'ReduceSum' ? this.axesOf(node, 1) : (intsAttr(node, 'axes') ?? this.axesOf(node, 1));
    if (!given || given.length === 0) {
      if (intAttr(node, 'noop_with_empty_axes', 0) === 1) return [];
      return Array.from({ length: rank }, (_, i) => i);
    }
    return given.map((a) => axis(a, rank)).sort((a, b) => a - b);
  }

  /** Static slice bounds per sliced axis (steps of 1 only), clamped as ONNX Slice does. */
  sliceSpec(node: NodeView, dims: readonly number[]): { axis: number; start: number; end: number }[] {
    const starts = this.constInts(node.inputs[1], 'Slice starts');
    const ends = this.constInts(node.inputs[2], 'Slice ends');
    const axes = node.inputs[3] ? this.constInts(node.inputs[3], 'Slice axes') : starts.map((_, i) => i);
    const steps = node.inputs[4] ? this.constInts(node.inputs[4], 'Slice steps') : starts.map(() => 1);
    if (steps.some((s) => s !== 1)) throw new AutodiffError(`Slice: only steps of 1 are supported, got [${steps}]`);
    return axes.map((a, i) => {
      const ax = axis(a, dims.length);
      const n = dims[ax];
      const clamp = (v: number) => Math.min(n, Math.max(0, v < 0 ? v + n : v));
      const start = clamp(starts[i]);
      return { axis: ax, start, end: Math.max(start, clamp(ends[i])) };
    });
  }
}

export function matmulShape(a: readonly number[], b: readonly number[]): number[] {
  if (a.length < 2 || b.length < 2) throw new AutodiffError(`MatMul: autodiff needs rank ≥ 2 operands, got [${a}] · [${b}]`);
  if (a[a.length - 1] !== b[b.length - 2]) throw new AutodiffError(`MatMul: inner dims differ in [${a}] · [${b}]`);
  const batch = broadcast(a.slice(0, -2), b.slice(0, -2), 'MatMul');
  return [...batch, a[a.length - 2], b[b.length - 1]];
}

export function reducedShape(dims: readonly number[], axes: readonly number[], keep: boolean): number[] {
  const set = new Set(axes);
  return keep ? dims.map((d, i) => (set.has(i) ? 1 : d)) : dims.filter((_, i) => !set.has(i));
}

/** Reshape target with ONNX's 0 (copy) and −1 (infer) conventions (allowzero = 0). */
export function reshapeTarget(dims: readonly number[], shape: readonly number[]): number[] {
  const total = dims.reduce((a, b) => a * b, 1);
  const out = shape.map((s, i) => (s === 0 ? dims[i] : s));
  const known = out.reduce((a, b) => (b === -1 ? a : a * b), 1);
  const filled = out.map((s) => (s === -1 ? total / known : s));
  if (filled.reduce((a, b) => a * b, 1) !== total || filled.some((d) => !Number.isInteger(d))) {
    throw new AutodiffError(`Reshape: [${dims}] cannot become [${shape}]`);
  }
  return filled;
}
