// A tiny renderer for the subset of Jinja2 that chat templates like ours use, so the chat_template
// string written into tokenizer_config.json can be checked in TypeScript against the engine's own
// prompt layout (chat.ts renderChat/encodeChat) without Python. Supported: text; {{ expr }};
// {% for x in expr %}…{% endfor %}; {% if %}/{% elif %}/{% else %}/{% endif %}; {% set x = expr %};
// `-` whitespace control; expressions with string/number/boolean literals, names, `a.b`, `a['b']`,
// `+`, `==`, `!=`, `and`, `or`, `not`, parentheses. Anything else raises JinjaError (never guesses).
// Semantics follow Jinja2: undefined names render as '' and are falsy; `set` inside a loop is local to it.

export class JinjaError extends Error {
  override name = 'JinjaError';
}

type Value = string | number | boolean | null | undefined | Value[] | { [k: string]: Value };
type Scope = Map<string, Value>;

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'out'; expr: string }
  | { kind: 'for'; name: string; iter: string; body: Node[] }
  | { kind: 'if'; branches: { cond: string | null; body: Node[] }[] }
  | { kind: 'set'; name: string; expr: string };

type Tok = { kind: 'text'; text: string } | { kind: 'out' | 'stmt'; text: string };

function lex(src: string): Tok[] {
  const toks: Tok[] = [];
  const re = /\{\{(-?)([\s\S]*?)(-?)\}\}|\{%(-?)([\s\S]*?)(-?)%\}/g;
  let last = 0;
  let trimNext = false;
  for (const m of src.matchAll(re)) {
    let text = src.slice(last, m.index);
    if (trimNext) text = text.replace(/^\s+/, '');
    const trimPrev = (m[1] ?? m[4]) === '-';
    if (trimPrev) text = text.replace(/\s+$/, '');
    if (text) toks.push({ kind: 'text', text });
    toks.push(m[2] !== undefined ? { kind: 'out', text: m[2].trim() } : { kind: 'stmt', text: (m[5] ?? '').trim() });
    trimNext = (m[3] ?? m[6]) === '-';
    last = m.index + m[0].length;
  }
  let tail = src.slice(last);
  if (trimNext) tail = tail.replace(/^\s+/, '');
  if (tail) toks.push({ kind: 'text', text: tail });
  return toks;
}

function parse(toks: Tok[]): Node[] {
  let i = 0;
  const block = (ends: string[]): { nodes: Node[]; end: string } => {
    const nodes: Node[] = [];
    while (i < toks.length) {
      const t = toks[i++];
      if (t.kind === 'text') nodes.push({ kind: 'text', text: t.text });
      else if (t.kind === 'out') nodes.push({ kind: 'out', expr: t.text });
      else {
        const word = t.text.split(/\s+/)[0];
        if (ends.includes(word)) return { nodes, end: t.text };
        if (word === 'for') {
          const m = /^for\s+([A-Za-z_]\w*)\s+in\s+([\s\S]+)$/.exec(t.text);
          if (!m) throw new JinjaError(`bad for: {% ${t.text} %}`);
          nodes.push({ kind: 'for', name: m[1], iter: m[2], body: block(['endfor']).nodes });
        } else if (word === 'if') {
          const branches: { cond: string | null; body: Node[] }[] = [];
          let cond: string | null = t.text.slice(2).trim();
          for (;;) {
            const b = block(['elif', 'else', 'endif']);
            branches.push({ cond, body: b.nodes });
            const w = b.end.split(/\s+/)[0];
            if (w === 'endif') break;
            cond = w === 'elif' ? b.end.slice(4).trim() : null;
          }
          nodes.push({ kind: 'if', branches });
        } else if (word === 'set') {
          const m = /^set\s+([A-Za-z_]\w*)\s*=\s*([\s\S]+)$/.exec(t.text);
          if (!m) throw new JinjaError(`bad set: {% ${t.text} %}`);
          nodes.push({ kind: 'set', name: m[1], expr: m[2] });
        } else throw new JinjaError(`unsupported statement: {% ${t.text} %}`);
      }
    }
    if (ends.length) throw new JinjaError(`missing {% ${ends.join(' / ')} %}`);
    return { nodes, end: '' };
  };
  return block([]).nodes;
}

// ---- expressions: recursive descent over or > and > not > comparison > + > postfix > atom ----------

