// Shared test helpers for credit: float comparison with a stated tolerance and error matching.
import { expect } from 'vitest';
import { CreditError, type CreditErrorCode } from '../../../src/rl/credit/errors.ts';

/** |a_i − b_i| ≤ tol · (1 + |b_i|) for every i, and equal lengths. */
export function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol = 1e-6): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const ok = Math.abs(actual[i] - expected[i]) <= tol * (1 + Math.abs(expected[i]));
    if (!ok) expect.fail(`index ${i}: ${actual[i]} vs expected ${expected[i]} (tol ${tol})`);
  }
}

/** Runs fn and checks it throws a CreditError with `code` and a message matching `pattern`. */
export function expectCreditError(fn: () => unknown, code: CreditErrorCode, pattern: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(CreditError);
  const err = caught as CreditError;
  expect(err.name).toBe('CreditError');
  expect(err.code).toBe(code);
  expect(err.message).toMatch(pattern);
}

export const f32 = (xs: number[]): Float32Array => Float32Array.from(xs);
export const i32 = (xs: number[]): Int32Array => Int32Array.from(xs);
