// The frontend family's HTML/CSS subset: a page background and a flat list of blocks (h1, p, div)
// with inline styles (background, color, width, height, margin-left, margin-top, text-align,
// font-size). Our own parser: nothing is ever handed to a browser engine or executed. Scripts,
// event handlers, external URLs and other tags are rejected with a named error.
import { CodedError } from '../../util/errors.ts';

/** A refused design; code 'unsafe': scripts, handlers or URLs; 'too-long': over the size limit; 'syntax': outside the subset. */
export class HtmlError extends CodedError<'unsafe' | 'too-long' | 'syntax'> {
  override name = 'HtmlError';
}

export const MAX_HTML_CHARS = 8000;
export const MAX_BLOCKS = 24;

/** RGB of the named colours the subset accepts (plus #rgb / #rrggbb). */
export const PALETTE: Readonly<Record<string, readonly [number, number, number]>> = {
  white: [255, 255, 255],
  black: [0, 0, 0],
  red: [220, 40, 40],
  green: [40, 160, 60],
  blue: [40, 80, 220],
  yellow: [250, 220, 50],
  orange: [250, 140, 30],
  purple: [140, 60, 180],
  gray: [128, 128, 128],
  pink: [250, 160, 200],
  teal: [0, 128, 128],
  navy: [20, 30, 110],
};

export type Tag = 'h1' | 'p' | 'div';
export type Align = 'left' | 'center' | 'right';

/** Explicitly set style properties (absent = default). Colours are names or #rrggbb. */
export interface Style {
  background?: string;
  color?: string;
  width?: number;
  height?: number;
  'margin-left'?: number;
  'margin-top'?: number;
  'text-align'?: Align;
  'font-size'?: number;
}
export type StyleKey = keyof Style;
export const STYLE_KEYS: readonly StyleKey[] = ['background', 'color', 'width', 'height', 'margin-left', 'margin-top', 'text-align', 'font-size'];

export interface Block {
  tag: Tag;
  text: string;
  style: Style;
}

/** A page: background colour and blocks from top to bottom. Plain JSON. */
export interface Design {
  background: string;
  blocks: Block[];
}