function evalExpr(src: string, scope: Scope): Value {
  const toks = src.match(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\d+(?:\.\d+)?|[A-Za-z_]\w*|==|!=|[+()[\].]/g) ?? [];
  if (toks.join('').replace(/\s/g, '') !== src.replace(/\s/g, '')) throw new JinjaError(`unsupported expression: ${src}`);
  let p = 0;
  const peek = () => toks[p];
  const eat = (t: string) => {
    if (toks[p] !== t) throw new JinjaError(`expected "${t}" in: ${src}`);
    p++;
  };
  const truthy = (v: Value) => !(v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0));
  const or = (): Value => {
    let v = and();
    while (peek() === 'or') {
      p++;
      const r = and();
      v = truthy(v) ? v : r;
    }
    return v;
  };
  const and = (): Value => {
    let v = not();
    while (peek() === 'and') {
      p++;
      const r = not();
      v = truthy(v) ? r : v;
    }
    return v;
  };
  const not = (): Value => {
    if (peek() === 'not') {
      p++;
      return !truthy(not());
    }
    return cmp();
  };
  const cmp = (): Value => {
    const a = add();
    if (peek() === '==' || peek() === '!=') {
      const op = toks[p++];
      const b = add();
      return op === '==' ? a === b : a !== b;
    }
    return a;
  };
  const add = (): Value => {
    let v = postfix();
    while (peek() === '+') {
      p++;
      const r = postfix();
      if (typeof v === 'number' && typeof r === 'number') v = v + r;
      else if (typeof v === 'string' && typeof r === 'string') v = v + r;
      else throw new JinjaError(`cannot add ${typeof v} and ${typeof r} in: ${src}`);
    }
    return v;
  };
  const member = (v: Value, k: Value): Value => (v !== null && typeof v === 'object' && (typeof k === 'string' || typeof k === 'number') ? (v as Record<string, Value>)[k] : undefined);
  const postfix = (): Value => {
    let v = atom();
    for (;;) {
      if (peek() === '.') {
        p++;
        v = member(v, toks[p++]);
      } else if (peek() === '[') {
        p++;
        const k = or();
        eat(']');
        v = member(v, k);
      } else return v;
    }
  };
  const atom = (): Value => {
    const t = toks[p++];
    if (t === undefined) throw new JinjaError(`unexpected end of: ${src}`);
    if (t === '(') {
      const v = or();
      eat(')');
      return v;
    }
    if (t[0] === "'" || t[0] === '"') return t.slice(1, -1).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    if (/^\d/.test(t)) return Number(t);
    if (t === 'true' || t === 'True') return true;
    if (t === 'false' || t === 'False') return false;
    if (t === 'none' || t === 'None') return null;
    if (/^[A-Za-z_]/.test(t)) return scope.get(t);
    throw new JinjaError(`unexpected "${t}" in: ${src}`);
  };
  const v = or();
  if (p !== toks.length) throw new JinjaError(`trailing "${toks[p]}" in: ${src}`);
  return v;
}

function run(nodes: Node[], scope: Scope, out: string[]): void {
  for (const n of nodes) {
    if (n.kind === 'text') out.push(n.text);
    else if (n.kind === 'out') {
      const v = evalExpr(n.expr, scope);
      out.push(v === undefined || v === null ? '' : String(v));
    } else if (n.kind === 'set') scope.set(n.name, evalExpr(n.expr, scope));
    else if (n.kind === 'for') {
      const items = evalExpr(n.iter, scope);
      if (!Array.isArray(items)) throw new JinjaError(`for ${n.name}: ${n.iter} is not a list`);
      for (const item of items) {
        const inner = new Map(scope);
        inner.set(n.name, item);
        run(n.body, inner, out);
      }
    } else {
      for (const b of n.branches) {
        const v = b.cond === null ? true : evalExpr(b.cond, scope);
        if (v !== undefined && v !== null && v !== false && v !== 0 && v !== '' && !(Array.isArray(v) && v.length === 0)) {
          run(b.body, scope, out);
          break;
        }
      }
    }
  }
}

/** Renders `template` with `context` (e.g. { messages, bos_token, add_generation_prompt }). */
export function renderJinja(template: string, context: Record<string, unknown>): string {
  const out: string[] = [];
  run(parse(lex(template)), new Map(Object.entries(context) as [string, Value][]), out);
  return out.join('');
}
