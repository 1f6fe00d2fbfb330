// Family options: typed defaults per family, overridden by TaskSpec.options and validated once
// where a task enters (reset). Only numbers are options, so specs stay small plain JSON.
import { EnvError, type JsonObject } from './types.ts';

/** Bounds for one numeric option. */
export interface OptionBound {
  min: number;
  max: number;
  /** True when only integers are allowed. */
  integer: boolean;
}

/** Merges overrides into defaults; unknown keys, non-numbers and out-of-range values throw EnvError. */
export function resolveOptions<O extends { [k: string]: number }>(
  family: string,
  defaults: O,
  bounds: { [K in keyof O]: OptionBound },
  overrides: JsonObject | undefined,
): O {
  const out: { [k: string]: number } = { ...defaults };
  for (const [k, v] of Object.entries(overrides ?? {})) {
    if (!(k in defaults)) throw new EnvError(`${family}: unknown option "${k}" (known: ${Object.keys(defaults).join(', ')})`);
    const b = bounds[k as keyof O];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < b.min || v > b.max || (b.integer && !Number.isInteger(v))) {
      throw new EnvError(`${family}: option "${k}" must be ${b.integer ? 'an integer' : 'a number'} in [${b.min}, ${b.max}], got ${JSON.stringify(v)}`);
    }
    out[k] = v;
  }
  return out as O;
}

/**
 * The options as a plain JSON object (for Task.spec.options). An option `later.keys` names (guess's pool,
 * sokoban's offsets, frontend's drills) appears only when it differs from its value in `later.defaults`,
 * so that tasks without it read as before it existed.
 */
export function optionsJson<O extends { [k: string]: number }>(options: O, later?: { keys: readonly (keyof O & string)[]; defaults: O }): JsonObject {
  return Object.fromEntries(Object.entries(options).filter(([k, v]) => !later?.keys.includes(k) || v !== later.defaults[k]));
}
