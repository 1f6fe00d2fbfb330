// Interpreter of the backend expression language: values are numbers, strings and booleans; no
// loops, no user functions, no host access. Every run is bounded by DSL_LIMITS.steps node visits and
// DSL_LIMITS.stringChars per string; non-finite numbers and type mismatches are runtime errors.
import { DslError, DSL_LIMITS } from './lexer.ts';
import { parse, type Expr } from './parser.ts';

export type Value = number | string | boolean;
export type Scope = Readonly<Record<string, Value>>;

const typeOf = (v: Value) => typeof v;

function num(v: Value, what: string): number {
  if (typeof v !== 'number') throw new DslError('runtime', `${what} needs a number, got ${typeOf(v)}`);
  return v;
}
function str(v: Value, what: string): string {
  if (typeof v !== 'string') throw new DslError('runtime', `${what} needs a string, got ${typeOf(v)}`);
  return v;
}
function bool(v: Value, what: string): boolean {
  if (typeof v !== 'boolean') throw new DslError('runtime', `${what} needs a boolean, got ${typeOf(v)}`);
  return v;
}
function finite(x: number, what: string): number {
  if (!Number.isFinite(x)) throw new DslError('runtime', `${what} gave a non-finite number`);
  return x;
}
function short(s: string): string {
  if (s.length > DSL_LIMITS.stringChars) throw new DslError('limit', `string longer than ${DSL_LIMITS.stringChars} characters`);
  return s;
}

/** Builtins: name → [min args, max args, implementation]. */
const BUILTINS: Record<string, [number, number, (a: Value[]) => Value]> = {
  min: [1, 8, (a) => Math.min(...a.map((x) => num(x, 'min')))],
  max: [1, 8, (a) => Math.max(...a.map((x) => num(x, 'max')))],
  abs: [1, 1, (a) => Math.abs(num(a[0], 'abs'))],
  floor: [1, 1, (a) => Math.floor(num(a[0], 'floor'))],
  ceil: [1, 1, (a) => Math.ceil(num(a[0], 'ceil'))],
  round: [
    1,
    2,
    (a) => {
      const d = a.length > 1 ? Math.trunc(num(a[1], 'round')) : 0;
      if (d < 0 || d > 10) throw new DslError('runtime', 'round digits must be in [0, 10]');
      const f = 10 ** d;
      return Math.round(num(a[0], 'round') * f) / f;
    },
  ],
  clamp: [3, 3, (a) => Math.min(Math.max(num(a[0], 'clamp'), num(a[1], 'clamp')), num(a[2], 'clamp'))],
  len: [1, 1, (a) => str(a[0], 'len').length],
  upper: [1, 1, (a) => str(a[0], 'upper').toUpperCase()],
  lower: [1, 1, (a) => str(a[0], 'lower').toLowerCase()],
  str: [1, 1, (a) => short(String(a[0]))],
  repeat: [
    2,
    2,
    (a) => {
      const s = str(a[0], 'repeat');
      const n = Math.trunc(num(a[1], 'repeat'));
      if (n < 0) throw new DslError('runtime', 'repeat count must be >= 0');
      if (s.length * n > DSL_LIMITS.stringChars) throw new DslError('limit', `string longer than ${DSL_LIMITS.stringChars} characters`);
      return s.repeat(n);
    },
  ],
};

class Machine {
  private steps = 0;
  constructor(private readonly env: Scope) {}

  run(e: Expr): Value {
    if (++this.steps > DSL_LIMITS.steps) throw new DslError('limit', `more than ${DSL_LIMITS.steps} evaluation steps`);
    switch (e.k) {
      case 'lit':
        return e.v;
      case 'var':
        if (!Object.prototype.hasOwnProperty.call(this.env, e.name)) throw new DslError('runtime', `unknown name "${e.name}"`);
        return this.env[e.name];
      case 'un':
        return e.op === '-' ? -num(this.run(e.e), 'minus') : !bool(this.run(e.e), 'not');
      case 'if':
        return bool(this.run(e.c), 'if') ? this.run(e.t) : this.run(e.e);
      case 'call': {
        const f = Object.prototype.hasOwnProperty.call(BUILTINS, e.name) ? BUILTINS[e.name] : undefined;
        if (!f) throw new DslError('runtime', `unknown function "${e.name}"`);
        if (e.args.length < f[0] || e.args.length > f[1]) throw new DslError('runtime', `${e.name} takes ${f[0]}${f[1] > f[0] ? `–${f[1]}` : ''} arguments`);
        const out = f[2](e.args.map((a) => this.run(a)));
        return typeof out === 'number' ? finite(out, e.name) : out;
      }
      case 'bin':
        return this.binary(e.op, e.a, e.b);
    }
  }

  private binary(op: string, ea: Expr, eb: Expr): Value {
    if (op === 'and') return bool(this.run(ea), 'and') ? bool(this.run(eb), 'and') : false;
    if (op === 'or') return bool(this.run(ea), 'or') ? true : bool(this.run(eb), 'or');
    const a = this.run(ea);
    const b = this.run(eb);
    if (op === '==' || op === '!=') {
      if (typeof a !== typeof b) throw new DslError('runtime', `cannot compare ${typeOf(a)} with ${typeOf(b)}`);
      return (a === b) === (op === '==');
    }
    if (op === '+' && typeof a === 'string') return short(a + str(b, '+'));
    if (['<', '<=', '>', '>='].includes(op)) {
      if (typeof a !== typeof b || typeof a === 'boolean') throw new DslError('runtime', `cannot order ${typeOf(a)} and ${typeOf(b)}`);
      const x = a as number | string;
      const y = b as number | string;
      return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
    }
    const x = num(a, op);
    const y = num(b, op);
    if ((op === '/' || op === '%') && y === 0) throw new DslError('runtime', 'division by zero');
    const r = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : op === '/' ? x / y : x % y;
    return finite(r, op);
  }
}

/** Evaluates a parsed expression with the given named inputs. */
export function evaluateExpr(expr: Expr, env: Scope): Value {
  return new Machine(env).run(expr);
}

/** Parses and evaluates source text. */
export function run(source: string, env: Scope): Value {
  return evaluateExpr(parse(source), env);
}

/** Equality of results as the tests judge it: numbers within 1e-6 relative, others exactly. */
export function sameValue(a: Value, b: Value): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
  return a === b;
}
