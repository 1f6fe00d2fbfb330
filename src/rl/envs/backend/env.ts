// `backend` (ColBench backend, SWEET-RL arXiv 2503.15478, scaled): the collaborator knows a reference
// function in our expression language; the agent asks about the hidden parameters, then answers
// with `I WANT TO ANSWER:` and one expression; reward = fraction of hidden tests passed, success =
// all. Agent code is parsed and interpreted with limits (lexer.ts), never eval'd.
import { BaseEnv, stepInfo, type Action } from '../base.ts';
import { optionsJson, resolveOptions, type OptionBound } from '../options.ts';
import { drawForSplit } from '../split.ts';
import type { JsonObject, StepResult, Task, TaskSpec } from '../types.ts';
import type { Rng } from '../../util/rng.ts';
import { CANONICAL_PHRASINGS, choosePhrasing, fillStatement, fillUnsure, type BackendPhrasings } from '../phrasings.ts';
import { DslError } from './lexer.ts';
import { parse } from './parser.ts';
import { evaluateExpr, run, sameValue, type Value } from './interp.ts';
import { freeValuesOf, TEMPLATES, type Template } from './templates.ts';
import { ANSWER_MARKER } from '../colbench.ts';

export interface BackendOptions {
  [k: string]: number;
  /** Turn limit T (questions plus the answer; ColBench: 10). */
  maxTurns: number;
  /** Hidden test cases per task. */
  tests: number;
  /** Simulated collaborator's error rate: half wrong numbers, half "I am not sure". */
  noise: number;
  /**
   * Share of tasks whose parameters take free values (templates.ts freeValuesOf: any whole number in
   * a range three times the template's list, more words) instead of the template's list: data that
   * makes a learner copy the collaborator's numbers rather than recall the likely ones. 0 (default)
   * draws exactly the tasks it always drew.
   */
  freeValues: number;
}
export const BACKEND_DEFAULTS: BackendOptions = { maxTurns: 10, tests: 8, noise: 0, freeValues: 0 };
const BOUNDS: { [K in keyof BackendOptions]: OptionBound } = {
  maxTurns: { min: 1, max: 40, integer: true },
  tests: { min: 1, max: 64, integer: true },
  noise: { min: 0, max: 1, integer: false },
  freeValues: { min: 0, max: 1, integer: false },
};

export type TestCase = { inputs: Record<string, Value>; expected: Value };

/** Which of the template's parameters a question mentions. */
export function mentionedParams(t: Template, question: string): string[] {
  const q = question.toLowerCase();
  return t.params.filter((p) => new RegExp(`(^|[^a-z])${p.name}([^a-z]|$)`).test(q)).map((p) => p.name);
}

function makeTests(rng: Rng, t: Template, params: Record<string, Value>, n: number, reference: string): TestCase[] {
  const edges = t.params.filter((p) => p.edge).map((p) => params[p.name]);
  const out: TestCase[] = [];
  for (let i = 0; out.length < n && i < n * 4; i++) {
    const inputs: Record<string, Value> = {};
    t.args.forEach((a, j) => {
      if ('choices' in a) inputs[a.name] = rng.pick(a.choices);
      else if (j === 0 && i < edges.length && typeof edges[i] === 'number' && (edges[i] as number) >= a.lo && (edges[i] as number) <= a.hi)
        inputs[a.name] = edges[i];
      else inputs[a.name] = rng.range(a.lo, a.hi);
    });
    out.push({ inputs, expected: run(reference, inputs) });
  }
  return out;
}

/** Runs code on the tests: passes counted, first error message (code never executes outside the interpreter). */
export function scoreCode(code: string, tests: readonly TestCase[]): { passed: number; error: string | null; kind: DslError['code'] | null } {
  let expr;
  try {
    expr = parse(code);
  } catch (e) {
    return { passed: 0, error: (e as Error).message, kind: e instanceof DslError ? e.code : 'syntax' };
  }
  let passed = 0;
  let error: string | null = null;
  let kind: DslError['code'] | null = null;
  for (const t of tests) {
    try {
      if (sameValue(evaluateExpr(expr, t.inputs), t.expected)) passed++;
    } catch (e) {
      error ??= (e as Error).message;
      kind ??= e instanceof DslError ? e.code : 'runtime';
    }
  }
  return { passed, error, kind };
}

