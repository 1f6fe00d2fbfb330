// What an algorithm is, in one object (issue #44): its name and label, the paper's defaults of its
// config section and that section's schema (validateLoopConfig derives its checks from it), whether a
// run needs the critic, its learning rate, its Train-view fields and its factory. The registry
// (registry.ts) lists the specs; the Train view's form, the CLI's usage and the config checks read
// them, as the credit estimators' registry (credit/registry.ts) is read for theirs. To add an
// algorithm: one file in specs/ plus one line in registry.ts.
import * as v from 'valibot';
import type { JsonValue } from '../util/json.ts';
import type { Algorithm } from './algorithm.ts';
import type { AlgoContext } from './context.ts';

/** A value of a Train-view field. */
export type FormValue = number | boolean | string;

/** The Train view's field values, by field key (a key may be unset). */
export type FormValues = Partial<Record<string, FormValue>>;

interface FieldBase<C> {
  /** The form's key (the Train view's state and its tests name it). */
  key: string;
  label: string;
  /** One line: what it does, with the paper's (or our) default. */
  help: string;
  /** The input's data-testid. */
  testid: string;
  /** Shown only while another field's value is one of these (e.g. the step weight while step credit is on). */
  showIf?: { key: string; is: readonly string[] };
  /** The field's value for a section (default: the section's field of the same name, `field`). */
  read(c: C): FormValue;
  /** The section fields the form's values stand for (default: `{[field]: values[key]}`); {} when another field writes it. */
  write?(values: FormValues): Record<string, JsonValue>;
}

/** A number input. */
interface NumberField<C> extends FieldBase<C> {
  kind: 'number';
  min?: number;
  max?: number;
  step: number;
}

/** A checkbox. */
interface BooleanField<C> extends FieldBase<C> {
  kind: 'boolean';
}

/** A select. */
interface ChoiceField<C> extends FieldBase<C> {
  kind: 'choice';
  options: readonly { value: string; label: string }[];
}

export type FormField<C = object> = NumberField<C> | BooleanField<C> | ChoiceField<C>;

/**
 * One training algorithm. `S` is its config section (`--config '{"<S>": {...}}'`; algorithms that share
 * an implementation share it, as StarPO-S, PPO and GRPO share 'starpo'), `C` that section's type.
 */
export interface AlgoSpec<N extends string = string, S extends string = string, C extends object = object> {
  name: N;
  /** Short label (the run summary). */
  label: string;
  /** One line for the Train view's picker and the CLI's usage: what it does, and the paper. */
  summary: string;
  section: S;
  /** The paper's defaults of the section. */
  defaults: C;
  /**
   * The section's checks (valibot; a looseObject, so that checks over several fields see the ones it
   * does not check); the first failing one's message is validateLoopConfig's AlgoError.
   */
  schema: v.GenericSchema<unknown, unknown>;
  /** Default policy learning rate (AdamW). */
  lr: number;
  /** Whether a run with this section needs the critic model. */
  needsCritic(c: C): boolean;
  /** The Train view's "Turn-level credit" fields of this algorithm, in order. */
  fields: readonly FormField<C>[];
  /** The run summary's words for a resolved section (after the label). */
  describe(c: C): string[];
  /** Builds the algorithm and its learners. */
  create(ctx: AlgoContext, c: C): Promise<Algorithm>;
}

/** A field that is the section's field `field` (form key `key`, default the same). */
export function sectionField<C extends object>(
  field: keyof C & string,
  f: Omit<NumberField<C>, 'read' | 'write'> | Omit<BooleanField<C>, 'read' | 'write'> | Omit<ChoiceField<C>, 'read' | 'write'>,
): FormField<C> {
  return { ...f, read: (c: C) => c[field] as FormValue, write: (values: FormValues) => ({ [field]: values[f.key] as FormValue }) } as FormField<C>;
}

/** The section fields a form's values stand for, over the fields given. */
export function writeFields<C>(fields: readonly FormField<C>[], values: FormValues): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const f of fields) Object.assign(out, f.write ? f.write(values) : { [f.key]: values[f.key] as FormValue });
  return out;
}

// Checks with the messages validateLoopConfig has always given (tests check them).

/** A number > 0 (finite; whole with `integer`): "<field> must be a positive integer|number, got <v>". */
export function positive(field: string, integer = false) {
  return v.pipe(
    v.number(),
    v.check(
      (x: number) => x > 0 && Number.isFinite(x) && (!integer || Number.isInteger(x)),
      (i) => `${field} must be a positive ${integer ? 'integer' : 'number'}, got ${String(i.input)}`,
    ),
  );
}

/** A finite number ≥ 0 where 0 turns the feature off. */
export function offOrPositive(field: string) {
  return v.pipe(
    v.number(),
    v.check(
      (x: number) => x >= 0 && Number.isFinite(x),
      (i) => `${field} must be a finite number ≥ 0 (0 = off), got ${String(i.input)}`,
    ),
  );
}

/** A number that passes `ok`, else `message(value)`. */
export function numberThat(ok: (x: number) => boolean, message: (x: unknown) => string) {
  return v.pipe(
    v.number(),
    v.check(ok, (i) => message(i.input)),
  );
}

/** One of `values`, else `message(value)`. */
export function oneOf(values: readonly string[], message: (x: unknown) => string) {
  return v.pipe(
    v.string(),
    v.check(
      (x: string) => values.includes(x),
      (i) => message(i.input),
    ),
  );
}

/** The first failing check's message of `value` against a spec's schema, or null. */
export function firstIssue(schema: v.GenericSchema<unknown, unknown>, value: unknown): string | null {
  const r = v.safeParse(schema, value);
  return r.success ? null : (r.issues[0]?.message ?? 'invalid');
}
