// How far one set of logits is from another (e.g. 4-bit vs fp32): the figures docs/model.md reports.
// logits: [rows × vocab], row-major.

export interface LogitDiff {
  /** max |a − b| */
  maxAbs: number;
  /** √mean (a − b)² / √mean b², with b the reference */
  relRms: number;
  /** mean over rows of KL(softmax b ‖ softmax a), nats */
  meanKl: number;
  /** fraction of rows whose argmax agrees */
  top1: number;
}

function logSoftmax(x: ArrayLike<number>, off: number, vocab: number): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < vocab; i++) max = Math.max(max, x[off + i]);
  let sum = 0;
  for (let i = 0; i < vocab; i++) sum += Math.exp(x[off + i] - max);
  const lse = max + Math.log(sum);
  return Float64Array.from({ length: vocab }, (_, i) => x[off + i] - lse);
}

/** Compares candidate logits `a` with reference logits `b`. */
export function compareLogits(a: ArrayLike<number>, b: ArrayLike<number>, rows: number, vocab: number): LogitDiff {
  let maxAbs = 0;
  let se = 0;
  let sb = 0;
  let kl = 0;
  let agree = 0;
  for (let r = 0; r < rows; r++) {
    const off = r * vocab;
    let am = 0;
    let bm = 0;
    for (let i = 0; i < vocab; i++) {
      const d = a[off + i] - b[off + i];
      maxAbs = Math.max(maxAbs, Math.abs(d));
      se += d * d;
      sb += b[off + i] * b[off + i];
      if (a[off + i] > a[off + am]) am = i;
      if (b[off + i] > b[off + bm]) bm = i;
    }
    if (am === bm) agree++;
    const la = logSoftmax(a, off, vocab);
    const lb = logSoftmax(b, off, vocab);
    for (let i = 0; i < vocab; i++) kl += Math.exp(lb[i]) * (lb[i] - la[i]);
  }
  return { maxAbs, relRms: Math.sqrt(se / Math.max(sb, 1e-30)), meanKl: kl / rows, top1: agree / rows };
}
