// The trajectory store in real Chromium through the app: a page closed mid-episode keeps every
// completed turn and shows the episode as interrupted when reopened; the Data view lists episodes,
// deletes with undo, and rejects a broken import whole, naming the line.
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, serveApp } from './harness.ts';

let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

describe('trajectory store in the lab', () => {
  it('keeps completed turns of an episode when the page closes abruptly, and marks it interrupted', async () => {
    const first = await launch({ webgpu: false });
    const profile = first.userDataDir;
    const { page } = first;
    await page.goto(`${server.url}#/play`);
    await page.getByTestId('family').selectOption('guess');
    await page.getByTestId('agent-kind').selectOption('expert');
    await page.getByTestId('new-episode').click();
    // Answer two questions as the person, then close the browser without finishing the episode.
    for (let i = 0; i < 2; i++) {
      await page.getByTestId('reply-box').waitFor();
      await page.getByTestId('suggestion').click();
      await page.getByTestId('reply-box').press('Enter');
      await expect.poll(() => page.getByTestId('agent-turn').count()).toBe(i + 1);
    }
    // The agent's next question appears only after the previous turns were committed.
    await page.getByTestId('reply-box').waitFor();
    await first.close({ keepProfile: true });

    const second = await launch({ webgpu: false, userDataDir: profile });
    try {
      await second.page.goto(`${server.url}#/data`);
      await second.page.getByTestId('episode-table').waitFor();
      const row = second.page.locator('tr[data-status=interrupted]');
      await expect(row.count()).resolves.toBe(1);
      // system prompt + 2 × (agent, collaborator)
      await expect(row.locator('td').nth(7).innerText()).resolves.toBe('5');
      await expect(second.page.getByTestId('notice').first().innerText()).resolves.toMatch(/interrupted/);
    } finally {
      await second.close();
    }
  });

  it('lists, deletes with undo, and refuses a broken import whole', async () => {
    const b = await launch({ webgpu: false });
    try {
      const { page } = b;
      await page.goto(`${server.url}#/play`);
      await page.getByTestId('agent-kind').selectOption('expert');
      await page.getByTestId('new-episode').click();
      await page.getByTestId('run-to-end').click();
      await page.getByTestId('outcome').waitFor();
      await page.getByRole('link', { name: 'Data' }).click();
      await page.getByTestId('episode-table').waitFor();
      await expect(page.locator('tbody tr').count()).resolves.toBe(1);
      await page.locator('tbody tr input[type=checkbox]').check();
      await page.getByTestId('delete').click();
      await page.getByTestId('empty').waitFor();
      await page.getByTestId('undo').click();
      await page.getByTestId('episode-table').waitFor();

      const dir = mkdtempSync(join(tmpdir(), 'turnwise-import-'));
      const bad = join(dir, 'bad.jsonl');
      writeFileSync(bad, '{"format":"turnwise.trajectories","version":1}\n{"type":"episode", "id": 5}\nnot json\n');
      await page.getByTestId('import-file').setInputFiles(bad);
      await page.getByTestId('import-report').waitFor();
      await expect(page.getByTestId('import-report').innerText()).resolves.toMatch(/line 2/);
      await expect(page.getByTestId('data-message').innerText()).resolves.toMatch(/Nothing imported/);
      await expect(page.locator('tbody tr').count()).resolves.toBe(1);
      await page.screenshot({ path: 'docs/screenshots/data.png' });
    } finally {
      await b.close();
    }
  });
});
