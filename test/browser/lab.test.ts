// The whole lab on the shipped models in real Chromium: play a full guess episode as the person
// against the learned policy, see its credit, run one training iteration in the trainer worker whose
// adapter the policy worker then uses, see Pass@(K,T) for base and adapter, and export then import
// the episodes. Screenshots go to docs/screenshots for the README. It runs on wasm (~20 s):
// LAB_WEBGPU=1 runs it on WebGPU, which here is SwiftShader — correct but so slow that the training
// iteration alone took over 9 minutes (measured), too long for `npm test`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { because } from '../support/skip.ts';
import { launch, serveApp } from './harness.ts';

const shipped = existsSync(join(new URL('../../', import.meta.url).pathname, 'public', 'models', 'manifest.json'));
let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

describe.runIf(shipped)(
  'the lab on the shipped models',
  because('public/models/manifest.json is absent: forge the shipped models with `npm run forge`'),
  () => {
    it('plays, shows credit, trains, evaluates, exports and imports', { timeout: 600_000 }, async () => {
      const b = await launch({ webgpu: process.env.LAB_WEBGPU === '1' });
      const t0 = Date.now();
      const mark = (what: string) => console.log(`lab test: ${what} at ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      try {
        const { page } = b;
        // Auto passes over a software adapter (SwiftShader here) for wasm; LAB_WEBGPU=1 asks for WebGPU by name.
        await page.goto(`${server.url}${process.env.LAB_WEBGPU === '1' ? '?backend=webgpu' : ''}#/settings`);
        await page.getByTestId('model-policy').filter({ hasText: 'loaded on' }).waitFor({ timeout: 180_000 });

        // Play: the person answers the learned policy until the episode ends.
        await page.getByRole('link', { name: 'Play' }).click();
        await page.getByTestId('family').selectOption('guess');
        await page.getByTestId('agent-kind').selectOption('policy');
        // With the critic loaded, the critic-based estimators join the live credit gutter.
        await page.getByRole('button', { name: 'GAE (turn)' }).click();
        await page.getByRole('button', { name: 'SWEET-RL' }).click();
        // bi-level GAE also draws its per-token credit over each reply's tokens
        await page.getByRole('button', { name: 'Bi-level GAE' }).click();
        await page.getByTestId('new-episode').click();
        for (let i = 0; i < 8 && !(await page.getByTestId('outcome').count()); i++) {
          await page.getByTestId('reply-box').or(page.getByTestId('outcome')).first().waitFor({ timeout: 120_000 });
          if (await page.getByTestId('outcome').count()) break;
          await page.getByTestId('suggestion').click();
          await page.getByTestId('reply-box').press('Enter');
        }
        await page.getByTestId('outcome').waitFor({ timeout: 120_000 });
        expect(await page.getByTestId('credit-gutter').count()).toBeGreaterThan(0);
        await expect.poll(() => page.getByTestId('credit-gutter').last().innerText(), { timeout: 60_000 }).toMatch(/GAE \(turn\)[\s\S]*Bi-level GAE/);
        // the shipped critic has no SWEET-RL adapter: its credit would be 0 on every turn, so it is not drawn, and its chip says why
        expect(await page.getByTestId('credit-gutter').last().innerText()).not.toContain('SWEET-RL');
        await expect(page.getByRole('button', { name: 'SWEET-RL' }).getAttribute('title')).resolves.toMatch(/the loaded critic has no SWEET-RL adapter/);
        await page.getByText('λ = 0.95').waitFor();
        // per-token strips (bi-level GAE) under every agent turn; a token's number on focus
        const strips = page.getByTestId('token-strip');
        await expect.poll(() => strips.count(), { timeout: 60_000 }).toBe(await page.getByTestId('agent-turn').count());
        const first = strips.filter({ hasText: 'Bi-level GAE' }).first().locator('button');
        await first.first().focus();
        await page.keyboard.press('ArrowRight');
        await expect(first.nth(1).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
        // the focused strip's readout, the first turn's (a later strip may show one for the token under the mouse)
        await expect(page.getByTestId('token-readout').first().innerText()).resolves.toMatch(
          /Bi-level GAE per token \(γ 1, λ 1, γ_turn 0\.95, λ_turn 1; critic\): [+−]\d\.\d{3}/,
        );
        await page.screenshot({ path: 'docs/screenshots/play-policy.png' });

        mark('Credit');
        // Credit: the episode opens as a heatmap with the information-gain truth.
        await page.getByRole('link', { name: 'Credit' }).click();
        await page.getByTestId('credit-heatmap').waitFor();
        await expect(page.getByTestId('credit-heatmap').innerText()).resolves.toMatch(/policy/);

        mark('Train');
        // Train: one GRPO iteration on guess; its adapter becomes the live policy.
        await page.getByRole('link', { name: 'Train' }).click();
        await page.getByTestId('algo').selectOption('grpo');
        await page.getByTestId('iterations').fill('1');
        await page.getByLabel('Tasks per iteration').fill('2');
        await page.getByLabel('K episodes per task').fill('4');
        await page.getByTestId('train-start').click();
        await page.locator('[data-testid=train-progress][data-iterations="1"], [data-testid=train-error]').first().waitFor({ timeout: 600_000 });
        expect(await page.getByTestId('train-error').count()).toBe(0);
        await page.getByTestId('adapters').getByText('live').waitFor();
        await page.screenshot({ path: 'docs/screenshots/train.png', fullPage: true });

        mark('Evaluate');
        // Evaluate: Pass@(K,T) for the base policy and the new adapter, and their difference.
        await page.getByRole('link', { name: 'Evaluate' }).click();
        await page.getByTestId('eval-tasks').fill('2');
        await page.getByTestId('eval-n').fill('2');
        // choose the adapter this run trained, as a person would (adapters.test and workshop.test check
        // that the view chooses the live one by itself)
        const trained = page.getByTestId('eval-adapter').locator('option', { hasText: '/policy' }).first();
        await trained.waitFor({ state: 'attached' });
        await page.getByTestId('eval-adapter').selectOption(await trained.evaluate((o) => (o as HTMLOptionElement).value));
        await expect(page.getByTestId('eval-adapter').inputValue()).resolves.toMatch(/\/policy$/);
        await page.getByTestId('eval-run').click();
        await page.getByTestId('passkt-diff').waitFor({ timeout: 300_000 });
        await page.getByTestId('passkt-base').waitFor();
        // success with its 95% interval over tasks, and the paired difference says whether it is beyond noise
        await expect(page.getByTestId('passkt-base').innerText()).resolves.toMatch(/success \d+% \(\d+–\d+\)/);
        await expect(page.getByTestId('success-diff').innerText()).resolves.toMatch(/over the same 2 tasks: [+−]\d+ points .*, (beyond|within) noise/);
        await page.screenshot({ path: 'docs/screenshots/evaluate.png', fullPage: true });

        mark('Data');
        // Data: export our JSONL, then import it back (every episode is already there: skipped, none lost).
        await page.getByRole('link', { name: 'Data' }).click();
        await page.getByTestId('episode-table').waitFor();
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
        const file = await download.path();
        await page.getByTestId('import-file').setInputFiles(file);
        await expect.poll(() => page.getByTestId('data-message').innerText()).toMatch(/Imported 0 episodes .*already present/);
        expect(b.errors.filter((e) => !e.includes('404'))).toEqual([]);
      } finally {
        await b.close();
      }
    });
  },
);
