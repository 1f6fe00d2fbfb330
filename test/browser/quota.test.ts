// Issue 22 point 7: storage runs out mid-episode in Play. Chromium's own quota does the refusing: the
// profile lives on a 128 MiB tmpfs, so the origin's quota is ~77 MiB (60% of the volume), and the page
// fills it with a second database until IndexedDB answers QuotaExceededError. The next turn is
// refused: Play says so at once, keeps the turns on screen, and writes them, in order, when Retry
// saving is pressed after the filler is deleted. Nothing is lost and nothing is lost silently.
// Why not CDP's Storage.overrideQuotaForOrigin: in Chromium 156 it is reported active
// (getUsageAndQuota says quota 10 bytes, overrideActive true) yet IndexedDB still commits 100 kB
// writes past it, so it cannot exercise this path. The volume also holds the profile's HTTP cache of the
// shipped models (19.6 MB since the student ships, 2026-12-07): at 64 MiB the test then failed in 2 of 4
// runs (after the fill the page no longer offered the simulator's reply), at 128 MiB it passed 3 of 3.
// Mounting needs root (as CI runs); elsewhere the test is skipped and says why.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { skipNow } from '../support/skip.ts';
import { launch, serveApp } from './harness.ts';
import { readDb } from './storeDb.ts';

const NO_MOUNT = 'it needs `mount -t tmpfs` (root) for a small volume whose real quota the page can fill';

// Mounted in beforeAll, not at import: collecting or listing the tests leaves nothing mounted.
let volume = '';
let mounted = false;
let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  volume = mkdtempSync(join(tmpdir(), 'turnwise-quota-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=128m', 'tmpfs', volume], { stdio: 'ignore' });
    mounted = true;
  } catch {
    console.warn(`quota test skipped: ${NO_MOUNT}`);
  }
  if (mounted) server = await serveApp();
});
afterAll(async () => {
  await server?.close();
  if (mounted) execFileSync('umount', [volume]);
  if (volume) rmSync(volume, { recursive: true, force: true });
});

/** Lets the simulator answer once; resolves when turn `turn` (1-based) is drawn or the episode ended. */
async function simulateOnce(page: Page, turn: number): Promise<void> {
  await page.getByTestId('simulate-reply').click();
  await page
    .locator(`[data-testid=agent-turn] >> nth=${turn - 1}`)
    .or(page.getByTestId('outcome'))
    .first()
    .waitFor({ timeout: 60_000 });
}

/** Writes `size` random (incompressible) bytes into a database of its own; the error's name when refused. */
function fill(page: Page, size: number): Promise<string> {
  return page.evaluate(
    (size) =>
      new Promise<string>((resolve, reject) => {
        const open = indexedDB.open('filler');
        open.onupgradeneeded = () => open.result.createObjectStore('blobs', { autoIncrement: true });
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const bytes = new Uint8Array(size);
          for (let i = 0; i < size; i += 65_536) crypto.getRandomValues(bytes.subarray(i, i + 65_536)); // 64 KiB per call at most
          const tx = db.transaction('blobs', 'readwrite');
          tx.objectStore('blobs').put(bytes.buffer);
          tx.oncomplete = () => (db.close(), resolve('ok'));
          tx.onabort = () => (db.close(), resolve(tx.error?.name ?? 'abort'));
        };
      }),
    size,
  );
}

/** Fills the origin's quota in ever smaller pieces, until not even 64 bytes fit; returns the last refusal's name. */
async function fillQuota(page: Page): Promise<string> {
  let refusal = '';
  for (let size = 1 << 20; size >= 64; size >>= 2) {
    for (let n = 0; n < 200 && (refusal = await fill(page, size)) === 'ok'; n++);
  }
  return refusal;
}

describe('storage quota in Play', () => {
  it('says when a turn cannot be saved, keeps it, and saves every turn in order once space is back', async (ctx) => {
    if (!mounted) skipNow(ctx, NO_MOUNT);
    const b = await launch({ webgpu: false, userDataDir: join(volume, 'profile'), serviceWorkers: 'block' });
    try {
      const { page } = b;
      await page.goto(`${server.url}#/play`);
      await page.getByTestId('family').selectOption('guess');
      await page.getByTestId('agent-kind').selectOption('noisy');
      await page.getByTestId('new-episode').click();
      await page.getByTestId('simulate-reply').waitFor({ timeout: 60_000 });
      await simulateOnce(page, 1);
      expect(await page.getByTestId('save-error').count()).toBe(0);

      await expect(fillQuota(page)).resolves.toBe('QuotaExceededError');
      await simulateOnce(page, 2);
      const refused = async () => (await page.getByTestId('agent-turn').count()) - 1; // all but the first turn
      // Play says so at once, counting exactly the turns drawn since the refusal; a collaborative agent
      // moves again at once, so its next turn may already be drawn (and refused) too: read both until
      // they agree
      const saysSo = async () => {
        const n = await refused();
        const text = await page.getByTestId('save-error').innerText();
        return new RegExp(`^${n} ${n === 1 ? 'turn is' : 'turns are'} not saved yet: Storage is full.*They stay on screen`, 's').test(text) ? n : 0;
      };
      await expect.poll(saysSo).toBeGreaterThanOrEqual(1);
      // later turns are refused too, behind the first: all are counted, all stay drawn (a guess that
      // ends the episode lands without a reply, so one click may draw two turns)
      if (!(await page.getByTestId('outcome').count())) {
        await simulateOnce(page, 3);
        // (the notice may lag a turn drawn a moment ago, as above: read both until they agree)
        await expect.poll(saysSo).toBeGreaterThanOrEqual(2);
      }
      const shown = await page.getByTestId('agent-turn').locator('.text').allInnerTexts();
      expect((await readDb(page))[0].agentTexts).toEqual(shown.slice(0, 1));

      await page.evaluate(() => new Promise((resolve) => (indexedDB.deleteDatabase('filler').onsuccess = resolve))); // space is back
      await page.getByTestId('retry-save').click();
      await page.getByTestId('save-error').waitFor({ state: 'detached' });
      const [stored] = await readDb(page);
      expect(stored.agentTexts).toEqual(shown);
      expect(stored.roles.slice(1)).toEqual(shown.flatMap(() => ['agent', 'collaborator']));
      // and the episode goes on saving normally to its end
      await page
        .getByTestId('run-to-end')
        .click({ timeout: 5_000 })
        .catch(() => undefined);
      await page.getByTestId('outcome').waitFor({ timeout: 60_000 });
      await expect.poll(async () => (await readDb(page))[0].status).toBe('complete');
      expect(await page.getByTestId('save-error').count()).toBe(0);
    } finally {
      await b.close();
    }
  });
});
