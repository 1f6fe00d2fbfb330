// Batch credit as a fold of the incremental estimator over an episode's turns (issue 16, "one of
// each"): every estimator is defined once, by its Incremental* class (one turn pushed at a time,
// as live credit runs it), and its batch form on an episode [T] is
//   result( push(turn_{T−1}) ∘ … ∘ push(turn_0) (start) )
// so the two cannot drift apart. This module slices an EpisodeCreditInput (already validated by
// the batch entry point) into the per-turn inputs the fold pushes.
import type { CreditResult, EpisodeCreditInput, IncrementalCredit, TurnCreditInput } from './types.ts';

/**
 * Calls `visit` with each turn of an episode as an incremental estimator receives it: values [T+1]
 * give V(s_{t+1}) as turn t's nextValue (the last turn's only when the episode is not terminal);
 * tokenOffsets [T+1] cut the token arrays into views (no copy). One scratch object is reused for
 * every turn (push() keeps none of it), so a 100,000-turn fold allocates nothing per turn but views.
 */
export function forEachTurn(input: EpisodeCreditInput, visit: (turn: TurnCreditInput) => void): void {
  const T = input.rewards.length;
  const terminal = input.terminal ?? true;
  const { values, q, tokenOffsets: off, tokenValues, criticLogprobs, refLogprobs } = input;
  const turn: TurnCreditInput = { reward: 0 };
  for (let t = 0; t < T; t++) {
    const done = terminal && t === T - 1;
    turn.reward = input.rewards[t];
    turn.done = done;
    if (values) turn.nextValue = done ? undefined : values[t + 1];
    if (q) turn.q = q[t];
    if (off) {
      if (tokenValues) turn.tokenValues = tokenValues.subarray(off[t], off[t + 1]);
      if (criticLogprobs) turn.criticLogprobs = criticLogprobs.subarray(off[t], off[t + 1]);
      if (refLogprobs) turn.refLogprobs = refLogprobs.subarray(off[t], off[t + 1]);
    }
    visit(turn);
  }
}

/** The batch credit of an episode: every turn pushed into `inc` (built with V(s_0) = values[0] where it needs one), then read once. */
export function fold(inc: IncrementalCredit, input: EpisodeCreditInput): CreditResult {
  forEachTurn(input, (turn) => inc.push(turn));
  return inc.result();
}

/** A float64 buffer of at least `atLeast` (and twice the old) length, keeping its contents. */
export function grow(a: Float64Array<ArrayBuffer>, atLeast = 0): Float64Array<ArrayBuffer> {
  const out = new Float64Array(Math.max(atLeast, a.length * 2));
  out.set(a);
  return out;
}
