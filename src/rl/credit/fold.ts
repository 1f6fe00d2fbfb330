// Batch credit as a fold of the incremental estimator over an episode's turns (issue 16, "one of
// each"): every estimator is defined once, by its Incremental* class (one turn pushed at a time,
// as live credit runs it), and its batch form on an episode [T] is
//   result( push(turn_{T−1}) ∘ … ∘ push(turn_0) (start) )
// so the two cannot drift apart. This module slices an EpisodeCreditInput (already validated by
// the batch entry point) into the per-turn inputs the fold pushes.
import type { CreditResult, EpisodeCreditInput, IncrementalCredit, IncrementalStart, TurnCreditInput } from './types.ts';

/**
 * The turns of an episode as an incremental estimator receives them, and its start.
 * values: [T+1] gives V(s_0) as the start and V(s_{t+1}) as turn t's nextValue (the last one only
 * when the episode is not terminal); tokenOffsets: [T+1] cuts the token arrays into views (no copy).
 */
export function episodeTurns(input: EpisodeCreditInput): { start: IncrementalStart; turns: TurnCreditInput[] } {
  const T = input.rewards.length;
  const terminal = input.terminal ?? true;
  const { values, q, tokenOffsets: off, tokenValues, criticLogprobs, refLogprobs } = input;
  const slice = (a: Float32Array | undefined, t: number) => (a && off ? a.subarray(off[t], off[t + 1]) : undefined);
  const turns: TurnCreditInput[] = [];
  for (let t = 0; t < T; t++) {
    const done = terminal && t === T - 1;
    const turn: TurnCreditInput = { reward: input.rewards[t], done };
    if (values && !done) turn.nextValue = values[t + 1];
    if (q) turn.q = q[t];
    const tv = slice(tokenValues, t);
    if (tv) turn.tokenValues = tv;
    const lc = slice(criticLogprobs, t);
    if (lc) turn.criticLogprobs = lc;
    const lr = slice(refLogprobs, t);
    if (lr) turn.refLogprobs = lr;
    turns.push(turn);
  }
  return { start: values && values.length > 0 ? { initialValue: values[0] } : {}, turns };
}

/** Pushes every turn into `inc` and reads the credits once. */
export function fold(inc: IncrementalCredit, turns: readonly TurnCreditInput[]): CreditResult {
  for (const turn of turns) inc.push(turn);
  return inc.result();
}

/** A float64 buffer of at least `atLeast` (and twice the old) length, keeping its contents. */
export function grow(a: Float64Array<ArrayBuffer>, atLeast = 0): Float64Array<ArrayBuffer> {
  const out = new Float64Array(Math.max(atLeast, a.length * 2));
  out.set(a);
  return out;
}
