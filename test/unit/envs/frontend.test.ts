// frontend: the HTML subset (parse/print round trip and "any text parses or raises HtmlError", by
// fast-check), unsafe content rejected, the rasteriser's golden checksum and hand-computed
// similarities, the collaborator's differences and the expert's use of them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDifferences, spacedDraft } from '../../../src/rl/envs/frontend/agents.ts';
import { describe as describeDiffs, differences } from '../../../src/rl/envs/frontend/designs.ts';
import { blockList, FrontendEnv } from '../../../src/rl/envs/frontend/env.ts';
import { createAgent } from '../../../src/rl/envs/registry.ts';
import { playEpisode } from '../../../src/rl/rollout/rollout.ts';
import { HtmlError, PALETTE, parseHtml, toHtml, type Design } from '../../../src/rl/envs/frontend/html.ts';
import { rasterize, similarity } from '../../../src/rl/envs/frontend/raster.ts';
import type { JsonObject, Task } from '../../../src/rl/envs/types.ts';

const fnv = (bytes: Uint8Array) => {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
};
const GOLDEN_HTML =
  '<body style="background:yellow"><h1 style="background:navy;color:white;width:120px;text-align:center">Big sale</h1>' +
  '<p style="margin-top:8px;margin-left:20px;font-size:12px;color:red">shop now</p><div style="background:#3a7;height:24px;text-align:right">hello</div></body>';

const colors = fc.constantFrom(...Object.keys(PALETTE), '#123456', '#abcdef');
const design: fc.Arbitrary<Design> = fc.record({
  background: colors,
  blocks: fc.array(
    fc.record({
      tag: fc.constantFrom('h1' as const, 'p' as const, 'div' as const),
      text: fc.array(fc.constantFrom('sale', 'a&b', '<x>', 'hi', 'shop'), { maxLength: 3 }).map((w) => w.join(' ')),
      style: fc.record(
        {
          background: colors,
          color: colors,
          width: fc.integer({ min: 0, max: 400 }),
          height: fc.integer({ min: 0, max: 400 }),
          'margin-left': fc.integer({ min: 0, max: 200 }),
          'margin-top': fc.integer({ min: 0, max: 200 }),
          'text-align': fc.constantFrom('left' as const, 'center' as const, 'right' as const),
          'font-size': fc.integer({ min: 4, max: 48 }),
        },
        { requiredKeys: [] },
      ),
    }),
    { maxLength: 5 },
  ),
});

describe('HTML subset', () => {
  it('parses the canonical HTML of any design back to the design', () => {
    fc.assert(
      fc.property(design, (d) => {
        expect(parseHtml(toHtml(d))).toEqual(d);
      }),
      { numRuns: 300, seed: 1 },
    );
  });

  it('any text parses or raises HtmlError, never another exception', () => {
    const pieces = fc.constantFrom(
      '<div',
      '<p style="',
      'color:red',
      ';',
      '">',
      '</p>',
      '</div>',
      '<h1>',
      'x',
      '<',
      '>',
      '"',
      '<body style="background:blue">',
      '<br>',
      'onload=',
      '&amp;',
    );
    const soup = fc.array(pieces, { maxLength: 40 }).map((a) => a.join(''));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'binary', maxLength: 400 }), soup), (html) => {
        try {
          const d = parseHtml(html);
          expect(Array.isArray(d.blocks)).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(HtmlError);
        }
      }),
      { numRuns: 1000, seed: 2 },
    );
  });

  it.each([
    ['<script>alert(1)</script>', 'the HTML contains a script'],
    ['<div onclick="x()">a</div>', 'the HTML contains an event handler'],
    ['<div style="background:url(x.png)">a</div>', 'the HTML contains an external URL'],
    ['<p>see https://evil.example</p>', 'the HTML contains an external URL'],
    ['<a href="x">a</a>', 'the HTML contains an external reference'],
    ['<img src=x>', 'the HTML contains an external reference'],
    ['<iframe></iframe>', 'the HTML contains an embedded resource'],
  ])('rejects %s', (html, message) => {
    expect(() => parseHtml(html)).toThrow(message);
    try {
      parseHtml(html);
    } catch (e) {
      expect((e as HtmlError).code).toBe('unsafe');
    }
  });

  it('rejects tags outside the subset and unbalanced tags', () => {
    expect(() => parseHtml('<span>a</span>')).toThrow('unsupported tag <span>');
    expect(() => parseHtml('<div>a')).toThrow('<div> is not closed');
    expect(() => parseHtml('<div><p>a</p></div>')).toThrow('nested <p> inside <div> is not supported');
    expect(() => parseHtml('x'.repeat(9000))).toThrow(/HTML is too long/);
  });
});

