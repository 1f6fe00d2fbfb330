// Play in real Chromium: a person answers the agent through the Yes / No buttons and the reply box
// until the episode ends (each answer read back under its bubble, an unclear one asked about again,
// the environment's status on its own line); the learned policy is the default agent, on
// every family; an episode waiting
// for the person survives a switch to another view and back; a RAGEN game goes move by move on
// "Next move", and starting another episode mid-way closes the unfinished one in the store (the
// Data view lists it as aborted beside the finished one); an episode started while the store is still
// opening waits for it and is saved.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, playToEnd, serveApp } from './harness.ts';
import { readCredit, readDb } from './storeDb.ts';
import { parseHtml } from '../../src/rl/envs/frontend/html.ts';
import { rasterize } from '../../src/rl/envs/frontend/raster.ts';
import { guessPool } from '../../src/rl/envs/guess/env.ts';
import { ITEMS } from '../../src/rl/envs/guess/table.ts';
import { startWords } from '../../src/rl/envs/family.ts';
import { findLesson } from '../../src/rl/envs/registry.ts';

/** The shipped policy's metadata: its families, and the context and reply reserve the policy-fit check reads (rl/model/fit.ts). */
const SHIPPED = (
  JSON.parse(readFileSync(new URL('../../public/models/policy/config.json', import.meta.url), 'utf8')) as {
    turnwise: { contextTokens: number; maxReplyTokens: number; families: string[] };
  }
).turnwise;

let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

