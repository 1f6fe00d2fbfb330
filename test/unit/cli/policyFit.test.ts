// The CLI refuses to play the policy on tasks it cannot take (issue 18): eval, passkt, credit-report
// and train check every task's prompt against the loaded policy's context (its metadata) before any
// episode, and fail with the check's words and exit code 2. A tiny policy with a 128-token context
// and the default 64-token reply reserve stands in for a small shipped one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { nodeWriter } from '../../../src/rl/model/folder/nodeIo.ts';
import { tinyModels } from '../engine/fixtures.ts';
import { capture } from '../capture.ts';

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'turnwise-fit-'));
  const write = nodeWriter(join(dir, 'models'));
  for (const [p, b] of Object.entries((await tinyModels(3, 128)).files)) await write(p, b);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the policy-fit check on the command line', () => {
  it('eval, passkt, credit-report and train fail early with the reason and exit code 2', { timeout: 60_000 }, async () => {
    const models = ['--models', join(dir, 'models')];
    for (const args of [
      ['eval', '--family', 'sokoban', '--agent', 'noisy,policy', '--episodes', '3'],
      ['passkt', '--family', 'sokoban', '--tasks', '2', '--n', '2'],
      ['credit-report', '--family', 'sokoban', '--episodes', '2', '--estimators', 'mc'],
      ['train', '--algo', 'grpo', '--family', 'sokoban', '--iterations', '1', '--eval', '0'],
    ]) {
      const { code, out } = await capture(() => main([...args, ...models, '--json']));
      const json = JSON.parse(out) as { ok: boolean; error: { kind: string; message: string } };
      expect(code, args[0]).toBe(2);
      expect(json.error.kind).toBe('usage');
      expect(json.error.message, args[0]).toMatch(
        /^The policy's context is 128 tokens; this sokoban prompt needs \d+ \+ 64 reply tokens; play it with a scripted agent/,
      );
    }
  });
});