describe('rasteriser and similarity', () => {
  it('renders the golden page to the same bytes everywhere', () => {
    // Golden: FNV-1a of the RGB bytes, produced by this rasteriser under Node 20 (tsx) on 2026-11-29.
    expect(fnv(rasterize(parseHtml(GOLDEN_HTML)))).toBe(2477767668);
  });

  it('matches hand-computed similarities', () => {
    const white: Design = { background: 'white', blocks: [] };
    const black: Design = { background: 'black', blocks: [] };
    expect(similarity(white, white)).toBe(1);
    // Nothing drawn on either page: content agreement 1; backgrounds at distance 765: 0.8·1 + 0.2·0.
    expect(similarity(white, black)).toBeCloseTo(0.8, 15);
    // A black bar (no text) against the same bar painted the page colour: every masked pixel is at distance 765.
    const bar = (bg: string): Design => ({ background: 'white', blocks: [{ tag: 'div', text: '', style: { background: bg, height: 12 } }] });
    expect(similarity(bar('black'), bar('white'))).toBeCloseTo(0.2, 15);
  });

  it('similarity is in [0, 1], 1 on identical designs', () => {
    fc.assert(
      fc.property(design, design, (a, b) => {
        const s = similarity(a, b);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
        expect(similarity(a, a)).toBe(1);
      }),
      { numRuns: 100, seed: 3 },
    );
  });
});

