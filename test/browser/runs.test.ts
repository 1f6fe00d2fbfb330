// Issue 22 points 3 and 4 in the real lab (wasm, so the iterations take seconds): every learning-rate
// path refuses a destructive value before a run starts, and so does a task whose prompt and reply reserve overflow
// the policy's context (issue 18); an update that moves the policy too far is
// undone, with a banner and the run's sentence, and the live adapter stays the last good one; Pause → Resume continues; each
// Start makes its own run, and a run another tab is training cannot be continued there (one writer
// per run, src/rl/algos/runLock.ts) until that tab stops it; then it continues from its checkpoint
// there, a Pause in its last iteration ends it, and the stopped run still exports its adapter. The
// Turn-level credit group (issue 19) shows the fields of the chosen algorithm and family, is validated
// like the overrides, and its step credit reaches the run's summary line and stored config.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { because } from '../support/skip.ts';
import { launch, serveApp } from './harness.ts';
import { readRunSettings } from './storeDb.ts';

const shipped = existsSync(join(new URL('../../', import.meta.url).pathname, 'public', 'models', 'manifest.json'));
let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

const RUN_ID = /^train-grpo-bandit-1-\d{8}T\d{6}-[0-9a-f]{4}$/;

/** Opens Train with the policy loaded and a small GRPO run on bandit set up. */
async function openTrain(page: Page, iterations: number): Promise<void> {
  await page.goto(`${server.url}#/settings`);
  await page.getByTestId('model-policy').filter({ hasText: 'loaded on' }).waitFor({ timeout: 120_000 });
  await page.getByRole('link', { name: 'Train' }).click();
  await page.getByTestId('algo').selectOption('grpo');
  await page.getByLabel('Family').selectOption('bandit');
  await page.getByTestId('iterations').fill(String(iterations));
  await page.getByLabel('Tasks per iteration').fill('4');
  await page.getByLabel('K episodes per task').fill('4');
  await page.getByText('Advanced').click();
  await page.getByTestId('train-overrides').fill('{"maxNewTokens": 8, "starpo": {"batch": 8}}');
}

const progress = (page: Page) => page.getByTestId('train-progress');
const iterationsDone = async (page: Page) => Number(await progress(page).getAttribute('data-iterations'));

