// Lab-wide qualities in real Chromium: it works offline after the first visit (service worker), no
// injected markup ever runs (agent text, a person's reply, imported files), it has no serious
// accessibility violations (axe-core), and it fits a phone screen.
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, playToEnd, serveApp } from './harness.ts';

let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

const XSS = ['<img src=x onerror="window.__xss=1">', '<script>window.__xss=2</script>', '"><svg onload="window.__xss=3">', 'javascript:window.__xss=4'];

async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: number }[]> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source); // DevTools evaluation: not an inline script, so the page's CSP stays as shipped
  return page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }
    ).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
}

describe('lab qualities', () => {
  it('loads and runs with the network off after the first visit, logging no console error either way', { timeout: 300_000 }, async () => {
    // WebGPU on, as a visitor's browser has it: Auto then passes over SwiftShader for wasm. No message
    // is filtered out: ONNX Runtime's placement notes (logged with console.error by its wasm build) are
    // off (ort.ts BROWSER_LOG_SEVERITY), and the favicon is cached with the app.
    const b = await launch();
    try {
      const { page, context } = b;
      const modelsLoaded = async (on: string) => {
        for (const m of ['policy', 'critic'])
          await page
            .getByTestId(`model-${m}`)
            .filter({ hasText: `loaded on ${on}` })
            .waitFor({ timeout: 180_000 });
      };
      await page.goto(`${server.url}#/settings`);
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
      await page.locator('[data-testid=self-test][data-ok=true]').waitFor({ timeout: 120_000 });
      await modelsLoaded('wasm');
      expect(b.errors, 'online').toEqual([]);
      await context.setOffline(true);
      await page.reload();
      await page.locator('[data-testid=self-test][data-ok=true]').waitFor({ timeout: 120_000 });
      await modelsLoaded('wasm');
      expect(b.errors, 'offline').toEqual([]);
      // WebGPU by name, where ONNX Runtime's node-placement warnings came from (about 4 per load).
      await page.goto(`${server.url}?backend=webgpu#/settings`);
      await modelsLoaded('webgpu');
      expect(b.errors, 'offline on WebGPU').toEqual([]);
      // back on Auto (the URL's choice is not saved), an episode plays offline
      await page.goto(`${server.url}#/play`);
      await page.getByTestId('new-episode').click();
      // the default agent is the policy (the noisy expert until it loads); either asks, or may guess at once
      await page.getByTestId('reply-box').or(page.getByTestId('outcome')).first().waitFor();
    } finally {
      await b.close();
    }
  });

  it('renders agent text, replies and imported text as text, never as markup', async () => {
    const b = await launch({ webgpu: false });
    try {
      const { page } = b;
      await page.goto(`${server.url}#/play`);
      await page.getByTestId('agent-kind').selectOption('expert');
      await page.getByTestId('new-episode').click();
      for (const payload of XSS.slice(0, 2)) {
        await page.getByTestId('reply-box').fill(payload);
        await page.getByTestId('reply-box').press('Enter');
        // guess cannot read markup as a yes or a no and asks again; Not sure sends it as typed
        await page.getByTestId('ask-again').waitFor();
        await page.getByTestId('answer-unknown').click();
        await page.getByTestId('reply-box').or(page.getByTestId('outcome')).first().waitFor();
      }
      await expect(page.getByText(XSS[0]).count()).resolves.toBeGreaterThan(0);

      // An imported SWEET-RL file whose dialogue carries the payloads, opened in the Credit view.
      const dir = mkdtempSync(join(tmpdir(), 'turnwise-xss-'));
      const file = join(dir, 'xss.jsonl');
      const dialogue = XSS.map((p, i) => ({ role: i % 2 ? 'user' : 'assistant', content: p }));
      const task = { problem_description: XSS[0], ground_truth: XSS[1] };
      writeFileSync(file, `${JSON.stringify({ task, dialogue_history: dialogue, answer: XSS[1], reward: 1 })}\n`);
      await page.getByRole('link', { name: 'Data' }).click();
      await page.getByTestId('import-format').selectOption('sweet');
      await page.getByTestId('import-file').setInputFiles(file);
      await expect.poll(() => page.getByTestId('data-message').innerText()).toMatch(/Imported 1 episode/);
      await page.getByRole('link', { name: 'Credit' }).click();
      await page.getByTestId('credit-episode').first().click();
      await page.getByTestId('credit-heatmap').first().waitFor();
      expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
      expect(await page.locator('main img, main svg[onload], main script').count()).toBe(0);
    } finally {
      await b.close();
    }
  });

  it('on a phone keeps the header to two short rows and the hidden facts on screen with the answer buttons', async () => {
    const b = await launch({ webgpu: false, viewport: { width: 390, height: 844 } });
    try {
      const { page } = b;
      await page.goto(`${server.url}#/play`);
      const header = await page.locator('body > * header, header').first().boundingBox();
      expect(header!.height, 'header height at 390 px').toBeLessThanOrEqual(110);
      await page.getByTestId('family').selectOption('guess');
      await page.getByTestId('agent-kind').selectOption('expert');
      await page.getByTestId('new-episode').click();
      await page.getByTestId('reply-box').waitFor();
      // the person reads the item's facts in the task card, a screen above the chat, and answers
      const facts = page.getByTestId('hidden-info').locator('dd').last();
      await facts.scrollIntoViewIfNeeded();
      const inView = async (l: ReturnType<typeof page.locator>) => {
        const box = (await l.boundingBox())!;
        return box.y >= 0 && box.y + box.height <= 844;
      };
      const visible = async (l: ReturnType<typeof page.locator>) => {
        const box = (await l.boundingBox())!;
        // not covered: the element at its centre is itself (or inside it)
        return l.evaluate((el, [x, y]) => el.contains(document.elementFromPoint(x, y)), [box.x + box.width / 2, box.y + box.height / 2]);
      };
      expect(await inView(facts)).toBe(true);
      expect(await visible(facts)).toBe(true);
      for (const id of ['answer-yes', 'answer-no', 'asked']) {
        expect(await inView(page.getByTestId(id)), id).toBe(true);
        expect(await visible(page.getByTestId(id)), id).toBe(true);
      }
      await expect(page.getByTestId('asked').innerText()).resolves.toMatch(/^Agent: /);
    } finally {
      await b.close();
    }
  });

  it("keeps the Train form's fields inside their card, each checkbox beside its words", async () => {
    const b = await launch({ webgpu: false, viewport: { width: 1280, height: 800 } });
    try {
      const { page } = b;
      await page.goto(`${server.url}#/train`);
      await page.getByTestId('algo').selectOption('grpo');
      await page.getByLabel('Family').selectOption('guess');
      const card = (await page.getByRole('complementary', { name: 'Training settings' }).boundingBox())!;
      for (const el of [page.getByTestId('credit'), page.getByTestId('credit-step')]) {
        const box = (await el.boundingBox())!;
        expect(box.x + box.width, (await el.getAttribute('data-testid')) ?? '').toBeLessThanOrEqual(card.x + card.width);
      }
      // beside its words: at the label's left edge, on its first line (it sat centred above them)
      const box = (await page.getByTestId('train-store').boundingBox())!;
      const label = (await page.locator('label', { has: page.getByTestId('train-store') }).boundingBox())!;
      expect(box.x - label.x, 'checkbox at the left of its label').toBeLessThan(6);
      expect(box.y - label.y, 'checkbox on the first line').toBeLessThan(box.height);
      expect(label.height, 'words and help beside the box, not under it').toBeLessThan(3 * box.height + 30);
      // how many episodes the run will store, said before Start (issue 49: thousands after a few runs)
      await expect(page.getByTestId('train-store-count').innerText()).resolves.toContain('640 for this run (10 iterations × 8 tasks × K 8)');
    } finally {
      await b.close();
    }
  });

  it('has no serious accessibility violations and fits a phone screen, Credit with an episode open', async () => {
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const b = await launch({ webgpu: false, viewport });
      try {
        const { page } = b;
        for (const view of ['play', 'credit', 'data', 'settings']) {
          await page.goto(`${server.url}#/${view}`);
          if (view === 'play') {
            // a whole episode (the expert's: a few turns, no model needed), so Credit has one to open
            await page.getByTestId('agent-kind').selectOption('expert');
            await playToEnd(page);
          }
          // its turn × estimator heatmap, the widest thing on a phone and a grid of labelled cells
          if (view === 'credit') await expect.poll(() => page.getByTestId('credit-heatmap').getByRole('gridcell').count()).toBeGreaterThan(4);
          await page.locator('[data-testid=backend-status][data-state=ready]').waitFor({ timeout: 120_000 });
          const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
          expect(serious, `${view} at ${viewport.width}px`).toEqual([]);
          // clientWidth (less any vertical scrollbar) ≤ innerWidth: stricter than scrollWidth ≤ innerWidth
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow, `${view} scrolls sideways at ${viewport.width}px`).toBeLessThanOrEqual(0);
        }
        if (viewport.width === 390) await page.screenshot({ path: 'docs/screenshots/phone-settings.png', fullPage: true });
      } finally {
        await b.close();
      }
    }
  });
});