describe('Play view', () => {
  it('plays a full guess episode as the person: a button, free text read back, asked again when unclear', async () => {
    const b = await launch({ webgpu: false, firstVisit: true });
    try {
      const { page } = b;
      await page.goto(`${server.url}#/play`);
      // a first visit opens with the short tour; once closed it stays closed
      await expect(page.getByTestId('tour').innerText()).resolves.toMatch(/Play: you are the collaborator/);
      await page.getByTestId('tour-close').click();
      await page.reload();
      await page.getByTestId('family').waitFor();
      expect(await page.getByTestId('tour').count()).toBe(0);
      await page.getByTestId('family').selectOption('guess');
      await page.getByTestId('agent-kind').selectOption('expert');
      await page.getByTestId('new-episode').click();
      await expect(page.getByTestId('hidden-info').innerText()).resolves.toMatch(/never to the agent/);
      const box = page.getByTestId('reply-box');
      const bubbles = page.getByTestId('observation');
      // the scripted expert's simulator never errs, so its suggestion says the truth
      const truth = async () => ((await page.getByTestId('suggestion').innerText()).startsWith('Yes') ? 'yes' : 'no');

      // first question: the Yes / No button; the bubble holds the answer, the status its own line
      await box.waitFor();
      const first = await truth();
      await page.getByTestId(`answer-${first}`).click();
      await expect.poll(() => bubbles.count()).toBe(1);
      await expect(bubbles.nth(0).getByTestId('reading').innerText()).resolves.toBe(`read as: ${first}`);
      await expect(bubbles.nth(0).innerText()).resolves.not.toMatch(/Remaining|Turns left/);
      await expect(page.getByTestId('env-status').nth(0).innerText()).resolves.toMatch(/Remaining: .+\. Turns left: 4\./);

      // second question: a hedge is asked about again and nothing is sent; then free text, read back
      await box.waitFor();
      const second = await truth();
      await box.fill('sort of');
      await box.press('Enter');
      await expect(page.getByTestId('ask-again').innerText()).resolves.toMatch(/could not tell whether “sort of” was a yes or a no/);
      expect(await bubbles.count()).toBe(1);
      const words = second === 'yes' ? 'I think so' : "I don't think so";
      await box.fill(words);
      await box.press('Enter');
      await expect.poll(() => bubbles.count()).toBe(2);
      await expect(bubbles.nth(1).getByTestId('reply-text').innerText()).resolves.toBe(words);
      await expect(bubbles.nth(1).getByTestId('reading').innerText()).resolves.toBe(`read as: ${second}`);
      expect(await page.getByTestId('ask-again').count()).toBe(0);

      // then the simulator's words as the person's own, sent by keyboard, to the end
      let replies = 2;
      while (!(await page.getByTestId('outcome').count())) {
        await page.locator('[data-testid=reply-box], [data-testid=outcome]').first().waitFor();
        if (await page.getByTestId('outcome').count()) break;
        await page.getByTestId('suggestion').click();
        await box.press('Enter');
        replies++;
        expect(replies).toBeLessThan(12);
      }
      await expect(page.getByTestId('outcome').getAttribute('data-success')).resolves.toBe('true');
      expect(await page.getByTestId('agent-turn').count()).toBeGreaterThan(2);
      // the finished episode keeps the credit Play computed, one row per estimator that could run
      await expect.poll(async () => (await readCredit(page)).filter((c) => c.version === 'live').map((c) => c.estimator)).toContain('mc');
      await expect(page.getByText('You', { exact: true }).count()).resolves.toBe(replies);
      for (const text of await bubbles.allInnerTexts()) expect(text).not.toMatch(/Remaining:|Turns left/);
      expect(b.errors.filter((e) => !e.includes('404'))).toEqual([]);
    } finally {
      await b.close();
    }
  });

  it('plays the policy by default and keeps its episode, waiting for the person, across a view switch', async () => {
    const b = await launch({ webgpu: false });
    try {
      const { page } = b;
      // episode seed 9: the shipped policy asks three questions when answered truthfully (wasm)
      await page.addInitScript(() => localStorage.setItem('turnwise.preferences', JSON.stringify({ seed: 9 })));
      await page.goto(`${server.url}#/play`);
      await expect(page.getByTestId('agent-kind').inputValue()).resolves.toBe('policy');
      await page
        .getByTestId('agent-kind')
        .locator('option[value=policy]')
        .filter({ hasText: /^policy$/ })
        .waitFor({ state: 'attached', timeout: 120_000 });
      // every family is the policy's (issue 18): its metadata names all six and every prompt fits its
      // context with the reply reserve, so no family has the noisy expert standing in
      expect(SHIPPED.families).toEqual(['guess', 'backend', 'bandit', 'frontend', 'frozenlake', 'sokoban']);
      for (const family of ['sokoban', 'frontend', 'frozenlake']) {
        await page.getByTestId('family').selectOption(family);
        await expect.poll(() => page.getByTestId('agent-kind').inputValue()).toBe('policy');
        await expect.poll(() => page.getByTestId('agent-note').count()).toBe(0);
      }
      await page.getByTestId('new-episode').click();
      await expect(page.getByTestId('played-by').innerText()).resolves.toBe('Played by policy · base');
      await page.getByTestId('family').selectOption('guess');
      await expect.poll(() => page.getByTestId('agent-note').count()).toBe(0);
      await page.getByTestId('new-episode').click();
      await expect(page.getByTestId('played-by').innerText()).resolves.toBe('Played by policy · base');
      const box = page.getByTestId('reply-box');
      const outcome = page.getByTestId('outcome');
      // answer the first question truthfully, then leave the second unanswered with a draft in the box
      await box.waitFor({ timeout: 60_000 });
      const truth = (await page.getByTestId('suggestion').innerText()).startsWith('Yes') ? 'yes' : 'no';
      await page.getByTestId(`answer-${truth}`).click();
      await expect.poll(() => page.getByTestId('agent-turn').count()).toBe(1);
      await box.waitFor({ timeout: 60_000 });
      const turns = await page.getByTestId('agent-turn').count();
      const question = await page.getByTestId('pending-question').innerText();
      const heading = await page.locator('.task h2').innerText();
      expect(heading).toMatch(/^guess · seed 9/);
      await box.fill('a draft');
      const gae = page.getByRole('button', { name: 'GAE (turn)' });
      await gae.click();
      await expect(gae.getAttribute('aria-pressed')).resolves.toBe('true');
      for (const view of ['Credit', 'Train', 'Data']) {
        await page.getByRole('link', { name: view, exact: true }).click();
        await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/${view.toLowerCase()}`);
      }
      await page.getByRole('link', { name: 'Play', exact: true }).click();
      // the same episode, still waiting for the person: task, turns, question, draft, agent
      await expect(page.locator('.task h2').innerText()).resolves.toBe(heading);
      expect(await page.getByTestId('agent-turn').count()).toBe(turns);
      await expect(page.getByTestId('pending-question').innerText()).resolves.toBe(question);
      await expect(box.inputValue()).resolves.toBe('a draft');
      await expect(page.getByTestId('agent-kind').inputValue()).resolves.toBe('policy');
      await expect(page.getByTestId('played-by').innerText()).resolves.toBe('Played by policy · base');
      await expect(gae.getAttribute('aria-pressed')).resolves.toBe('true'); // the live credit's choices too
      await expect.poll(() => page.getByTestId('credit-gutter').first().innerText()).toMatch(/MC return[\s\S]*GAE \(turn\)/);
      // and it plays on to its end from where it was
      await page.getByTestId('run-to-end').click();
      await outcome.waitFor({ timeout: 60_000 });
      expect(await page.getByTestId('agent-turn').count()).toBeGreaterThan(turns);
      expect(b.errors.filter((e) => !e.includes('404'))).toEqual([]);
    } finally {
      await b.close();
    }
  });

  it("offers guess's lesson in the family menu, says why, and plays its tasks: 8 animals from the pool of 13", async () => {
    const b = await launch({ webgpu: false });
    try {
      const { page } = b;
      await page.goto(`${server.url}#/play`);
      const menu = page.getByTestId('family');
      await expect(menu.locator('optgroup[label=Lessons] option').allInnerTexts()).resolves.toEqual([
        'Guess, 8 animals from 13, 4 turns: where one question decides',
      ]);
      expect(await page.getByTestId('family-lesson').count()).toBe(0);
      await menu.selectOption('guess@turns-decide');
      const lesson = findLesson('turns-decide');
      const start = startWords(lesson.start).replace(/[()]/g, '\\$&');
      await expect(page.getByTestId('family-lesson').innerText()).resolves.toMatch(new RegExp(`starts from ${start}\\. Measured .* 30\\.5 points`));
      await page.getByTestId('agent-kind').selectOption('expert');
      await page.getByTestId('new-episode').click();
      const candidates = (await page.getByTestId('hidden-info').locator('dt:text-is("candidates") + dd').innerText()).split(', ');
      const pool = guessPool(13).map((j) => ITEMS[j].name);
      expect(candidates).toHaveLength(8);
      for (const c of candidates) expect(pool).toContain(c);
      // the learned agent of the lesson is the lesson's start: the menu names it once it is loaded, and Play says who played
      const learned = page.getByTestId('agent-kind').locator('option[value=policy]');
      await learned.filter({ hasText: new RegExp(`^${lesson.start}$`) }).waitFor({ state: 'attached', timeout: 120_000 });
      await page.getByTestId('agent-kind').selectOption('policy');
      await page.getByTestId('new-episode').click();
      await expect(page.getByTestId('played-by').innerText()).resolves.toBe(`Played by ${lesson.start} · base`);
      // the forged setting is still there, and back to it the lesson's note goes
      await menu.selectOption('guess');
      expect(await page.getByTestId('family-lesson').count()).toBe(0);
    } finally {
      await b.close();
    }
  });

  it('steps a game move by move, and a new episode closes the unfinished one', async () => {
    const b = await launch({ webgpu: false });
    try {
      const { page } = b;
      await page.goto(`${server.url}#/play`);
      // sokoban's expert needs several moves, so its first episode is unfinished after one
      await page.getByTestId('family').selectOption('sokoban');
      await page.getByTestId('agent-kind').selectOption('expert');
      await page.getByTestId('new-episode').click();
      const next = page.getByRole('button', { name: 'Next move' });
      await next.waitFor();
      expect(await page.getByTestId('agent-turn').count()).toBe(0);
      // one click, one move: the loop waits for the person before every move of a game
      await next.click();
      await expect.poll(() => page.getByTestId('agent-turn').count()).toBe(1);
      await next.waitFor();
      await page.waitForTimeout(300);
      expect(await page.getByTestId('agent-turn').count()).toBe(1);
      // the board is drawn in a fixed-width font, so its columns line up
      const font = await page
        .getByTestId('reply-text')
        .first()
        .evaluate((el) => getComputedStyle(el).fontFamily);
      expect(font).toMatch(/mono|Menlo|Consolas/i);
      // a second episode replaces the first, which is saved as aborted; the second runs to its end
      await playToEnd(page);
      await expect(page.getByTestId('outcome').innerText()).resolves.toContain('(solved: pushed the box onto the target)');
      await page.goto(`${server.url}#/data`);
      const rows = page.getByTestId('episode-table').locator('tbody tr');
      await expect.poll(() => rows.count()).toBe(2);
      const statuses = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-status')).sort());
      expect(statuses).toEqual(['aborted', 'complete']);
      expect(b.errors.filter((e) => !e.includes('404'))).toEqual([]);
    } finally {
      await b.close();
    }
  });

  it('saves an episode started while the store is still opening', async () => {
    const b = await launch({ webgpu: false });
    try {
      // the lab creates its database, then this page holds a write transaction on its episodes, so a
      // second lab's store cannot open (it reads the in-progress episodes first) until it is let go
      await b.page.goto(`${server.url}#/data`);
      await b.page.getByTestId('episode-table').or(b.page.getByTestId('empty')).first().waitFor({ timeout: 30_000 });
      await b.page.evaluate(
        () =>
          new Promise<void>((held) => {
            const open = indexedDB.open('turnwise');
            open.onsuccess = () => {
              const tx = open.result.transaction(['episodes'], 'readwrite');
              const w = window as unknown as { release?: boolean };
              const spin = (): void => {
                if (!w.release) tx.objectStore('episodes').count().onsuccess = spin;
              };
              spin();
              held();
            };
          }),
      );
      const page = await b.context.newPage();
      await page.goto(`${server.url}#/play`);
      await page.getByTestId('family').selectOption('guess');
      await page.getByTestId('agent-kind').selectOption('noisy');
      await page.getByTestId('new-episode').click();
      // Play waits for the store rather than playing an episode it cannot save
      await page.waitForTimeout(1_000);
      expect(await page.getByTestId('simulate-reply').count()).toBe(0);
      await b.page.evaluate(() => ((window as unknown as { release?: boolean }).release = true));
      await page.getByTestId('simulate-reply').click({ timeout: 30_000 });
      await page.getByTestId('agent-turn').first().waitFor();
      const stored = await readDb(page);
      expect(stored).toHaveLength(1);
      expect(stored[0].agentTexts[0]).toBe(await page.getByTestId('agent-turn').first().locator('.text').innerText());
      expect(await page.getByTestId('save-error').count()).toBe(0);
    } finally {
      await b.close();
    }
  });

  it('draws frontend designs with the lab rasteriser in a canvas, pixel for pixel the ones the score compares', async () => {
    const b = await launch({ webgpu: false });
    try {
      const { page } = b;
      await page.goto(`${server.url}#/play`);
      await page.getByTestId('family').selectOption('frontend');
      await page.getByTestId('agent-kind').selectOption('expert');
      await playToEnd(page);
      const renders = page.getByTestId('design-render');
      // the target in the hidden information, and one page per agent turn that sent HTML
      await expect.poll(() => renders.count()).toBeGreaterThanOrEqual(2);
      expect(await page.locator('iframe').count()).toBe(0);
      const pixels = await renders.locator('canvas').evaluateAll((cs) =>
        (cs as HTMLCanvasElement[]).map((c) =>
          Array.from(
            c
              .getContext('2d')!
              .getImageData(0, 0, c.width, c.height)
              .data.filter((_, i) => i % 4 !== 3),
          ),
        ),
      );
      const hidden = await page.evaluate(() => document.querySelector('[data-testid=hidden-info] dd')?.textContent ?? '');
      const target = rasterize(parseHtml(hidden));
      expect(pixels[0]).toEqual(Array.from(target));
      // the words the rasteriser draws as marks are listed as text a person can read
      const words = parseHtml(hidden).blocks.map((bl) => bl.text || '(no text)');
      await expect(renders.first().getByTestId('design-blocks').locator('.words').allInnerTexts()).resolves.toEqual(words);
      for (const p of pixels.slice(1)) expect(new Set(p).size).toBeGreaterThan(1); // every draft drew something
      expect(b.errors.filter((e) => !e.includes('404'))).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
