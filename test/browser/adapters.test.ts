// The live adapter in real Chromium on wasm: one GRPO iteration makes an adapter live, and the Train
// view's sentence of the run names the adapter its Adapters table lists; Evaluate chooses it by itself; Play names it
// and records it on the episode it plays; after a reload the live policy is the base again, and both
// Play and Evaluate offer the stored adapter, which loads from IndexedDB into the policy worker and
// plays (Evaluate's Pass@(K,T), a Play episode recorded under it).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { because } from '../support/skip.ts';
import { launch, serveApp } from './harness.ts';
import { readDb } from './storeDb.ts';

const shipped = existsSync(join(new URL('../../', import.meta.url).pathname, 'public', 'models', 'manifest.json'));
let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

/** Plays a policy episode of guess to its end with the simulator; returns the stored record's adapter. */
async function playedAdapter(page: Page): Promise<string | null> {
  const outcome = page.getByTestId('outcome');
  const before = (await readDb(page)).length;
  await page.getByTestId('new-episode').click();
  await page.getByTestId('run-to-end').or(outcome).first().waitFor({ timeout: 60_000 });
  await page
    .getByTestId('run-to-end')
    .click({ timeout: 5_000 })
    .catch(() => undefined);
  await outcome.waitFor({ timeout: 60_000 });
  const episodes = (await readDb(page)).sort((a, b) => a.createdAt - b.createdAt);
  expect(episodes).toHaveLength(before + 1);
  const last = episodes.at(-1)!;
  expect(last.model.policy).toBe('policy(T=1)');
  return last.model.adapter;
}

describe.runIf(shipped)('the live adapter', because('public/models/manifest.json is absent: forge the shipped models with `npm run forge`'), () => {
  it('is named in Play, recorded on its episodes, and offered from the store after a reload', { timeout: 600_000 }, async () => {
    const b = await launch({ webgpu: false });
    try {
      const { page } = b;
      await page.goto(`${server.url}#/train`);
      await page.getByTestId('train-start').and(page.locator(':enabled')).waitFor({ timeout: 120_000 });
      await page.getByTestId('algo').selectOption('grpo');
      await page.getByTestId('iterations').fill('1');
      await page.getByLabel('Tasks per iteration').fill('2');
      await page.getByLabel('K episodes per task').fill('4');
      await page.getByTestId('train-start').click();
      await page.locator('[data-testid=train-progress][data-iterations="1"], [data-testid=train-error]').first().waitFor({ timeout: 300_000 });
      expect(await page.getByTestId('train-error').count()).toBe(0);
      const adapter = `${await page.getByTestId('train-progress').getAttribute('data-run')}/policy`;
      await page.getByTestId('adapters').getByText('live').waitFor();
      // whose adapter it is: iteration 1's, or the start's where the run's validation kept it (issue 49)
      const kept = await page.getByTestId('adapters').locator('tr', { hasText: adapter }).getByTestId('adapter-iteration').innerText();
      expect(['iteration 1', 'the start (untrained)']).toContain(kept);
      // the run's sentence (runStory.ts) says what it did and names the same adapter as the table
      const story = page.getByTestId('run-story');
      await expect(story.innerText()).resolves.toMatch(
        /^GRPO trained 1 iteration \(8 episodes, \d+ s\) on guess; not validated \(the guard checks every 8 iterations\); /,
      );
      await expect(story.innerText()).resolves.toMatch(kept === 'iteration 1' ? /; the kept adapter is iteration 1's\.$/ : /; the run kept its start: .*\.$/);
      await expect(story.getAttribute('data-kept-iteration')).resolves.toBe(kept === 'iteration 1' ? '1' : '0');

      // Evaluate, with no adapter chosen, evaluates the live one beside the base
      await page.getByRole('link', { name: 'Evaluate', exact: true }).click();
      await expect.poll(() => page.getByTestId('eval-adapter').inputValue()).toBe(adapter);

      // Play: the live adapter is the one in the menu, named on the episode, and recorded with it
      await page.getByRole('link', { name: 'Play', exact: true }).click();
      await page.getByTestId('family').selectOption('guess');
      await expect.poll(() => page.getByTestId('live-adapter').inputValue()).toBe(adapter);
      // the run's long id stays inside the task card
      const card = (await page.locator('aside.task').boundingBox())!;
      const menu = (await page.getByTestId('live-adapter').boundingBox())!;
      expect(menu.x + menu.width, `adapter menu ${JSON.stringify(menu)} in card ${JSON.stringify(card)}`).toBeLessThanOrEqual(card.x + card.width);
      expect(await playedAdapter(page)).toBe(adapter);
      await expect(page.getByTestId('played-by').innerText()).resolves.toBe(`Played by policy · adapter ${adapter}`);
      // the base policy, chosen in Play, plays and is recorded as such
      await page.getByTestId('live-adapter').selectOption('');
      expect(await playedAdapter(page)).toBeNull();
      await expect(page.getByTestId('played-by').innerText()).resolves.toBe('Played by policy · base');

      // after a reload the worker has no adapter, but the store does: both menus offer it
      await page.reload();
      await page
        .getByTestId('agent-kind')
        .locator('option[value=policy]')
        .filter({ hasText: /^policy$/ })
        .waitFor({ state: 'attached', timeout: 120_000 });
      const choice = page.getByTestId('live-adapter').locator(`option[value="${adapter}"]`);
      await expect(choice.innerText()).resolves.toBe(`${adapter} · grpo · ${kept}`); // the stored label agrees with the Train view's
      await expect(page.getByTestId('live-adapter').inputValue()).resolves.toBe('');
      await page.getByRole('link', { name: 'Evaluate', exact: true }).click();
      await page.getByTestId('eval-adapter').selectOption(adapter);
      await page.getByTestId('eval-tasks').fill('1');
      await page.getByTestId('eval-n').fill('1');
      await page.getByTestId('eval-run').click();
      await page.getByTestId('passkt-adapter').or(page.getByRole('alert')).first().waitFor({ timeout: 120_000 });
      await expect(page.getByTestId('passkt-adapter').innerText()).resolves.toContain(`adapter ${adapter} · 1 episodes`);
      // and Play makes it live again from the store
      await page.getByRole('link', { name: 'Play', exact: true }).click();
      await page.getByTestId('live-adapter').selectOption(adapter);
      expect(await playedAdapter(page)).toBe(adapter);
      await expect(page.getByTestId('played-by').innerText()).resolves.toBe(`Played by policy · adapter ${adapter}`);
      expect(b.errors.filter((e) => !e.includes('404'))).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
