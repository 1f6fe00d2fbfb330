// Issue 20's Done-when for the person's seat: a person plays guess through the UI typing answers drawn
// from a list of varied phrasings (plain, slang, hedged, typos, emoji, contrast clauses), and every
// answer is read right or asked about again — never misread. The phrasings and their readings are the
// human-labelled table of test/unit/envs/guessAnswerTable.ts; only those whose reading does not depend
// on the attribute asked are used, since the agent picks the question.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, serveApp } from './harness.ts';
import { ANSWER_TABLE } from '../unit/envs/guessAnswerTable.ts';
import { readReply } from '../../src/rl/envs/guess/answers.ts';

let server: Awaited<ReturnType<typeof serveApp>>;
beforeAll(async () => {
  server = await serveApp();
});
afterAll(async () => server?.close());

/** Every `step`-th attribute-free phrasing the table labels `kind`. */
function phrasings(kind: 'yes' | 'no' | 'unsure', step: number): string[] {
  const free = ANSWER_TABLE.filter(
    ([text, expected, attribute]) => expected === kind && attribute === undefined && readReply(text, 'fly').kind === readReply(text, 'mammal').kind,
  );
  return free.filter((_, i) => i % step === 0).map(([text]) => text);
}

describe('the person in the collaborator seat', () => {
  it('reads 30+ varied typed answers right or asks again, never misreading one', { timeout: 300_000 }, async () => {
    const queue = { yes: phrasings('yes', 5), no: phrasings('no', 5), unsure: phrasings('unsure', 3) };
    expect(queue.yes.length + queue.no.length).toBeGreaterThanOrEqual(24);
    expect(queue.unsure.length).toBeGreaterThanOrEqual(6);
    const b = await launch({ webgpu: false });
    const typed: string[] = [];
    let hedges = 0;
    let plainAskedAgain = 0;
    try {
      const { page } = b;
      await page.goto(`${server.url}#/play`);
      await page.getByTestId('family').selectOption('guess');
      await page.getByTestId('agent-kind').selectOption('expert');
      const box = page.getByTestId('reply-box');
      const bubbles = page.getByTestId('observation');
      const askAgain = page.getByTestId('ask-again');
      while (queue.yes.length + queue.no.length > 0 || queue.unsure.length > 0) {
        await page.getByTestId('new-episode').click();
        await page.getByTestId('outcome').waitFor({ state: 'detached' });
        for (;;) {
          await box.or(page.getByTestId('outcome')).first().waitFor({ timeout: 60_000 });
          if (await page.getByTestId('outcome').count()) break;
          // the scripted expert's simulator never errs: its suggestion says the truth
          const truth = (await page.getByTestId('suggestion').innerText()).startsWith('Yes') ? 'yes' : 'no';
          const before = await bubbles.count();
          // now and then a hedge first: it must be asked about again, with nothing sent
          if (queue.unsure.length && typed.length % 3 === 0) {
            const hedge = queue.unsure.shift()!;
            typed.push(hedge);
            await box.fill(hedge);
            await box.press('Enter');
            await expect(askAgain.innerText(), hedge).resolves.toMatch(/could not tell whether/);
            expect(await bubbles.count(), hedge).toBe(before);
            hedges++;
          }
          const words = queue[truth].shift() ?? (truth === 'yes' ? 'Yes' : 'No');
          typed.push(words);
          await box.fill(words);
          await box.press('Enter');
          await expect.poll(async () => (await bubbles.count()) > before || (await askAgain.count()) > 0, { message: words }).toBe(true);
          if ((await bubbles.count()) === before) {
            // asked again is allowed for a plain answer too; the buttons then settle it
            plainAskedAgain++;
            await page.getByTestId(`answer-${truth}`).click();
            await expect.poll(() => bubbles.count()).toBe(before + 1);
          } else {
            await expect(bubbles.nth(before).getByTestId('reading').innerText(), words).resolves.toBe(`read as: ${truth}`);
          }
        }
      }
      expect(typed.length).toBeGreaterThanOrEqual(30);
      // beside the chat: the credit colour legend, and what each estimator means, greyed-out ones with why
      await expect(page.getByTestId('credit-legend').innerText()).resolves.toMatch(/negative.*zero.*positive.*outlined: the ground truth/s);
      await page.getByText('What each estimator means').click();
      const explain = await page.getByTestId('credit-explain').innerText();
      expect(explain).toMatch(/MC return\s+the reward from this turn to the end/);
      expect(explain).toMatch(/GRPO\s+.*Not available here: needs K episodes of the same task/s);
      expect(explain).toMatch(/ArCHer Q − V\s+.*Not available here: needs a Q head/s);
      expect(explain).toMatch(/truth\s+on guess, the information gain/);
      expect(b.errors.filter((e) => !e.includes('404'))).toEqual([]);
      process.stdout.write(
        `person seat: ${typed.length} typed phrasings (${hedges} hedges, all asked again; ${plainAskedAgain} plain answers asked again), 0 misread\n`,
      );
    } finally {
      await b.close();
    }
  });
});
