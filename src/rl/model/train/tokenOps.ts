// Graph fragments the losses share, emitted only with ops autodiff can differentiate (ops.ts):
// per-token log-probabilities of the targets, per-token entropy, masked means, log σ(z).
// Layout: logits [B, T, V]; targets, masks and per-token values [B, T], batch-major.
import type { DType } from '../onnx/builder.ts';
import { Emit } from '../autodiff/emit.ts';
import { castCode } from '../autodiff/shapes.ts';

/** The builder and element type every loss fragment uses. */
export class LossEmit extends Emit {
  dtype: DType = 'float32';

  s(value: number): string {
    return this.scalar(this.dtype, value);
  }

  /** A bool value as 0/1 of the loss dtype. */
  asFloat(mask: string): string {
    return this.op('Cast', [mask], { to: castCode(this.dtype) });
  }

  sumAll(x: string): string {
    return this.op('ReduceSum', [x], { keepdims: 0 });
  }

  /** Σ over the last axis, dropping it: [B, T] → [B]. */
  sumLast(x: string): string {
    return this.op('ReduceSum', [x, this.ints([-1])], { keepdims: 0 });
  }

  /** Σ x·mask / max(Σ mask, 1) over all elements: a rank-0 value. */
  maskedMean(x: string, mask: string): string {
    const den = this.op('Max', [this.sumAll(mask), this.s(1)]);
    return this.op('Div', [this.sumAll(this.op('Mul', [x, mask])), den]);
  }

  /** Per-row masked mean, then mean over rows that have any masked-in token. */
  seqMeanTokenMean(x: string, mask: string): string {
    const rowSum = this.sumLast(this.op('Mul', [x, mask]));
    const rowCount = this.sumLast(mask);
    const rowMean = this.op('Div', [rowSum, this.op('Max', [rowCount, this.s(1)])]);
    const hasRow = this.asFloat(this.op('Greater', [rowCount, this.s(0)]));
    return this.op('Div', [this.sumAll(rowMean), this.op('Max', [this.sumAll(hasRow), this.s(1)])]);
  }

  mean(x: string): string {
    return this.op('ReduceMean', [x], { keepdims: 0 });
  }

  /** log σ(z) = log-softmax([z, 0])₀, numerically stable for any z; z is 1-D [P]. */
  logSigmoid(z: string, length: number): string {
    const col = this.reshape(z, [length, 1]);
    const zero = this.op('Expand', [this.s(0), this.ints([length, 1])]);
    const ls = this.op('LogSoftmax', [this.op('Concat', [col, zero], { axis: 1 })], { axis: -1 });
    return this.reshape(this.op('Slice', [ls, this.ints([0]), this.ints([1]), this.ints([1])]), [length]);
  }
}

/** The log-softmax of the logits and the log-probability of each target token. */
export interface TokenLogProbs {
  /** [B, T, V] */
  logSoftmax: string;
  /** [B, T]: log π(target[b, t] | prefix). */
  logp: string;
}

/** log π(targets) from logits [B, T, V] and int32 targets [B, T], via a one-hot mask (no GatherElements). */
export function tokenLogProbs(e: LossEmit, logits: string, targets: string, vocab: number): TokenLogProbs {
  const logSoftmax = e.op('LogSoftmax', [logits], { axis: -1 });
  const range = e.g.constant(
    'int32',
    Array.from({ length: vocab }, (_, i) => i),
    [vocab],
  );
  const onehot = e.asFloat(e.op('Equal', [e.op('Unsqueeze', [targets, e.ints([-1])]), range]));
  return { logSoftmax, logp: e.sumLast(e.op('Mul', [logSoftmax, onehot])) };
}

/** Per-token entropy H = −Σ_v p log p, [B, T] (differentiable, for an entropy bonus). */
export function tokenEntropy(e: LossEmit, logSoftmax: string): string {
  return e.op('Neg', [e.sumLast(e.op('Mul', [e.op('Exp', [logSoftmax]), logSoftmax]))]);
}

/** Fraction of masked-in tokens whose argmax equals the target (a statistic, not differentiated). */
export function tokenAccuracy(e: LossEmit, logits: string, targets: string, mask: string): string {
  const argmax = e.op('ArgMax', [logits], { axis: -1, keepdims: 0 });
  const hit = e.asFloat(e.op('Equal', [argmax, e.op('Cast', [targets], { to: castCode('int64') })]));
  return e.maskedMean(hit, mask);
}