const UNSAFE: [RegExp, string][] = [
  [/<\s*script/i, 'a script'],
  [/\son[a-z]+\s*=/i, 'an event handler'],
  [/javascript\s*:/i, 'a javascript: URL'],
  [/url\s*\(/i, 'an external URL'],
  [/(https?:|ftp:|data:)|\/\/[a-z0-9]/i, 'an external URL'],
  [/\b(src|href|srcset|action)\s*=/i, 'an external reference'],
  [/@import|expression\s*\(/i, 'a style import'],
  [/<\s*(iframe|object|embed|img|link|style|meta|form|svg|math|base)\b/i, 'an embedded resource'],
];

/** Normalises a colour to a palette name or #rrggbb; null when not a colour. */
export function normColor(value: string): string | null {
  const v = value.trim().toLowerCase();
  if (v in PALETTE) return v;
  const m3 = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/.exec(v);
  if (m3) return `#${m3[1]}${m3[1]}${m3[2]}${m3[2]}${m3[3]}${m3[3]}`;
  return /^#[0-9a-f]{6}$/.test(v) ? v : null;
}

/** RGB of a normalised colour. */
export function rgb(color: string): [number, number, number] {
  const p = PALETTE[color];
  if (p) return [p[0], p[1], p[2]];
  const n = parseInt(color.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function parseStyle(text: string): Style {
  const out: Style = {};
  for (const decl of text.split(';')) {
    const i = decl.indexOf(':');
    if (i < 0) continue;
    const prop = decl.slice(0, i).trim().toLowerCase();
    const value = decl
      .slice(i + 1)
      .trim()
      .toLowerCase();
    const px = /^(\d{1,4})(px)?$/.exec(value);
    const n = px ? Math.min(Number(px[1]), 400) : null;
    if (prop === 'background' || prop === 'background-color') {
      const c = normColor(value);
      if (c) out.background = c;
    } else if (prop === 'color') {
      const c = normColor(value);
      if (c) out.color = c;
    } else if (prop === 'text-align') {
      if (value === 'left' || value === 'center' || value === 'right') out['text-align'] = value;
    } else if ((prop === 'width' || prop === 'height' || prop === 'margin-left' || prop === 'margin-top') && n !== null) out[prop] = n;
    else if (prop === 'font-size' && n !== null) out['font-size'] = Math.min(Math.max(n, 4), 48);
  }
  return out;
}

function decode(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Parses HTML in the subset; throws HtmlError. Bounded: one pass over at most MAX_HTML_CHARS. */
export function parseHtml(html: string): Design {
  if (html.length > MAX_HTML_CHARS) throw new HtmlError('too-long', `HTML is too long (${html.length} characters; the limit is ${MAX_HTML_CHARS})`);
  for (const [re, what] of UNSAFE) if (re.test(html)) throw new HtmlError('unsafe', `the HTML contains ${what}`);
  const design: Design = { background: 'white', blocks: [] };
  const token = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>|<!doctype[^>]*>|<!--[\s\S]*?-->|([^<]+)|(<)/gi;
  let open: Block | null = null;
  for (const m of html.matchAll(token)) {
    if (m[5]) throw new HtmlError('syntax', `stray "<" at ${m.index}`);
    if (m[4] !== undefined) {
      if (open) open.text += decode(m[4]);
      continue;
    }
    if (!m[2]) continue;
    const closing = m[1] === '/';
    const tag = m[2].toLowerCase();
    if (tag === 'html' || tag === 'head' || tag === 'meta' || tag === 'title') continue;
    const attrs = m[3] ?? '';
    const styleAttr = /style\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(attrs);
    const style = styleAttr ? parseStyle(styleAttr[1] ?? styleAttr[2] ?? '') : {};
    if (tag === 'body') {
      if (!closing && style.background) design.background = style.background;
      continue;
    }
    if (tag !== 'h1' && tag !== 'p' && tag !== 'div') throw new HtmlError('syntax', `unsupported tag <${tag}>`);
    if (closing) {
      if (!open || open.tag !== tag) throw new HtmlError('syntax', `unexpected </${tag}>`);
      open.text = open.text.replace(/\s+/g, ' ').trim();
      design.blocks.push(open);
      open = null;
      continue;
    }
    if (open) throw new HtmlError('syntax', `nested <${tag}> inside <${open.tag}> is not supported`);
    if (design.blocks.length >= MAX_BLOCKS) throw new HtmlError('syntax', `more than ${MAX_BLOCKS} blocks`);
    open = { tag, text: '', style: { ...style } };
  }
  if (open) throw new HtmlError('syntax', `<${open.tag}> is not closed`);
  return design;
}

function encode(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The canonical HTML of a design (parseHtml(toHtml(d)) equals d). `spaced` writes the CSS as
 * `background: red; width: 40px`, so that a value is the same token as in the collaborator's "should
 * be red" and "should be 40" (the tokenizer's pre-tokens keep a leading space on words and digits):
 * then a copied value is a literal copy (forge `spacedCss`; docs/experiments/2026-12-06-copy-drills-first.md).
 */
export function toHtml(d: Design, spaced = false): string {
  const [colon, semicolon] = spaced ? [': ', '; '] : [':', ';'];
  const css = (s: Style) =>
    STYLE_KEYS.filter((k) => s[k] !== undefined)
      .map((k) => `${k}${colon}${s[k]}${typeof s[k] === 'number' ? 'px' : ''}`)
      .join(semicolon);
  const blocks = d.blocks.map((b) => {
    const st = css(b.style);
    return `<${b.tag}${st ? ` style="${st}"` : ''}>${encode(b.text)}</${b.tag}>`;
  });
  return [`<body style="background${colon}${d.background}">`, ...blocks, '</body>'].join('\n');
}
