// The shape of the lab's named errors: a class per module (its `name` survives comlink and
// structured clone, so callers branch on `name` and `code`, never on instanceof; docs/style.md point 4)
// with a machine-readable code beside the message that tests check.

/** A named error with a code; subclasses set `name` and narrow `C`. */
export class CodedError<C extends string> extends Error {
  constructor(
    readonly code: C,
    message: string,
  ) {
    super(message);
  }
}
