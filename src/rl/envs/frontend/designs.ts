// Target designs for the frontend family and the collaborator's description of differences: a
// structured, templated list ("Block 2 width should be 80, not 160.") ordered page → blocks, so a
// small model can apply it. Values compared are the computed ones (defaults filled in).
import type { Rng } from '../../util/rng.ts';
import { ITEMS } from '../guess/table.ts';
import { PALETTE, type Align, type Block, type Design, type Style, type StyleKey, type Tag } from './html.ts';
import { computed, type Computed } from './raster.ts';

const WORDS = [
  'sale',
  'welcome',
  'shop',
  'news',
  'contact',
  'about',
  'home',
  'menu',
  'offers',
  'today',
  'new',
  'hello',
  'team',
  'blog',
  'jobs',
  'help',
  'login',
  'start',
  'more',
  'events',
];
const COLORS = Object.keys(PALETTE);
const PAGE_COLORS = ['white', 'yellow', 'gray', 'pink', 'navy'];
export const CHOICES = {
  width: [40, 60, 80, 100, 120, 140],
  height: [16, 20, 24, 32],
  'margin-top': [4, 8, 12],
  'margin-left': [10, 20, 30, 40],
  'text-align': ['center', 'right'] as Align[],
  'font-size': [8, 12, 16],
};

/**
 * The block texts of a task with free words (frontend option `freeWords`): the 20 words and guess's
 * 120 animal names. From the 20 alone a policy can lower its loss by the list's unigram, and it did:
 * the shipped one names 2% of its first draft's blocks right, each block word at log 1/20 (docs/forge.md);
 * among 140 recalling is hopeless and copying from the prompt is what pays, as free values taught it
 * backend's numbers (docs/experiments/2026-12-03-forge-six-g-copying-numbers.md). 600 forge steps with
 * it, and with copy drills, did not teach the copy (docs/experiments/2026-12-06-forge-frozenlake-and-copying.md).
 */
const FREE_WORDS: readonly string[] = [...WORDS, ...ITEMS.map((it) => it.name)];

/** A block's text: one word or two. */
const textOf = (rng: Rng, words: readonly string[]) => (rng.chance(0.5) ? rng.pick(words) : `${rng.pick(words)} ${rng.pick(words)}`);

/** Block i's tag: the first is a heading half the time, the rest a p or a div. */
const tagOf = (rng: Rng, i: number): Tag => (i === 0 && rng.chance(0.5) ? 'h1' : rng.pick(['p', 'div'] as const));

/**
 * A copy drill: unstyled blocks on a white page, so all a draft must get right is the texts (and tags)
 * the prompt names. One p block, or with `drillBlocks` above 1, 1 to drillBlocks blocks tagged as a
 * design's are (a curriculum from one copied word to a whole page's texts). A d 128 × 4 policy forged
 * from scratch on one-block drills copies them, and then learns drills of 1–3 blocks and full pages;
 * from scratch on full pages with drills among them it did not (docs/experiments/2026-12-06-copy-drills-first.md).
 */
function drillDesign(rng: Rng, words: readonly string[], drillBlocks: number): Design {
  if (drillBlocks <= 1) return { background: 'white', blocks: [{ tag: 'p', text: textOf(rng, words), style: {} }] };
  const n = rng.range(1, drillBlocks);
  return { background: 'white', blocks: Array.from({ length: n }, (_, i) => ({ tag: tagOf(rng, i), text: textOf(rng, words), style: {} })) };
}

/**
 * A random target design: 2–3 blocks, each with a few styles set; a share `freeWords` of designs take
 * their texts from FREE_WORDS, and a share `copyDrill` are a copy drill (drillDesign).
 */
