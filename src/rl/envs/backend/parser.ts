// Recursive-descent parser of the backend expression language:
//   expr    := 'if' expr 'then' expr 'else' expr | or
//   or      := and ('or' and)*          and := not ('and' not)*      not := 'not' not | compare
//   compare := sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)?
//   sum     := product (('+'|'-') product)*      product := unary (('*'|'/'|'%') unary)*
//   unary   := '-' unary | primary
//   primary := NUMBER | STRING | 'true' | 'false' | NAME | NAME '(' (expr (',' expr)*)? ')' | '(' expr ')'
// Nesting depth is limited (DSL_LIMITS.depth), so parsing is bounded in time and stack.
import { DslError, DSL_LIMITS, tokenize, type Token } from './lexer.ts';

export type Expr =
  | { k: 'lit'; v: number | string | boolean }
  | { k: 'var'; name: string }
  | { k: 'call'; name: string; args: Expr[] }
  | { k: 'un'; op: '-' | 'not'; e: Expr }
  | { k: 'bin'; op: string; a: Expr; b: Expr }
  | { k: 'if'; c: Expr; t: Expr; e: Expr };

function describe(t: Token): string {
  return t.t === 'end' ? 'end of code' : t.t === 'num' || t.t === 'str' ? t.t : `"${t.v}"`;
}

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly toks: Token[]) {}

  private peek(): Token {
    return this.toks[this.i];
  }
  private isOp(v: string): boolean {
    const t = this.peek();
    return t.t === 'op' && t.v === v;
  }
  private isKw(v: string): boolean {
    const t = this.peek();
    return t.t === 'kw' && t.v === v;
  }
  private expect(kind: 'op' | 'kw', v: string): void {
    const t = this.peek();
    if (t.t !== kind || t.v !== v) throw new DslError('syntax', `expected "${v}" at ${t.at}`);
    this.i++;
  }
  private enter(): void {
    if (++this.depth > DSL_LIMITS.depth) throw new DslError('limit', `expression nested too deeply (limit ${DSL_LIMITS.depth})`);
  }

  parseAll(): Expr {
    const e = this.expr();
    const t = this.peek();
    if (t.t !== 'end') throw new DslError('syntax', `unexpected ${describe(t)} at ${t.at}`);
    return e;
  }

  private expr(): Expr {
    this.enter();
    let out: Expr;
    if (this.isKw('if')) {
      this.i++;
      const c = this.expr();
      this.expect('kw', 'then');
      const t = this.expr();
      this.expect('kw', 'else');
      out = { k: 'if', c, t, e: this.expr() };
    } else out = this.or();
    this.depth--;
    return out;
  }
  private or(): Expr {
    let a = this.and();
    while (this.isKw('or')) {
      this.i++;
      a = { k: 'bin', op: 'or', a, b: this.and() };
    }
    return a;
  }
  private and(): Expr {
    let a = this.not();
    while (this.isKw('and')) {
      this.i++;
      a = { k: 'bin', op: 'and', a, b: this.not() };
    }
    return a;
  }
  private not(): Expr {
    if (this.isKw('not')) {
      this.i++;
      this.enter();
      const e: Expr = { k: 'un', op: 'not', e: this.not() };
      this.depth--;
      return e;
    }
    return this.compare();
  }
  private compare(): Expr {
    const a = this.sum();
    const t = this.peek();
    if (t.t === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(t.v)) {
      this.i++;
      return { k: 'bin', op: t.v, a, b: this.sum() };
    }
    return a;
  }
  private sum(): Expr {
    let a = this.product();
    while (this.isOp('+') || this.isOp('-')) {
      const op = (this.toks[this.i++] as { v: string }).v;
      a = { k: 'bin', op, a, b: this.product() };
    }
    return a;
  }
  private product(): Expr {
    let a = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = (this.toks[this.i++] as { v: string }).v;
      a = { k: 'bin', op, a, b: this.unary() };
    }
    return a;
  }
  private unary(): Expr {
    if (this.isOp('-')) {
      this.i++;
      this.enter();
      const e: Expr = { k: 'un', op: '-', e: this.unary() };
      this.depth--;
      return e;
    }
    return this.primary();
  }
  private primary(): Expr {
    const t = this.peek();
    this.i++;
    if (t.t === 'num' || t.t === 'str') return { k: 'lit', v: t.v };
    if (t.t === 'kw' && (t.v === 'true' || t.v === 'false')) return { k: 'lit', v: t.v === 'true' };
    if (t.t === 'id') {
      if (!this.isOp('(')) return { k: 'var', name: t.v };
      this.i++;
      const args: Expr[] = [];
      if (!this.isOp(')')) {
        args.push(this.expr());
        while (this.isOp(',')) {
          this.i++;
          args.push(this.expr());
        }
      }
      this.expect('op', ')');
      return { k: 'call', name: t.v, args };
    }
    if (t.t === 'op' && t.v === '(') {
      const e = this.expr();
      this.expect('op', ')');
      return e;
    }
    this.i--;
    throw new DslError('syntax', t.t === 'end' ? 'unexpected end of code' : `unexpected ${describe(t)} at ${t.at}`);
  }
}

/** Parses source text into a syntax tree; throws DslError ('syntax' or 'limit'). */
export function parse(source: string): Expr {
  return new Parser(tokenize(source)).parseAll();
}
