// Small helpers that backward rules use to append nodes: cached constants of the right element type,
// reshape, and "sum to shape" (the adjoint of numpy broadcasting: sum over broadcast axes, then drop
// leading ones). All shapes are static (see shapes.ts).
import type { AttrValue, DType, GraphBuilder } from '../onnx/builder.ts';

export class Emit {
  private readonly cache = new Map<string, string>();

  constructor(readonly g: GraphBuilder) {}

  op(opType: string, inputs: readonly string[], attrs: Record<string, AttrValue> = {}, domain = ''): string {
    return this.g.op(opType, inputs, attrs, domain);
  }

  /** A rank-0 constant of this element type, shared across the graph. */
  scalar(dtype: DType, value: number): string {
    const key = `s:${dtype}:${value}`;
    let name = this.cache.get(key);
    if (!name) {
      name = this.g.constant(dtype, [value], []);
      this.cache.set(key, name);
    }
    return name;
  }

  /** A 1-D int64 constant (axes, shapes, pads), shared across the graph. */
  ints(values: readonly number[]): string {
    const key = `i:${values.join(',')}`;
    let name = this.cache.get(key);
    if (!name) {
      name = this.g.constant('int64', [...values], [values.length]);
      this.cache.set(key, name);
    }
    return name;
  }

  reshape(x: string, dims: readonly number[]): string {
    return this.op('Reshape', [x, this.ints(dims)]);
  }

  /** Swaps the last two axes. */
  transposeLast(x: string, rank: number): string {
    const perm = Array.from({ length: rank }, (_, i) => i);
    [perm[rank - 2], perm[rank - 1]] = [perm[rank - 1], perm[rank - 2]];
    return this.op('Transpose', [x], { perm });
  }

  /** Sums x of shape `from` down to `to`, the shape it was broadcast from. */
  sumTo(x: string, from: readonly number[], to: readonly number[]): string {
    if (from.length === to.length && from.every((d, i) => d === to[i])) return x;
    const lead = from.length - to.length;
    const axes: number[] = [];
    for (let i = 0; i < from.length; i++) {
      if (i < lead || (to[i - lead] === 1 && from[i] !== 1)) axes.push(i);
    }
    const summed = axes.length ? this.op('ReduceSum', [x, this.ints(axes)], { keepdims: 1 }) : x;
    return lead > 0 || axes.length === 0 ? this.reshape(summed, to) : summed;
  }

  /** x where mask holds, else 0 (of x's element type). */
  masked(mask: string, x: string, dtype: DType, invert = false): string {
    const zero = this.scalar(dtype, 0);
    return this.op('Where', invert ? [mask, zero, x] : [mask, x, zero]);
  }

  /** Adds contributions (one Sum node for three or more). */
  sum(terms: readonly string[]): string {
    if (terms.length === 1) return terms[0];
    if (terms.length === 2) return this.op('Add', terms);
    return this.op('Sum', terms);
  }
}
