// The Credit view in real Chromium: episodes played in the lab open as a turn × estimator heatmap
// with the information-gain ground truth, and the fidelity table covers them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, playToEnd, serveApp } from './harness.ts';

let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

describe('Credit view', () => {
  it('shows a heatmap with ground truth and a fidelity table over played guess episodes', async () => {
    const b = await launch({ webgpu: false });
    try {
      const { page } = b;
      await page.goto(`${server.url}#/play`);
      await page.getByTestId('agent-kind').selectOption('noisy');
      for (let i = 0; i < 3; i++) await playToEnd(page);
      await page.getByRole('link', { name: 'Credit' }).click();
      await expect.poll(() => page.getByTestId('credit-episode').count(), { timeout: 10_000 }).toBe(3);
      await page.getByTestId('credit-episode').first().click();
      const heatmap = page.getByTestId('credit-heatmap');
      await heatmap.waitFor();
      await expect(heatmap.getByRole('rowheader').allInnerTexts()).resolves.toEqual(expect.arrayContaining(['MC return', 'truth: information gain (bits)']));
      expect(await heatmap.getByRole('gridcell').count()).toBeGreaterThan(2);
      await page.getByTestId('fidelity').locator('table').waitFor();
      await expect(page.getByTestId('fidelity').locator('tbody tr').count()).resolves.toBe(2);
      await page.screenshot({ path: 'docs/screenshots/credit.png', fullPage: true });
    } finally {
      await b.close();
    }
  });
});
