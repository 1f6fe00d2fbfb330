// Reverse-mode automatic differentiation at graph-build time (the "backprop" of Rumelhart et al.
// 1986, as in Griewank & Walther, "Evaluating Derivatives", ch. 3): walk the forward nodes of a
// GraphBuilder in reverse topological (= reverse insertion) order and append, for each node on a
// path from a parameter to the loss, the nodes of its vector–Jacobian product (rules.ts). Gradients
// of a value used several times are summed. The result is one ONNX graph computing loss and grads.
import type { GraphBuilder } from '../onnx/builder.ts';
import { DIFFERENTIABLE_OPS } from './ops.ts';
import { Emit } from './emit.ts';
import { RULES } from './rules.ts';
import { AutodiffError, GraphTypes, isFloat } from './shapes.ts';
import type { NBitsBackwardMode } from './nbits.ts';

/** Options for `emitGradients`. */
export interface GradientOptions {
  /** How to emit the backward of frozen MatMulNBits layers (nbits.ts); default 'fp32-transpose'. */
  nbitsBackward?: NBitsBackwardMode;
  /** Name of a value holding d(objective)/d(loss), same shape as the loss; default a constant 1. */
  lossGradient?: string;
}

/** What `emitGradients` appended. */
export interface GradientResult {
  /** Parameter name → name of its gradient value (same shape and type as the parameter). */
  grads: Map<string, string>;
  /** Parameters the loss does not depend on (their gradient is a zero tensor). */
  unreached: string[];
  /** Number of nodes appended. */
  nodesAdded: number;
  /** The static types inferred for the forward graph (callers reuse them). */
  types: GraphTypes;
}

/**
 * Appends to `g` the gradient of the scalar `loss` with respect to each of `params` (graph inputs
 * or initializers of float type). Every node between a parameter and the loss must be in
 * DIFFERENTIABLE_OPS and have static shapes; otherwise an AutodiffError names the node.
 */
export function emitGradients(g: GraphBuilder, loss: string, params: readonly string[], options: GradientOptions = {}): GradientResult {
  const startCount = g.nodeCount;
  const nodes = [...g.nodeList()];
  const types = new GraphTypes(g);
  const e = new Emit(g);
  const lossType = types.of(loss);
  if (!isFloat(lossType.dtype)) throw new AutodiffError(`loss "${loss}" is ${lossType.dtype}, not a float`);
  if (lossType.dims.some((d) => d !== 1)) throw new AutodiffError(`loss "${loss}" must be a scalar, has shape [${lossType.dims}]`);
  for (const p of params) {
    if (!g.has(p)) throw new AutodiffError(`parameter "${p}" is not a value of graph ${g.graphName}`);
    if (!isFloat(types.of(p).dtype)) throw new AutodiffError(`parameter "${p}" is ${types.of(p).dtype}, not a float`);
  }

  // Values that depend on a parameter through float values.
  const reach = new Set(params);
  for (const node of nodes) {
    if (node.inputs.some((i) => reach.has(i))) {
      for (const o of node.outputs) if (typeof o === 'string' && safeFloat(types, o)) reach.add(o);
    }
  }
  // Values the loss depends on.
  const needed = new Set([loss]);
  for (let i = nodes.length - 1; i >= 0; i--) {
    if (nodes[i].outputs.some((o) => needed.has(o))) for (const inp of nodes[i].inputs) if (inp) needed.add(inp);
  }

  const contributions = new Map<string, string[]>();
  const add = (name: string, grad: string) => {
    const list = contributions.get(name);
    if (list) list.push(grad);
    else contributions.set(name, [grad]);
  };
  add(loss, options.lossGradient ?? e.op('Expand', [e.scalar(lossType.dtype, 1), e.ints(lossType.dims)]));
  const nbits = { mode: options.nbitsBackward ?? 'fp32-transpose', cache: new Map<string, string[]>() };

  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i];
    const y = node.outputs[0];
    if (!reach.has(y) || !needed.has(y)) continue;
    const parts = contributions.get(y);
    if (!parts) continue;
    const rule = RULES[node.opType];
    if (!rule || !(DIFFERENTIABLE_OPS as readonly string[]).includes(node.opType)) {
      throw new AutodiffError(`no backward rule for op ${node.opType} (output "${y}"); supported: ${DIFFERENTIABLE_OPS.join(', ')}`);
    }
    if (node.outputs.length !== 1) throw new AutodiffError(`${node.opType} "${y}": autodiff supports single-output nodes only`);
    const dy = e.sum(parts);
    const grads = rule({
      e,
      types,
      node,
      dy,
      y: types.of(y),
      wants: (k) => node.inputs[k] !== undefined && node.inputs[k] !== '' && reach.has(node.inputs[k]),
      nbits,
    });
    grads.forEach((grad, k) => {
      if (grad !== undefined && reach.has(node.inputs[k])) add(node.inputs[k], grad);
    });
  }

  const grads = new Map<string, string>();
  const unreached: string[] = [];
  for (const p of params) {
    const parts = contributions.get(p);
    if (parts) grads.set(p, e.sum(parts));
    else {
      const t = types.of(p);
      unreached.push(p);
      grads.set(p, e.op('Expand', [e.scalar(t.dtype, 0), e.ints(t.dims)]));
    }
  }
  return { grads, unreached, nodesAdded: g.nodeCount - startCount, types };
}

/** True when the value is known to be float; unknown types count as float (checked later if on path). */
function safeFloat(types: GraphTypes, name: string): boolean {
  try {
    return isFloat(types.of(name).dtype);
  } catch {
    return true;
  }
}
