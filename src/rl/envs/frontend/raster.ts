// Deterministic rasteriser and visual similarity for the frontend family. Integer arithmetic only
// (block layout, 3×5 hashed glyphs), so Node and every browser produce identical pixels; the one
// division at the end is IEEE-exact. Scores come from here, and so do the pictures the lab shows a
// person (ui/components/DesignRender.svelte draws these pixels into a canvas): no design's HTML is
// ever parsed by the browser.
//
// Layout: blocks stack top to bottom; each moves down by margin-top, starts at margin-left, spans
// width (default: to the right edge) × height (default: font-size + 4), fills its background and
// draws its text in one line, aligned left/center/right with 2 px padding, clipped to the box.
import { hashString } from '../../util/rng.ts';
import { rgb, type Block, type Design, type Tag } from './html.ts';

export const WIDTH = 160;
export const HEIGHT = 120;
const DEFAULT_FONT: Record<Tag, number> = { h1: 16, p: 8, div: 8 };

/** A block's style with defaults filled in. */
export interface Computed {
  background: string | null;
  color: string;
  width: number;
  height: number;
  marginLeft: number;
  marginTop: number;
  align: 'left' | 'center' | 'right';
  fontSize: number;
}

export function computed(b: Block): Computed {
  const s = b.style;
  const fontSize = s['font-size'] ?? DEFAULT_FONT[b.tag];
  const marginLeft = s['margin-left'] ?? 0;
  return {
    background: s.background ?? null,
    color: s.color ?? 'black',
    width: s.width ?? Math.max(WIDTH - marginLeft, 0),
    height: s.height ?? fontSize + 4,
    marginLeft,
    marginTop: s['margin-top'] ?? 0,
    align: s['text-align'] ?? 'left',
    fontSize,
  };
}

/** 15 bits of a 3×5 glyph for a character (never empty for visible characters). */
function glyph(ch: string): number {
  if (ch.trim() === '') return 0;
  return (hashString(ch) & 0x7fff) | 0x2; // bit 1 set: never blank
}

/** Renders a design into RGB bytes, row-major [HEIGHT × WIDTH × 3]. */
export function rasterize(d: Design): Uint8Array {
  const px = new Uint8Array(WIDTH * HEIGHT * 3);
  const fill = (x0: number, y0: number, x1: number, y1: number, c: readonly number[]) => {
    const xa = Math.max(0, x0),
      ya = Math.max(0, y0),
      xb = Math.min(WIDTH, x1),
      yb = Math.min(HEIGHT, y1);
    for (let y = ya; y < yb; y++)
      for (let x = xa; x < xb; x++) {
        const i = (y * WIDTH + x) * 3;
        px[i] = c[0];
        px[i + 1] = c[1];
        px[i + 2] = c[2];
      }
  };
  fill(0, 0, WIDTH, HEIGHT, rgb(d.background));
  let top = 0;
  for (const b of d.blocks) {
    if (top >= HEIGHT) break;
    const c = computed(b);
    const y0 = top + c.marginTop;
    const x0 = c.marginLeft;
    const x1 = Math.min(x0 + c.width, WIDTH);
    const y1 = Math.min(y0 + c.height, HEIGHT);
    if (c.background) fill(x0, y0, x1, y1, rgb(c.background));
    const cw = Math.floor((c.fontSize * 5) / 8);
    const chh = c.fontSize;
    const text = b.text.slice(0, 64);
    const tw = text.length * cw;
    const tx = c.align === 'left' ? x0 + 2 : c.align === 'right' ? x1 - 2 - tw : x0 + Math.floor((x1 - x0 - tw) / 2);
    const ty = y0 + Math.floor((c.height - chh) / 2);
    const color = rgb(c.color);
    for (let k = 0; k < text.length; k++) {
      const g = glyph(text[k]);
      if (!g) continue;
      const gx = tx + k * cw;
      // Each glyph cell covers (cw−1)×(chh−1) pixels split into 3 columns × 5 rows.
      for (let dy = 0; dy < chh - 1; dy++)
        for (let dx = 0; dx < cw - 1; dx++) {
          const bit = Math.floor((dy * 5) / (chh - 1)) * 3 + Math.floor((dx * 3) / (cw - 1));
          if (!((g >> bit) & 1)) continue;
          const x = gx + dx;
          const y = ty + dy;
          if (x < Math.max(x0, 0) || x >= x1 || y < Math.max(y0, 0) || y >= y1) continue;
          const i = (y * WIDTH + x) * 3;
          px[i] = color[0];
          px[i + 1] = color[1];
          px[i + 2] = color[2];
        }
    }
    top = y0 + c.height;
  }
  return px;
}

/**
 * Visual similarity in [0, 1]: 0.8 × content agreement + 0.2 × background agreement. Content
 * agreement = 1 − mean colour distance (L1 over RGB, /765) over the pixels where either render
 * differs from its own page background; 1 when neither draws anything.
 */
export function similarity(target: Design, candidate: Design): number {
  return scorer(target)(candidate);
}

/** similarity(target, ·) with the target rendered once. */
export function scorer(target: Design): (candidate: Design) => number {
  const a = rasterize(target);
  const bgA = rgb(target.background);
  return (candidate) => {
    const b = rasterize(candidate);
    const bgB = rgb(candidate.background);
    let mask = 0;
    let dist = 0;
    for (let i = 0; i < a.length; i += 3) {
      const onA = a[i] !== bgA[0] || a[i + 1] !== bgA[1] || a[i + 2] !== bgA[2];
      const onB = b[i] !== bgB[0] || b[i + 1] !== bgB[1] || b[i + 2] !== bgB[2];
      if (!onA && !onB) continue;
      mask++;
      dist += Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]);
    }
    const content = mask === 0 ? 1 : 1 - dist / (765 * mask);
    const bgDist = Math.abs(bgA[0] - bgB[0]) + Math.abs(bgA[1] - bgB[1]) + Math.abs(bgA[2] - bgB[2]);
    return 0.8 * content + 0.2 * (1 - bgDist / 765);
  };
}
