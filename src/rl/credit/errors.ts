// The one error type of src/rl/credit and the input checks every estimator shares. Bad input is
// refused by name (non-finite numbers, mismatched lengths, missing inputs, out-of-range
// parameters) so that no estimator ever propagates NaN silently.
import { CodedError } from '../util/errors.ts';

export type CreditErrorCode =
  | 'non-finite' // a NaN or ±Infinity in an input array or parameter
  | 'length-mismatch' // arrays that must align do not
  | 'missing-input' // the estimator needs an input the episode lacks
  | 'bad-offsets' // token offsets not starting at 0, decreasing, or not ending at the token count
  | 'bad-param' // a parameter out of its documented range
  | 'episode-ended' // a turn pushed after a terminal turn
  | 'bad-sample'; // Pass@(K,T) / statistics input out of range (n < K, turn < 1, too few values)

/** Credit input refused; `code` is machine-readable, the message names the array and index. */
export class CreditError extends CodedError<CreditErrorCode> {
  override name = 'CreditError';
}

/** True when every entry is finite: the fast path of checkFinite for per-turn pushes (no message is built unless a check fails). */
export function allFinite(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return false;
  return true;
}

/** Throws 'non-finite' naming the first NaN/±Infinity in `a`. */
export function checkFinite(name: string, a: ArrayLike<number>): void {
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(a[i])) throw new CreditError('non-finite', `${name}[${i}] is ${a[i]}; credit inputs must be finite`);
  }
}

/** Throws 'non-finite' when `x` is not a finite number. */
export function checkFiniteScalar(name: string, x: number): void {
  if (!Number.isFinite(x)) throw new CreditError('non-finite', `${name} is ${x}; credit inputs must be finite`);
}

/** Throws 'length-mismatch' unless `a.length === expected`. */
export function checkLength(name: string, a: ArrayLike<number>, expected: number, why: string): void {
  if (a.length !== expected) throw new CreditError('length-mismatch', `${name} has length ${a.length}, expected ${expected} (${why})`);
}

/** Returns `a` or throws 'missing-input' naming what needs it. */
export function need<T>(a: T | undefined, name: string, estimator: string): T {
  if (a === undefined) throw new CreditError('missing-input', `${estimator} needs ${name}`);
  return a;
}

/** Checks a parameter lies in [lo, hi] (and is finite). */
export function checkParam(name: string, x: number, lo: number, hi: number): void {
  if (!Number.isFinite(x) || x < lo || x > hi) throw new CreditError('bad-param', `${name} = ${x} is outside [${lo}, ${hi}]`);
}

/** Checks token offsets [T+1]: start 0, non-decreasing, end at `tokens`. */
export function checkOffsets(offsets: Int32Array, turns: number, tokens: number): void {
  checkLength('tokenOffsets', offsets, turns + 1, 'one boundary per turn plus the end');
  if (offsets[0] !== 0) throw new CreditError('bad-offsets', `tokenOffsets[0] is ${offsets[0]}, expected 0`);
  for (let t = 0; t < turns; t++) {
    if (offsets[t + 1] < offsets[t]) throw new CreditError('bad-offsets', `tokenOffsets decrease at turn ${t} (${offsets[t]} → ${offsets[t + 1]})`);
  }
  if (offsets[turns] !== tokens) throw new CreditError('bad-offsets', `tokenOffsets end at ${offsets[turns]} but there are ${tokens} tokens`);
}

/**
 * Checks the per-turn inputs every estimator shares: finite rewards, and when `values` are given,
 * [T+1] finite values. Returns T.
 */
export function checkTurns(rewards: Float32Array, values?: Float32Array): number {
  checkFinite('rewards', rewards);
  if (values !== undefined) {
    checkLength('values', values, rewards.length + 1, 'V(s_0) … V(s_T), one more than rewards');
    checkFinite('values', values);
  }
  return rewards.length;
}
