// Named errors of the inference engine. Each is its own class with its own `name`, because comlink
// carries only `name` and `message` of a thrown Error across the worker boundary (docs/style.md point 4:
// callers branch on `name`, never on `instanceof`). Messages state the rule that was broken.

/** Base class; never thrown directly. */
export class EngineError extends Error {}

/** A prompt that leaves no room in the model's context window. Turnwise refuses; it never truncates silently. */
export class PromptTooLongError extends EngineError {
  constructor(
    readonly promptTokens: number,
    readonly maxSeq: number,
    message: string,
  ) {
    super(message);
    this.name = 'PromptTooLongError';
  }
}

/** A sampling parameter outside its range. `field` names it. */
export class SamplingParamsError extends EngineError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'SamplingParamsError';
  }
}

/** A request that is malformed in some other way (empty batch, bad token ids, bad continuation). */
export class EngineInputError extends EngineError {
  constructor(message: string) {
    super(message);
    this.name = 'EngineInputError';
  }
}

/** A call after `dispose()`, or before a model was loaded. */
export class EngineDisposedError extends EngineError {
  constructor(message: string) {
    super(message);
    this.name = 'EngineDisposedError';
  }
}

/** A model name that is not loaded. */
export class ModelNotLoadedError extends EngineError {
  constructor(
    readonly model: string,
    message: string,
  ) {
    super(message);
    this.name = 'ModelNotLoadedError';
  }
}

/** An adapter whose shapes do not fit the model's adapter slot, or an unknown adapter id. */
export class AdapterError extends EngineError {
  constructor(message: string) {
    super(message);
    this.name = 'AdapterError';
  }
}

/** A request cancelled by `cancel(id)` or superseded by a newer request on the same channel. */
export class CancelledError extends EngineError {
  constructor(
    readonly requestId: string,
    readonly reason: 'cancelled' | 'superseded' | 'disposed',
    message: string,
  ) {
    super(message);
    this.name = 'CancelledError';
  }
}
