// backend: the expression language by hand and by property (fast-check: round trip against a
// printer, equivalence with a reference evaluator, and "any text ends in a value or a DslError"),
// plus templates, collaborator and scoring.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BackendEnv, mentionedParams, scoreCode } from '../../../src/rl/envs/backend/env.ts';
import { readValue } from '../../../src/rl/envs/backend/agents.ts';
import { run } from '../../../src/rl/envs/backend/interp.ts';
import { DslError } from '../../../src/rl/envs/backend/lexer.ts';
import { parse, type Expr } from '../../../src/rl/envs/backend/parser.ts';
import { freeValuesOf, TEMPLATES } from '../../../src/rl/envs/backend/templates.ts';

const err = (src: string, env = {}) => {
  try {
    run(src, env);
  } catch (e) {
    return e as DslError;
  }
  throw new Error('no error');
};

describe('expression language by hand', () => {
  it('evaluates precedence, strings, booleans and builtins', () => {
    expect(run('1 + 2 * 3', {})).toBe(7);
    expect(run('(1 + 2) * 3', {})).toBe(9);
    expect(run('-2 * 3 - -1', {})).toBe(-5);
    expect(run('10 % 4', {})).toBe(2);
    expect(run('if x > 2 then "big" else "small"', { x: 3 })).toBe('big');
    expect(run('not (1 < 2) or 2 >= 2 and true', {})).toBe(true);
    expect(run('"hi, " + upper(name)', { name: 'bo' })).toBe('hi, BO');
    expect(run('round(2.345, 2) + max(1, 5, 3) + clamp(12, 0, 10)', {})).toBeCloseTo(2.35 + 5 + 10, 12);
    expect(run('floor(7 / 2) + ceil(0.5) + abs(-3) + len("abc")', {})).toBe(3 + 1 + 3 + 3);
  });

  it('raises named errors with clear messages', () => {
    expect(err('1 / 0')).toMatchObject({ name: 'DslError', code: 'runtime', message: 'division by zero' });
    expect(err('y + 1')).toMatchObject({ code: 'runtime', message: 'unknown name "y"' });
    expect(err('eval("1")')).toMatchObject({ code: 'runtime', message: 'unknown function "eval"' });
    expect(err('constructor')).toMatchObject({ code: 'runtime', message: 'unknown name "constructor"' });
    expect(err('toString(1)')).toMatchObject({ code: 'runtime', message: 'unknown function "toString"' });
    expect(err('1 +')).toMatchObject({ code: 'syntax', message: 'unexpected end of code' });
    expect(err('1 + "a"')).toMatchObject({ code: 'runtime', message: '+ needs a number, got string' });
    expect(err('if 1 then 2 else 3')).toMatchObject({ code: 'runtime', message: 'if needs a boolean, got number' });
    expect(err('1e308 * 10')).toMatchObject({ code: 'runtime', message: '* gave a non-finite number' });
    expect(err('repeat("ab", 600)')).toMatchObject({ code: 'limit' });
    expect(err('('.repeat(100) + '1' + ')'.repeat(100))).toMatchObject({ code: 'limit', message: 'expression nested too deeply (limit 48)' });
    expect(err('1'.repeat(3000))).toMatchObject({ code: 'limit' });
  });
});

// A second implementation for the equivalence property: integer arithmetic and conditionals.
type T =
  { k: 'n'; v: number } | { k: 'x' } | { k: 'b'; op: '+' | '-' | '*'; a: T; b: T } | { k: 'neg'; e: T } | { k: 'if'; op: '<' | '=='; a: T; b: T; t: T; e: T };
const tree: fc.Arbitrary<T> = fc.letrec<{ t: T }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ k: fc.constant('n' as const), v: fc.integer({ min: 0, max: 50 }) }),
    fc.record({ k: fc.constant('x' as const) }),
    fc.record({ k: fc.constant('b' as const), op: fc.constantFrom('+' as const, '-' as const, '*' as const), a: tie('t'), b: tie('t') }),
    fc.record({ k: fc.constant('neg' as const), e: tie('t') }),
    fc.record({ k: fc.constant('if' as const), op: fc.constantFrom('<' as const, '==' as const), a: tie('t'), b: tie('t'), t: tie('t'), e: tie('t') }),
  ),
})).t;
const print = (t: T): string =>
  t.k === 'n'
    ? String(t.v)
    : t.k === 'x'
      ? 'x'
      : t.k === 'neg'
        ? `(-${print(t.e)})`
        : t.k === 'b'
          ? `(${print(t.a)} ${t.op} ${print(t.b)})`
          : `(if ${print(t.a)} ${t.op} ${print(t.b)} then ${print(t.t)} else ${print(t.e)})`;