describe('collaborator and expert', () => {
  it('lists differences in order and the expert applies them exactly', () => {
    const target = parseHtml(GOLDEN_HTML);
    const draft = parseHtml('<body style="background:white"><h1>Big sale</h1><p>shop now</p><div>hello</div></body>');
    const diffs = differences(target, draft);
    expect(diffs[0].text).toBe('The page background should be yellow, not white.');
    expect(diffs[1].text).toBe('Block 1 background should be navy, not none.');
    const all = describeDiffs(diffs, 100);
    expect(all.startsWith(`I see ${diffs.length} differences.`)).toBe(true);
    const fixed = applyDifferences(draft, all);
    expect(differences(target, fixed)).toEqual([]);
    expect(similarity(target, fixed)).toBe(1);
  });

  it("spacedDraft writes a page's CSS spaced, the same page; the answer marker stays; other messages come back unchanged", () => {
    const page = toHtml(parseHtml(GOLDEN_HTML));
    const spaced = spacedDraft(page);
    expect(spaced).toContain('style="background: yellow"');
    expect(spaced).toMatch(/; width: \d+px/);
    expect(spaced.replace(/([a-z]): /g, '$1:').replace(/; /g, ';')).toBe(page);
    expect(parseHtml(spaced)).toEqual(parseHtml(page));
    expect(spacedDraft(`I WANT TO ANSWER: ${page}`)).toBe(`I WANT TO ANSWER: ${spaced}`);
    expect(spacedDraft('not a page')).toBe('not a page');
  });

  it('scores answers, refuses unsafe ones and scores the last draft at the turn limit', () => {
    const env = new FrontendEnv();
    const task = env.reset({ family: 'frontend', split: 'test', seed: 4 });
    expect(env.step(`I WANT TO ANSWER: ${task.hidden.html}`)).toMatchObject({ reward: 1, done: true, info: { success: true, similarity: 1 } });
    env.reset({ family: 'frontend', split: 'test', seed: 4 });
    expect(env.step('I WANT TO ANSWER: <div onmouseover="x()">hi</div>')).toMatchObject({ reward: 0, done: true, info: { reason: 'unsafe', success: false } });
    env.reset({ family: 'frontend', split: 'test', seed: 4, options: { maxTurns: 2 } });
    const first = env.step('<body style="background:white"><p>draft</p></body>');
    expect(first.info.reason).toBe('proposal');
    expect(first.observation).toMatch(/^I see \d+ differences?\./);
    const last = env.step('<body style="background:white"><p>draft</p></body>');
    expect(last.done).toBe(true);
    expect(last.info.reason).toBe('turn-limit');
    expect(last.reward).toBeCloseTo(first.info.similarity as number, 15);
  });

  it('freeWords: 0 leaves the tasks as before the option; 1 draws block texts beyond the 20 words, and the expert still matches them', async () => {
    const env = new FrontendEnv();
    const blocksOf = (t: Task) => (t.hidden.design as unknown as Design).blocks.map((b) => b.text);
    const [plain, zero, free] = ([{}, { freeWords: 0, copyDrill: 0, drillBlocks: 1 }, { freeWords: 1 }] as JsonObject[]).map((options) =>
      Array.from({ length: 40 }, (_, seed) => env.reset({ family: 'frontend', split: 'test', seed, options })),
    );
    expect(zero).toEqual(plain);
    expect(plain[0].spec.options).toEqual({ maxTurns: 8, maxDifferences: 4, successAt: 0.9, noise: 0 });
    expect(free[0].spec.options).toMatchObject({ freeWords: 1 });
    const words = (ts: typeof plain) => new Set(ts.flatMap(blocksOf).flatMap((t) => t.split(' ')));
    expect(words(plain).size).toBeLessThanOrEqual(20);
    expect(words(free).size).toBeGreaterThan(40);
    // every free-word prompt names its blocks' texts, so a copy is possible
    for (const t of free) for (const text of blocksOf(t)) expect(t.prompt).toContain(`"${text}"`);
    const ep = await playEpisode(createAgent('expert', 'frontend', { seed: 1 }), { family: 'frontend', split: 'test', seed: 3, options: { freeWords: 1 } });
    expect(ep.success).toBe(true);
  });

  it('copyDrill 1: one unstyled p block on a white page, its text named in the prompt; the expert answers it on its first draft', async () => {
    const env = new FrontendEnv();
    for (let seed = 0; seed < 20; seed++) {
      const t = env.reset({ family: 'frontend', split: 'train', seed, options: { copyDrill: 1, freeWords: 1 } });
      const d = t.hidden.design as unknown as Design;
      expect(d).toMatchObject({ background: 'white', blocks: [{ tag: 'p', style: {} }] });
      expect(d.blocks).toHaveLength(1);
      expect(t.prompt).toContain(`Build a web page with 1 block: p "${d.blocks[0].text}".`);
    }
    const ep = await playEpisode(createAgent('expert', 'frontend', { seed: 1 }), { family: 'frontend', split: 'test', seed: 3, options: { copyDrill: 1 } });
    expect(ep.success).toBe(true);
    expect(ep.turns.length).toBeLessThanOrEqual(2);
  });

  it('drillBlocks 3: drills of 1 to 3 unstyled blocks tagged as designs are, every text and tag in the prompt; the expert answers on its first draft', async () => {
    const env = new FrontendEnv();
    const counts = new Set<number>();
    for (let seed = 0; seed < 40; seed++) {
      const t = env.reset({ family: 'frontend', split: 'train', seed, options: { copyDrill: 1, drillBlocks: 3 } });
      const d = t.hidden.design as unknown as Design;
      counts.add(d.blocks.length);
      expect(d.background).toBe('white');
      for (const b of d.blocks) expect(b.style).toEqual({});
      expect(t.prompt).toContain(`with ${d.blocks.length} block${d.blocks.length > 1 ? 's' : ''}: ${blockList(d)}.`);
      expect(t.spec.options).toMatchObject({ copyDrill: 1, drillBlocks: 3 });
    }
    expect([...counts].sort()).toEqual([1, 2, 3]);
    const tags = new Set(
      Array.from({ length: 40 }, (_, seed) => env.reset({ family: 'frontend', split: 'test', seed, options: { copyDrill: 1, drillBlocks: 3 } })).flatMap((t) =>
        (t.hidden.design as unknown as Design).blocks.map((b) => b.tag),
      ),
    );
    expect([...tags].sort()).toEqual(['div', 'h1', 'p']);
    const ep = await playEpisode(createAgent('expert', 'frontend', { seed: 1 }), {
      family: 'frontend',
      split: 'test',
      seed: 5,
      options: { copyDrill: 1, drillBlocks: 3 },
    });
    expect(ep.success).toBe(true);
    expect(ep.turns.length).toBeLessThanOrEqual(2);
  });
});
