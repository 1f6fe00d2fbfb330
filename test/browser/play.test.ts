// Play in real Chromium: a person answers the agent through the reply box until the episode ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, serveApp } from './harness.ts';

let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

describe('Play view', () => {
  it('plays a full guess episode with the person typing every reply', async () => {
    const b = await launch({ webgpu: false });
    try {
      const { page } = b;
      await page.goto(`${server.url}#/play`);
      await page.getByTestId('family').selectOption('guess');
      await page.getByTestId('agent-kind').selectOption('expert');
      await page.getByTestId('new-episode').click();
      await expect(page.getByTestId('hidden-info').innerText()).resolves.toMatch(/never to the agent/);
      let replies = 0;
      while (!(await page.getByTestId('outcome').count())) {
        await page.locator('[data-testid=reply-box], [data-testid=outcome]').first().waitFor();
        if (await page.getByTestId('outcome').count()) break;
        // Take the simulator's suggestion as the person's own answer, then send it by keyboard.
        await page.getByTestId('suggestion').click();
        await page.getByTestId('reply-box').press('Enter');
        replies++;
        expect(replies).toBeLessThan(12);
      }
      await expect(page.getByTestId('outcome').getAttribute('data-success')).resolves.toBe('true');
      expect(await page.getByTestId('agent-turn').count()).toBeGreaterThan(1);
      await expect(page.getByText('You', { exact: true }).count()).resolves.toBe(replies);
      expect(b.errors.filter((e) => !e.includes('404'))).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