const reference = (t: T, x: number): number =>
  t.k === 'n'
    ? t.v
    : t.k === 'x'
      ? x
      : t.k === 'neg'
        ? -reference(t.e, x)
        : t.k === 'b'
          ? t.op === '+'
            ? reference(t.a, x) + reference(t.b, x)
            : t.op === '-'
              ? reference(t.a, x) - reference(t.b, x)
              : reference(t.a, x) * reference(t.b, x)
          : (t.op === '<' ? reference(t.a, x) < reference(t.b, x) : reference(t.a, x) === reference(t.b, x))
            ? reference(t.t, x)
            : reference(t.e, x);
const toExpr = (t: T): Expr =>
  t.k === 'n'
    ? { k: 'lit', v: t.v }
    : t.k === 'x'
      ? { k: 'var', name: 'x' }
      : t.k === 'neg'
        ? { k: 'un', op: '-', e: toExpr(t.e) }
        : t.k === 'b'
          ? { k: 'bin', op: t.op, a: toExpr(t.a), b: toExpr(t.b) }
          : { k: 'if', c: { k: 'bin', op: t.op, a: toExpr(t.a), b: toExpr(t.b) }, t: toExpr(t.t), e: toExpr(t.e) };

describe('expression language properties (fast-check)', () => {
  it('agrees with a reference evaluator on generated integer programs', () => {
    // what became of each generated case: the property passes vacuously if too few are compared
    const cases = { compared: 0, tooLong: 0, limit: 0, notFinite: 0 };
    fc.assert(
      fc.property(tree, fc.integer({ min: -20, max: 20 }), (t, x) => {
        const src = print(t);
        if (src.length > 2000) return void cases.tooLong++;
        let got: unknown;
        try {
          got = run(src, { x });
        } catch (e) {
          expect(e).toBeInstanceOf(DslError); // only limits (depth, size) may stop a valid program
          expect((e as DslError).code).toBe('limit');
          return void cases.limit++;
        }
        const want = reference(t, x);
        if (!Number.isFinite(want)) return void cases.notFinite++;
        expect((got as number) + 0).toBe(want + 0); // +0 folds −0
        cases.compared++;
      }),
      { numRuns: 300, seed: 42 },
    );
    expect(cases.compared + cases.tooLong + cases.limit + cases.notFinite).toBe(300);
    expect(cases.compared, JSON.stringify(cases)).toBeGreaterThanOrEqual(290); // 300 of 300 with seed 42
  });

  it('parses printed programs back into the generating tree', () => {
    let parsed = 0;
    fc.assert(
      fc.property(tree, (t) => {
        const src = print(t);
        if (src.length > 2000) return;
        let tree: Expr;
        try {
          tree = parse(src);
        } catch (e) {
          expect((e as DslError).code).toBe('limit');
          return;
        }
        expect(tree).toEqual(toExpr(t));
        parsed++;
      }),
      { numRuns: 200, seed: 7 },
    );
    expect(parsed).toBeGreaterThanOrEqual(190); // 200 of 200 with seed 7
  });

  it('any text ends in a value or a DslError, never another exception', () => {
    const vocab = fc.constantFrom(
      'if',
      'then',
      'else',
      'and',
      'or',
      'not',
      '(',
      ')',
      ',',
      '+',
      '-',
      '*',
      '/',
      '%',
      '==',
      '<',
      '1',
      '0',
      '1e308',
      '"s"',
      'x',
      'repeat',
      'max',
      'round',
      'len',
      'upper',
      'true',
      '__proto__',
      'constructor',
    );
    const soup = fc.array(vocab, { maxLength: 60 }).map((a) => a.join(' '));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), soup), (src) => {
        try {
          const v = run(src, { x: 1 });
          expect(['number', 'string', 'boolean']).toContain(typeof v);
        } catch (e) {
          expect(e).toBeInstanceOf(DslError);
        }
      }),
      { numRuns: 1000, seed: 3 },
    );
  });
});

