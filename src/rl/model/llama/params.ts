// The parameter-source abstraction: the forward emitter asks, for each weight, how it enters the graph.
//   'input'  — a graph input in Hugging Face layout (trainable: the train-step graph feeds and updates it);
//   'const'  — an fp32 initializer (frozen);
//   'quant4' — a frozen 4-bit MatMulNBits pack (quant.ts). Linears and the tied LM head only; norms
//              and biases fall back to 'const', and the embedding lookup uses the dequantised table
//              so lookup and tied head compute with the same numbers.
import { quantize4, dequantize4, type PackedWeight } from '../quant.ts';
import { quantize4Search } from './quantSearch.ts';
import { numel, type ModelWeights, type ParamSpec } from './weights.ts';

export type ParamPlacement = 'input' | 'const' | 'quant4';

/** Decides how each parameter enters a graph and supplies values for frozen ones. */
export interface ParamSource {
  /** Placement of one parameter. */
  placement(spec: ParamSpec): ParamPlacement;
  /** Hugging Face-layout fp32 values of a 'const' or 'quant4' parameter. */
  values(spec: ParamSpec): Float32Array;
  /** The 4-bit pack of W = valuesᵀ ([in, out], i.e. K = in, N = out) for a 'quant4' linear. */
  packed(spec: ParamSpec): PackedWeight;
}

/**
 * The shipped inference placement: the blocks' seven linears as 4-bit packs; embedding, (tied or
 * untied) LM head, norms and value head in fp32. Rounding the tied embedding too roughly doubles the
 * logit error on small models (docs/model.md), for a ~25% smaller file.
 */
export function blocksQuant4(spec: ParamSpec): ParamPlacement {
  return spec.kind === 'linear' && spec.name.startsWith('model.layers.') ? 'quant4' : 'const';
}

/** A weight is missing from a weight set or has the wrong length. */
export class WeightError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
    this.name = 'WeightError';
  }
}

/** Transposes a row-major [rows, cols] matrix. */
export function transpose(m: Float32Array, rows: number, cols: number): Float32Array {
  const t = new Float32Array(m.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = m[r * cols + c];
  return t;
}

/** Checks that `weights` holds every spec with the right length. */
export function checkWeights(weights: ModelWeights, specs: readonly ParamSpec[]): void {
  for (const s of specs) {
    const w = weights[s.name];
    if (!w) throw new WeightError(s.name, `weight ${s.name} is missing`);
    if (w.length !== numel(s.shape)) throw new WeightError(s.name, `weight ${s.name} has ${w.length} values, expected [${s.shape.join(', ')}]`);
  }
}

/**
 * A ParamSource over a weight set. `placement` is one placement for all parameters or a function per
 * parameter (e.g. `(p) => p.kind === 'linear' ? 'quant4' : 'const'`). With `weights` null every
 * parameter must be placed as 'input'. 4-bit packs are computed once and cached.
 */
export function paramSource(
  weights: ModelWeights | null,
  placement: ParamPlacement | ((spec: ParamSpec) => ParamPlacement),
  /** 'absmax': scale = max|w|/7 (quant.ts); 'search': least-squares scale per block (quantSearch.ts). */
  quantiser: 'absmax' | 'search' = 'search',
): ParamSource {
  const cache = new Map<string, PackedWeight>();
  const place = typeof placement === 'function' ? placement : () => placement;
  const values = (spec: ParamSpec): Float32Array => {
    const w = weights?.[spec.name];
    if (!w) throw new WeightError(spec.name, `weight ${spec.name} is missing`);
    if (w.length !== numel(spec.shape)) throw new WeightError(spec.name, `weight ${spec.name} has ${w.length} values, expected [${spec.shape.join(', ')}]`);
    return w;
  };
  return {
    placement(spec) {
      const p = place(spec);
      if (p === 'quant4' && (spec.kind === 'norm' || spec.kind === 'bias')) return 'const';
      return p;
    },
    values,
    packed(spec) {
      let p = cache.get(spec.name);
      if (!p) {
        const [out, inp] = spec.shape;
        p = (quantiser === 'search' ? quantize4Search : quantize4)(transpose(values(spec), out, inp), inp, out);
        cache.set(spec.name, p);
      }
      return p;
    },
  };
}

/** The weights a quantised graph actually computes with (HF layout): linears and embedding rounded through 4 bits. */
export function quantisedWeights(source: ParamSource, specs: readonly ParamSpec[]): ModelWeights {
  const out: ModelWeights = {};
  for (const s of specs) {
    const p = source.placement(s);
    if (p === 'quant4' && (s.kind === 'linear' || s.kind === 'embedding')) {
      const [rows, cols] = s.shape;
      out[s.name] = transpose(dequantize4(source.packed(s)), cols, rows);
    } else out[s.name] = source.values(s);
  }
  return out;
}
