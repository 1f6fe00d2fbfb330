// Workshop mode in real Chromium: the five steps open their views with the right settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, serveApp } from './harness.ts';

let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

describe('workshop mode', () => {
  it('walks through its five steps, each opening its view', async () => {
    const b = await launch({ webgpu: false });
    try {
      const { page } = b;
      await page.goto(server.url);
      await page.locator('[data-testid=backend-status][data-state=ready]').waitFor({ timeout: 120_000 });
      await page.getByTestId('workshop-start').click();
      const overlay = page.getByTestId('workshop');
      await expect(overlay.innerText()).resolves.toMatch(/Step 1 of 5/);
      await page.getByTestId('workshop-action').click();
      // Step 1 starts a guess episode (the policy when it is shipped, else the noisy expert).
      await expect(page.getByTestId('family').inputValue()).resolves.toBe('guess');
      await page.getByTestId('hidden-info').waitFor();
      await page.getByTestId('run-to-end').click();
      await page.getByTestId('outcome').waitFor({ timeout: 120_000 });
      const views = ['credit', 'play', 'train', 'evaluate'];
      for (const view of views) {
        await page.getByTestId('workshop-next').click();
        await page.getByTestId('workshop-action').click();
        await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/${view}`);
      }
      await expect(page.getByTestId('credit-heatmap').count()).resolves.toBe(0); // we are on Evaluate now
      await expect(page.getByTestId('eval-family').inputValue()).resolves.toBe('guess');
      await page.getByTestId('workshop-next').click(); // Finish
      await expect(overlay.count()).resolves.toBe(0);
    } finally {
      await b.close();
    }
  });
});
