// The kill window (issue 22 point 1): the page is killed (its renderer crashed through CDP, as a tab
// killed by the OS) at random moments, many of them 0–50 ms after a turn appears, and after reopening
// every turn that was on screen is in IndexedDB, whole (agent message and reply), and no stored
// episode ends on an agent message; Data's Resume then continues one in Play and Discard closes one. Play draws a turn only after the one transaction that holds its
// two records (and the outcome, for the last) committed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, serveApp } from './harness.ts';
import { readDb } from './storeDb.ts';
import { Rng } from '../../src/rl/util/rng.ts';

/** Kills per run (issue 22 asks for 20; TURNWISE_KILLS shortens a local try). */
const KILLS = Number(process.env.TURNWISE_KILLS ?? 20);

let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

describe('kill window', () => {
  it('keeps every turn drawn before a kill at 20 random moments; an interrupted one resumes or is discarded', async () => {
    const b = await launch({ webgpu: false });
    const rng = new Rng(22);
    const rand = (): number => rng.next();
    const shown: string[][] = [];
    const delays: number[] = [];
    try {
      let page = b.page;
      for (let kill = 0; kill < KILLS; kill++) {
        await page.goto(`${server.url}#/play`);
        await page.getByTestId('family').selectOption('guess');
        await page.getByTestId('agent-kind').selectOption('noisy');
        await page.getByTestId('new-episode').click();
        // the simulator answers k questions, one click each; kill 0–50 ms (most kills) or up to 400 ms after turn k appears
        const k = 1 + Math.floor(rand() * 3);
        for (let j = 1; j <= k; j++) {
          const outcome = page.getByTestId('outcome');
          await page.getByTestId('simulate-reply').or(outcome).first().waitFor({ timeout: 60_000 });
          if (await outcome.count()) break;
          await page.getByTestId('simulate-reply').click();
          await page
            .locator(`[data-testid=agent-turn] >> nth=${j - 1}`)
            .or(outcome)
            .first()
            .waitFor({ timeout: 60_000 });
        }
        const delay = rand() < 0.75 ? Math.floor(rand() * 51) : Math.floor(rand() * 400);
        delays.push(delay);
        if (delay) await page.waitForTimeout(delay);
        shown.push(await page.getByTestId('agent-turn').locator('.text').allInnerTexts());
        const cdp = await b.context.newCDPSession(page);
        const crashed = new Promise<void>((resolve) => page.once('crash', () => resolve()));
        void cdp.send('Page.crash').catch(() => undefined); // never answers: the renderer is gone
        await crashed;
        await page.close().catch(() => undefined);
        page = await b.context.newPage();
      }
      await page.goto(`${server.url}#/data`);
      // the reopened lab marks the last killed episode interrupted as its store opens
      await expect.poll(async () => (await readDb(page)).filter((e) => e.status === 'in-progress').length).toBe(0);
      const stored = (await readDb(page)).sort((x, y) => x.createdAt - y.createdAt);
      expect(stored).toHaveLength(KILLS);
      for (const ep of stored) {
        // system, then whole (agent, reply) turns
        expect(ep.roles[0]).toBe('system');
        expect(ep.roles.length % 2).toBe(1);
        ep.roles.slice(1).forEach((r, i) => expect(r).toBe(i % 2 ? 'collaborator' : 'agent'));
        if (ep.status === 'complete') expect(ep.outcome).not.toBeNull();
        else expect(ep.status).toBe('interrupted');
      }
      // what kill i's screen showed is in episode i (oldest first), in order
      for (const [i, texts] of shown.entries()) {
        expect(stored[i].agentTexts.slice(0, texts.length), `kill ${i}, ${delays[i]} ms after a turn`).toEqual(texts);
      }
      // Data → Resume continues an interrupted episode to its end in Play; Discard closes another
      const interrupted = stored.filter((e) => e.status === 'interrupted');
      expect(interrupted.length).toBeGreaterThan(1);
      // the notice names the episode this opening found interrupted (the earlier ones were found by earlier openings)
      const notice = page.getByTestId('notice').filter({ hasText: 'interrupted' });
      await expect(notice.innerText()).resolves.toContain('A guess episode was interrupted when the lab last closed.');
      await expect(notice.getByRole('button').allInnerTexts()).resolves.toEqual(['Resume it', 'Discard it', '×']);
      const rows = page.getByTestId('episode-table').locator('tbody tr[data-status=interrupted]');
      await expect.poll(() => rows.count()).toBe(interrupted.length);
      await rows.first().getByTestId('resume').click();
      await page.getByTestId('run-to-end').or(page.getByTestId('outcome')).first().waitFor();
      await page
        .getByTestId('run-to-end')
        .click({ timeout: 2_000 })
        .catch(() => undefined);
      await page.getByTestId('outcome').waitFor({ timeout: 60_000 });
      await page.goto(`${server.url}#/data`);
      await expect.poll(() => rows.count()).toBe(interrupted.length - 1);
      await rows.first().getByTestId('discard').click();
      await expect.poll(() => rows.count()).toBe(interrupted.length - 2);
      const after = await readDb(page);
      expect(after.filter((e) => e.status === 'complete').length).toBe(stored.filter((e) => e.status === 'complete').length + 1);
      expect(after.filter((e) => e.status === 'aborted').length).toBe(1);
      expect(after).toHaveLength(KILLS);
      for (const ep of after) expect(ep.roles.length % 2).toBe(1);
      const onScreen = shown.reduce((a, t) => a + t.length, 0);
      process.stdout.write(
        `kill window: ${KILLS} kills (delays ${delays.join(',')} ms), ${onScreen} turns on screen, all stored; ${stored.filter((e) => e.status === 'interrupted').length} interrupted, ${stored.filter((e) => e.status === 'complete').length} complete\n`,
      );
    } finally {
      await b.close();
    }
  });
});