export class BackendEnv extends BaseEnv {
  readonly family = 'backend' as const;
  protected readonly maxMessageChars = 4000;
  /** @param phrasings how the simulated collaborator words its answers (phrasings.ts; default canonical). */
  constructor(private readonly phrasings: BackendPhrasings = CANONICAL_PHRASINGS.backend) {
    super();
  }
  private opts: BackendOptions = BACKEND_DEFAULTS;
  private template: Template = TEMPLATES[0];
  private params: Record<string, Value> = {};
  private tests: TestCase[] = [];
  private asked = new Set<string>();

  protected start(spec: TaskSpec): Task {
    this.opts = resolveOptions('backend', BACKEND_DEFAULTS, BOUNDS, spec.options);
    const { value, key } = drawForSplit(
      this.taskRng('task'),
      spec.split,
      (r) => {
        const t = r.pick(TEMPLATES);
        // no draw at freeValues 0, so the default tasks stay exactly what they were
        const free = this.opts.freeValues > 0 && r.chance(this.opts.freeValues);
        const params: Record<string, Value> = {};
        for (const p of t.params) params[p.name] = r.pick(free ? freeValuesOf(p) : p.values);
        return { t, params };
      },
      (v) => `${v.t.fn}|${JSON.stringify(v.params)}`,
    );
    this.template = value.t;
    this.params = value.params;
    this.asked = new Set();
    const reference = value.t.code(value.params);
    this.tests = makeTests(this.taskRng('tests'), value.t, value.params, this.opts.tests, reference);
    const t = value.t;
    const args = t.args.map((a) => a.name).join(', ');
    return {
      spec: { family: 'backend', split: spec.split, seed: spec.seed, options: optionsJson(this.opts) },
      prompt:
        `Write a function ${t.fn}(${args}). ${t.description} Ask me about: ${t.params.map((p) => p.name).join(', ')}. ` +
        `When ready, reply with ${ANSWER_MARKER} followed by one expression over ${args}. You have ${this.opts.maxTurns} turns.`,
      hidden: { fn: t.fn, params: { ...value.params }, reference, tests: this.tests.map((c) => ({ inputs: { ...c.inputs }, expected: c.expected })) },
      maxTurns: this.opts.maxTurns,
      key,
    };
  }

  protected act(message: string): Action {
    const at = message.toUpperCase().indexOf(ANSWER_MARKER);
    if (at >= 0) return { kind: 'done', result: this.answer(message.slice(at + ANSWER_MARKER.length)) };
    if (message.trim() === '') {
      return {
        kind: 'done',
        result: {
          observation: `Please ask a question or answer. Turns left: ${this.opts.maxTurns - this.turn}.`,
          reward: 0,
          done: false,
          info: stepInfo('invalid-format', {}, true),
        },
      };
    }
    const names = mentionedParams(this.template, message);
    return {
      kind: 'reply',
      parsed: { kind: 'question', params: names },
      suggestion: this.simulatedReply(names),
      finish: (reply) => this.finishQuestion(names, reply),
    };
  }

  private simulatedReply(names: string[]): string {
    const r = this.rng;
    const say = this.phrasings;
    if (names.length === 0) return choosePhrasing(r, say.unknown);
    return names
      .map((n) => {
        const p = this.template.params.find((q) => q.name === n)!;
        let v = this.params[n];
        if (r.chance(this.opts.noise)) {
          if (r.chance(0.5)) return fillUnsure(choosePhrasing(r, say.unsure), n);
          v = r.pick(p.values.filter((x) => x !== v).concat([v]));
        }
        return fillStatement(choosePhrasing(r, say.statement), n, v, p.unit);
      })
      .join(' ');
  }

  private finishQuestion(names: string[], reply: string): StepResult {
    const repeated = names.length > 0 && names.every((n) => this.asked.has(n));
    for (const n of names) this.asked.add(n);
    const fields: JsonObject = { params: names, useless: names.length === 0, repeated };
    return { observation: `${reply} Turns left: ${this.opts.maxTurns - this.turn}.`, reward: 0, done: false, info: stepInfo('question', fields) };
  }

  private answer(raw: string): StepResult {
    const code = raw.replace(/```[a-z]*/gi, '').trim();
    const { passed, error, kind } = scoreCode(code, this.tests);
    const total = this.tests.length;
    const success = passed === total;
    const fields: JsonObject = { testsPassed: passed, testsTotal: total, error, errorKind: kind };
    const reason = kind === 'syntax' || kind === 'limit' ? 'code-error' : 'answer';
    return {
      observation: `${passed} of ${total} tests passed.${error ? ` Error: ${error}` : ''}`,
      reward: passed / total,
      done: true,
      info: stepInfo(reason, fields, false, success),
    };
  }
}