describe('templates and the environment', () => {
  it('ships at least 25 templates whose references pass their own tests', () => {
    expect(TEMPLATES.length).toBeGreaterThanOrEqual(25);
    const env = new BackendEnv();
    const seen = new Set<string>();
    for (let seed = 0; seed < 300; seed++) {
      const task = env.reset({ family: 'backend', split: seed % 2 ? 'train' : 'test', seed });
      seen.add(task.hidden.fn as string);
      const tests = task.hidden.tests as { inputs: Record<string, number | string>; expected: number | string | boolean }[];
      expect(scoreCode(task.hidden.reference as string, tests)).toEqual({ passed: tests.length, error: null, kind: null });
    }
    expect(seen.size).toBe(TEMPLATES.length);
  });

  it('the collaborator answers from the hidden parameters and says when it does not know', () => {
    const env = new BackendEnv();
    const task = env.reset({ family: 'backend', split: 'test', seed: 12 });
    const params = task.hidden.params as Record<string, number | string>;
    const [name] = Object.keys(params);
    const r = env.step(`What is the ${name}?`);
    expect(readValue(r.observation)).toBe(params[name]);
    expect(r.info).toMatchObject({ reason: 'question', useless: false });
    expect(env.step('What colour is the sky?').observation).toMatch(/^(I don't know\.|I can only tell you about the numbers I listed\.)/);
    expect(mentionedParams(TEMPLATES[0], 'what is the discount and the threshold?')).toEqual(['discount', 'threshold']);
  });

  it('scores an answer by the fraction of tests passed', () => {
    const env = new BackendEnv();
    const task = env.reset({ family: 'backend', split: 'test', seed: 13 });
    const right = env.step(`I WANT TO ANSWER: ${task.hidden.reference}`);
    expect(right).toMatchObject({ reward: 1, done: true, info: { success: true, testsPassed: 8, testsTotal: 8 } });
    env.reset({ family: 'backend', split: 'test', seed: 13 });
    const wrong = env.step('I WANT TO ANSWER: eval("process.exit(1)")');
    expect(wrong).toMatchObject({ reward: 0, done: true, info: { success: false, testsPassed: 0, reason: 'answer', error: 'unknown function "eval"' } });
    env.reset({ family: 'backend', split: 'test', seed: 13 });
    expect(env.step('I WANT TO ANSWER: ((((').info).toMatchObject({ reason: 'code-error', errorKind: 'syntax' });
  });

  it('freeValues draws parameters outside the template lists, keeps references passing, and leaves the default tasks as they were', () => {
    const env = new BackendEnv();
    let outside = 0;
    for (let seed = 0; seed < 300; seed++) {
      const spec = { family: 'backend' as const, split: seed % 2 ? ('train' as const) : ('test' as const), seed };
      const plain = env.reset(spec);
      expect(env.reset({ ...spec, options: { freeValues: 0 } }).hidden).toEqual(plain.hidden);
      const task = env.reset({ ...spec, options: { freeValues: 1 } });
      const template = TEMPLATES.find((t) => t.fn === task.hidden.fn)!;
      const params = task.hidden.params as Record<string, number | string>;
      for (const p of template.params) {
        expect(freeValuesOf(p)).toContain(params[p.name]);
        if (!p.values.includes(params[p.name])) outside++;
      }
      const tests = task.hidden.tests as { inputs: Record<string, number | string>; expected: number | string | boolean }[];
      expect(scoreCode(task.hidden.reference as string, tests)).toEqual({ passed: tests.length, error: null, kind: null });
    }
    expect(outside).toBeGreaterThan(300);
    expect(freeValuesOf(TEMPLATES.find((t) => t.fn === 'savings')!.params[1])).toEqual(Array.from({ length: 190 }, (_, i) => i + 1));
    expect(() => env.reset({ family: 'backend', split: 'train', seed: 1, options: { freeValues: 2 } })).toThrow(/freeValues/);
  });
});
