// Play in real Chromium: a person answers the agent through the reply box until the episode ends;
// a RAGEN game goes move by move on "Next move", and starting another episode mid-way closes the
// unfinished one in the store (the Data view lists it as aborted beside the finished one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, playToEnd, serveApp } from './harness.ts';

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
      // a second episode replaces the first, which is saved as aborted; the second runs to its end
      await playToEnd(page);
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
});
