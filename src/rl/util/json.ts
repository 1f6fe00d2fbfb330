// JSON as plain data, defined once for every layer: the value types, and the checks an import or a
// schema runs on untrusted JSON (finite numbers only, bounded nesting, plain objects only, so
// nothing with a prototype of its own gets through).

/** Anything JSON can carry: hidden task information, turn info, run settings, estimator params. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Deepest accepted JSON nesting (objects and arrays). */
export const JSON_MAX_DEPTH = 64;

/** True for a JSON value whose numbers are finite (JSON.parse turns 1e999 into Infinity). Depth ≤ JSON_MAX_DEPTH + 1. */
export function isJsonValue(x: unknown, depth = 0): x is JsonValue {
  if (x === null || typeof x === 'string' || typeof x === 'boolean') return true;
  if (typeof x === 'number') return Number.isFinite(x);
  if (typeof x !== 'object' || depth > JSON_MAX_DEPTH) return false;
  if (Array.isArray(x)) return x.every((y) => isJsonValue(y, depth + 1));
  if (Object.getPrototypeOf(x) !== Object.prototype) return false;
  for (const k in x) if (!isJsonValue((x as Record<string, unknown>)[k], depth + 1)) return false;
  return true;
}

/** True for an object that is not null or an array (a parsed JSON object's shape; its values unchecked). */
export const isPlainObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** True for a list of int32 values (token ids). */
export const isInt32List = (x: unknown): x is number[] => Array.isArray(x) && x.every((t) => Number.isInteger(t) && t >= -2147483648 && t <= 2147483647);

/** True for a list of finite numbers. */
export const isFiniteList = (x: unknown): x is number[] => Array.isArray(x) && x.every((t) => typeof t === 'number' && Number.isFinite(t));