export function drawDesign(rng: Rng, freeWords = 0, copyDrill = 0, drillBlocks = 1): Design {
  // no draw at 0, so the default tasks stay exactly what they were
  const words = freeWords > 0 && rng.chance(freeWords) ? FREE_WORDS : WORDS;
  if (copyDrill > 0 && rng.chance(copyDrill)) return drillDesign(rng, words, drillBlocks);
  const background = rng.pick(PAGE_COLORS);
  const n = rng.range(2, 3);
  const blocks: Block[] = [];
  for (let i = 0; i < n; i++) {
    const tag = tagOf(rng, i);
    const text = textOf(rng, words);
    const style: Style = {};
    if (rng.chance(0.7)) style.background = rng.pick(COLORS.filter((c) => c !== background));
    if (rng.chance(0.5)) style.color = rng.pick(COLORS.filter((c) => c !== (style.background ?? background)));
    if (rng.chance(0.6)) style.width = rng.pick(CHOICES.width);
    if (rng.chance(0.5)) style.height = rng.pick(CHOICES.height);
    if (rng.chance(0.4)) style['margin-top'] = rng.pick(CHOICES['margin-top']);
    if (rng.chance(0.4)) style['margin-left'] = rng.pick(CHOICES['margin-left']);
    if (rng.chance(0.5)) style['text-align'] = rng.pick(CHOICES['text-align']);
    if (rng.chance(0.3)) style['font-size'] = rng.pick(CHOICES['font-size']);
    blocks.push({ tag, text, style });
  }
  return { background, blocks };
}

/** One difference between the target and a draft. */
export interface Difference {
  /** 1-based block index, or 0 for the page. */
  block: number;
  key: 'page-background' | 'count' | 'tag' | 'text' | StyleKey;
  want: string | number;
  have: string | number;
  text: string;
}

const COMPUTED_OF: [StyleKey, keyof Computed][] = [
  ['background', 'background'],
  ['width', 'width'],
  ['height', 'height'],
  ['margin-top', 'marginTop'],
  ['margin-left', 'marginLeft'],
  ['color', 'color'],
  ['text-align', 'align'],
  ['font-size', 'fontSize'],
];

/** All differences, most visible first (page, block count, then block by block). */
export function differences(target: Design, draft: Design): Difference[] {
  const out: Difference[] = [];
  if (target.background !== draft.background) {
    out.push({
      block: 0,
      key: 'page-background',
      want: target.background,
      have: draft.background,
      text: `The page background should be ${target.background}, not ${draft.background}.`,
    });
  }
  if (target.blocks.length !== draft.blocks.length) {
    out.push({
      block: 0,
      key: 'count',
      want: target.blocks.length,
      have: draft.blocks.length,
      text: `There should be ${target.blocks.length} blocks, not ${draft.blocks.length}.`,
    });
  }
  const n = Math.min(target.blocks.length, draft.blocks.length);
  for (let i = 0; i < n; i++) {
    const t = target.blocks[i];
    const d = draft.blocks[i];
    const label = `Block ${i + 1}`;
    if (t.tag !== d.tag) out.push({ block: i + 1, key: 'tag', want: t.tag, have: d.tag, text: `${label} should be a ${t.tag}, not a ${d.tag}.` });
    if (t.text !== d.text) out.push({ block: i + 1, key: 'text', want: t.text, have: d.text, text: `${label} text should be "${t.text}", not "${d.text}".` });
    const ct = computed(t);
    const cd = computed(d);
    for (const [key, field] of COMPUTED_OF) {
      const want = ct[field] ?? 'none';
      const have = cd[field] ?? 'none';
      if (want !== have) out.push({ block: i + 1, key, want, have, text: `${label} ${key} should be ${want}, not ${have}.` });
    }
  }
  return out;
}

/** The collaborator's reply listing at most `max` differences. */
export function describe(diffs: readonly Difference[], max: number): string {
  if (diffs.length === 0) return 'It looks the same as my design.';
  const head = `I see ${diffs.length} difference${diffs.length === 1 ? '' : 's'}.`;
  return [head, ...diffs.slice(0, max).map((d) => d.text)].join(' ');
}
