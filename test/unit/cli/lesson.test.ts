// `--lesson NAME` (issue #45) on the commands that pose tasks: the usage lists the registry's lessons,
// a lesson sets the family and its options (eval's JSON summary and --out record say so), and the
// mistakes get their own messages: --options beside it, a family it does not belong to, an unknown
// name (listing the known ones), --fixed-tasks below --tasks.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { findLesson, LESSONS } from '../../../src/rl/envs/registry.ts';
import { capture } from '../capture.ts';

const run = (args: string[]) => capture(() => main(args));
const lesson = findLesson('turns-decide');

describe('--lesson', () => {
  it.each(['train', 'eval', 'passkt', 'credit-report'])("is in %s's usage with every registered lesson", async (command) => {
    const { code, out } = await run([command, '--help']);
    expect(code).toBe(0);
    expect(out).toContain('--lesson NAME');
    for (const l of LESSONS) {
      expect(out).toContain(l.name);
      expect(out).toContain(JSON.stringify(l.options));
    }
  });

  it("sets eval's family and options", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lesson-'));
    const file = join(dir, 'played.turnwise.jsonl');
    const { code, out } = await run(['eval', '--lesson', 'turns-decide', '--agent', 'expert', '--episodes', '3', '--out', file, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ family: 'guess', episodes: 3, meanTurns: expect.any(Number) });
    const lines = (await readFile(file, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; settings?: { options?: unknown; lesson?: string }; task?: { options?: unknown } });
    expect(lines.find((r) => r.settings)?.settings).toMatchObject({ lesson: 'turns-decide', options: lesson.options });
    const episodes = lines.filter((r) => r.type === 'episode');
    expect(episodes).toHaveLength(3);
    // the tasks played are the lesson's: 8 candidates from the pool of 13, 4 turns
    for (const e of episodes) expect(e.task?.options).toMatchObject(lesson.options);
  });

  it.each([
    [['eval', '--lesson', 'turns-decide', '--options', '{}', '--agent', 'expert'], /--lesson turns-decide sets the family options: drop --options/],
    [['passkt', '--lesson', 'turns-decide', '--options', '{}'], /--lesson turns-decide sets the family options/],
    [['train', '--algo', 'grpo', '--lesson', 'turns-decide', '--options', '{}'], /--lesson turns-decide sets the family options/],
    [['eval', '--family', 'bandit', '--lesson', 'turns-decide'], /turns-decide is a guess lesson; it does not go with --family bandit/],
    [['credit-report', '--lesson', 'no-such'], /unknown lesson "no-such" \(known: turns-decide \(guess\)\)/],
    [['train', '--algo', 'grpo', '--lesson', 'turns-decide', '--tasks', '8', '--fixed-tasks', '4'], /--fixed-tasks 4 is fewer than --tasks 8/],
  ])('refuses %j', async (args, message) => {
    const r = await run([...args, '--json']);
    expect(r.code).toBe(2);
    expect((JSON.parse(r.out) as { error: { message: string } }).error.message).toMatch(message);
  });
});