describe.runIf(shipped)('training runs in the lab', because('public/models/manifest.json is absent: forge the shipped models with `npm run forge`'), () => {
  it(
    'refuses a destructive lr on every path, undoes a too-large update, resumes after pause, and keeps one writer per run across tabs',
    { timeout: 400_000 },
    async () => {
      const b = await launch({ webgpu: false });
      try {
        const a = b.page;
        await openTrain(a, 1);
        const lr = a.getByLabel('Learning rate');
        const error = a.getByTestId('train-error');
        // the Turn-level credit group shows what applies to the algorithm and family (ui/state/turnCredit.ts)
        const credit = a.getByTestId('credit');
        const shown = async () =>
          (await credit.count()) ? credit.locator('[data-testid^=credit-]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid'))) : [];
        await expect.poll(shown).toEqual(['credit-turn', 'credit-step']);
        await a.getByLabel('Family').selectOption('guess');
        await expect.poll(shown).toEqual(['credit-turn', 'credit-step', 'credit-info-gain']);
        for (const [algo, fields] of [
          ['ppo', ['credit-whiten', 'credit-target-kl', 'credit-info-gain']],
          ['rft', ['credit-rft-keep', 'credit-info-gain']],
          ['sweet', ['credit-critic-replay', 'credit-critic-epochs', 'credit-info-gain']],
        ] as const) {
          await a.getByTestId('algo').selectOption(algo);
          await expect.poll(shown).toEqual(fields);
        }
        await a.getByLabel('Family').selectOption('bandit');
        await a.getByTestId('algo').selectOption('mtdpo');
        await expect.poll(() => credit.count()).toBe(0);
        // its values are validated like the overrides: a negative target KL is refused before a run starts
        await a.getByTestId('algo').selectOption('ppo');
        await expect(a.getByTestId('credit-whiten').isChecked()).resolves.toBe(true); // PPO's default
        await a.getByTestId('credit-target-kl').fill('-1');
        await a.getByTestId('train-start').click();
        await expect.poll(() => error.textContent()).toMatch(/targetKl must be a finite number ≥ 0 \(0 = off\), got -1/);
        await a.getByTestId('algo').selectOption('grpo');
        // every learning-rate path is validated the same way (algos/config.ts validateLoopConfig)
        await lr.fill('1000000');
        await a.getByTestId('train-start').click();
        await expect.poll(() => error.textContent()).toMatch(/lr must lie in \(0, 1\), got 1000000/);
        await lr.fill('0.001');
        for (const [over, message] of [
          // (each message differs from the one before, so a stale message cannot pass)
          ['{"criticLr": 1e6}', /criticLr must lie in \(0, 1\), got 1000000/],
          ['{"lr": 1e6}', /^lr must lie in \(0, 1\), got 1000000/],
        ] as const) {
          await a.getByTestId('train-overrides').fill(over);
          await a.getByTestId('train-start').click();
          await expect.poll(() => error.textContent()).toMatch(message);
        }
        // a task whose prompt does not fit the policy's context (its metadata) with the run's reply reserve:
        // sokoban's prompt (the longest) with a 400-token reply reserve overflows a 256- or 512-token context
        await a.getByTestId('train-overrides').fill('{"maxNewTokens": 400, "starpo": {"batch": 8}}');
        await a.getByLabel('Family').selectOption('sokoban');
        await a.getByTestId('train-start').click();
        await expect
          .poll(() => error.textContent())
          .toMatch(
            /^The policy's context is \d+ tokens; this sokoban prompt needs \d+ \+ 400 reply tokens; choose another family, or load a policy forged with a longer context\.$/,
          );
        await a.getByLabel('Family').selectOption('bandit');
        expect(await progress(a).getAttribute('data-run')).toBeNull(); // no run was started

        // lr 0.9 is in range, but its update moves the policy too far: undone before it goes live
        await a.getByTestId('train-overrides').fill('{"maxNewTokens": 8, "starpo": {"batch": 8}}');
        await lr.fill('0.9');
        // (with GiGPO step credit from the form: it reaches the run's summary and its stored config)
        await a.getByTestId('credit-step').selectOption('gigpo');
        await a.getByTestId('credit-step-weight').fill('0.5');
        await a.getByTestId('train-start').click();
        await expect.poll(() => a.getByTestId('run-summary').textContent()).toBe('GRPO · step credit ω 0.5');
        await error.waitFor({ state: 'detached' }); // Start clears the last refusal
        await a.locator('[data-testid=train-progress][data-phase=stopped], [data-testid=train-error]').first().waitFor({ timeout: 120_000 });
        expect(await error.count()).toBe(0);
        await expect(a.getByTestId('rollback').textContent()).resolves.toMatch(/Update undone\..*iteration 1.*the update moved the policy by KL .* per token/s);
        // what is live is the run's adapter as restored (the rejected candidate never leaves the trainer)
        const firstRun = await progress(a).getAttribute('data-run');
        expect(firstRun).toMatch(RUN_ID);
        const stored = (await readRunSettings(a, firstRun!)) as { settings: { starpo: { stepWeight: number; batch: number } } } | null;
        expect([stored?.settings.starpo.stepWeight, stored?.settings.starpo.batch]).toEqual([0.5, 8]); // the form's field and the box's, merged
        await expect(a.getByTestId('adapters').getAttribute('data-worker-active')).resolves.toBe(`${firstRun}/policy`);
        // named for what it is: the update was undone, so the live adapter is the run's start, not "iteration 1"
        await expect(
          a
            .getByTestId('adapters')
            .locator('tr', { hasText: `${firstRun}/policy` })
            .getByTestId('adapter-iteration')
            .innerText(),
        ).resolves.toBe('the start (untrained)');
        // and the run's sentence says so in words (ui/state/runStory.ts)
        await expect(a.getByTestId('run-story').innerText()).resolves.toMatch(
          /^GRPO trained 1 iteration \(16 episodes, \d+ s\) on bandit; .*; a guard undid 1 update; the run kept its start: its updates were undone\.$/,
        );
        // and its export says the same: the safetensors metadata names iteration 0, and every lora_B is the start's zeros
        const saved = a.waitForEvent('download', { predicate: (d) => d.suggestedFilename() === 'adapter_model.safetensors' });
        await a.getByRole('button', { name: 'Export latest as PEFT' }).click();
        const bytes = readFileSync((await (await saved).path())!);
        const headerLength = Number(bytes.readBigUInt64LE(0));
        const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8')) as Record<string, unknown>;
        const meta = header.__metadata__ as Record<string, string>;
        expect([meta.adapter, meta.iteration]).toEqual([`${firstRun}/policy`, '0']);
        const loraB = Object.entries(header as Record<string, { data_offsets: [number, number] }>).filter(([n]) => n.includes('lora_B'));
        expect(loraB.length).toBeGreaterThan(0);
        for (const [, t] of loraB)
          expect(
            new Float32Array(
              bytes.buffer.slice(bytes.byteOffset + 8 + headerLength + t.data_offsets[0], bytes.byteOffset + 8 + headerLength + t.data_offsets[1]),
            ).every((x) => x === 0),
          ).toBe(true);

        // a longer healthy run: Pause, then Resume at once, continues without an error
        await lr.fill('0.001');
        await a.getByTestId('iterations').fill('40');
        await a.getByTestId('credit-step').selectOption('off');
        await a.getByTestId('train-start').click();
        await expect.poll(() => a.getByTestId('run-summary').textContent()).toBe('GRPO · episode credit');
        await a.locator('[data-testid=train-progress][data-iterations="1"]').waitFor({ timeout: 120_000 });
        const running = await progress(a).getAttribute('data-run');
        expect(running).toMatch(RUN_ID);
        expect(running).not.toBe(firstRun); // a new Start is a new run
        await a.getByRole('button', { name: 'Pause' }).click();
        await a.getByRole('button', { name: 'Resume' }).click();
        const resumedFrom = await iterationsDone(a);
        await expect.poll(() => iterationsDone(a), { timeout: 120_000 }).toBeGreaterThan(resumedFrom);
        expect(await error.count()).toBe(0);
        await expect(progress(a).getAttribute('data-phase')).resolves.toBe('running');

        // a second tab: its Start makes its own run; continuing the run tab A trains is refused
        const bPage = await b.context.newPage();
        await openTrain(bPage, 1);
        await bPage.getByTestId('train-start').click();
        await bPage.locator('[data-testid=train-progress][data-phase=stopped], [data-testid=train-error]').first().waitFor({ timeout: 120_000 });
        expect(await bPage.getByTestId('train-error').count()).toBe(0);
        const own = await progress(bPage).getAttribute('data-run');
        expect(own).toMatch(RUN_ID);
        expect([firstRun, running]).not.toContain(own);
        await bPage.getByTestId('train-run').selectOption(running!);
        await bPage.getByTestId('train-start').click();
        await expect.poll(() => bPage.getByTestId('train-error').textContent()).toMatch(/is being trained in another tab or window/);
        // once tab A stops, the run is free: tab B continues it from its checkpoint
        // (Stop reaches the trainer worker between two of its model runs: a train step on wasm can hold it for seconds)
        await a.getByRole('button', { name: 'Stop' }).click();
        await expect.poll(() => progress(a).getAttribute('data-phase'), { timeout: 120_000 }).toBe('stopped');
        const aDone = await iterationsDone(a);
        // the stopped run's latest adapter still exports as PEFT files
        const downloads: string[] = [];
        a.on('download', (d) => downloads.push(d.suggestedFilename()));
        await a.getByRole('button', { name: 'Export latest as PEFT' }).click();
        await expect.poll(() => [...downloads].sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
        await bPage.getByTestId('iterations').fill('2');
        await bPage.getByTestId('train-start').click();
        await bPage.getByTestId('train-error').waitFor({ state: 'detached' }); // Start clears the refusal
        await bPage.locator('[data-testid=train-progress][data-iterations="1"], [data-testid=train-error]').first().waitFor({ timeout: 120_000 });
        expect(await bPage.getByTestId('train-error').allTextContents()).toEqual([]);
        expect(await progress(bPage).getAttribute('data-run')).toBe(running);
        // it goes on from the checkpoint tab A left, and says so
        expect(Number(await progress(bPage).getAttribute('data-run-iteration'))).toBeGreaterThan(aDone);
        await expect(bPage.getByTestId('run-iteration').textContent()).resolves.toMatch(/continued from its checkpoint/);
        // Pause, then Resume, during the last planned iteration: the run ends after it, never one more
        await bPage.getByRole('button', { name: 'Pause' }).click();
        await bPage.getByRole('button', { name: 'Resume' }).click();
        await expect.poll(() => progress(bPage).getAttribute('data-phase'), { timeout: 120_000 }).toBe('stopped');
        await bPage.waitForTimeout(500);
        expect(await iterationsDone(bPage)).toBe(2);
        expect(await bPage.getByRole('button', { name: 'Resume' }).count()).toBe(0);
        expect(b.errors).toEqual([]);
      } finally {
        await b.close();
      }
    },
  );
});
