// `eval --forged` (issue #47's Done-when: every family at the policy's forged settings): each family's
// tasks take the options the policy under --models was forged on (its config.json), for every agent, and
// a family forged at its defaults keeps them; --options or --lesson beside it is refused. The policy's
// folder is the manifest's, so a forge's progress folder (stage-K/) reads the same way.
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { modelsDir } from '../../../src/cli/paths.ts';
import { forgedTaskOptions } from '../../../src/rl/rollout/node.ts';
import { capture } from '../capture.ts';

it('plays each family at the options its policy was forged on', async () => {
  const file = join(await mkdtemp(join(tmpdir(), 'forged-')), 'played.turnwise.jsonl');
  const { code } = await capture(() => main(['eval', '--family', 'guess,bandit', '--agent', 'expert', '--forged', '--episodes', '2', '--out', file, '--json']));
  expect(code).toBe(0);
  const episodes = (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; task?: { family: string; options: Record<string, unknown> } })
    .filter((r) => r.type === 'episode');
  const guess = await forgedTaskOptions(modelsDir(), 'guess');
  expect(guess).toMatchObject({ candidates: 4, maxTurns: 4 });
  // guess's defaults are 8 candidates × 5 turns: the forged 4 × 4 can only come from the policy's config
  const guessed = episodes.filter((x) => x.task?.family === 'guess');
  expect(guessed).toHaveLength(2);
  for (const e of guessed) expect(e.task?.options).toMatchObject(guess as object);
  expect(await forgedTaskOptions(modelsDir(), 'bandit')).toBeUndefined();
  expect(episodes.filter((x) => x.task?.family === 'bandit')).toHaveLength(2);
});

it.each([[['--options', '{}']], [['--lesson', 'turns-decide']]])('refuses --forged with %j', async (extra) => {
  const r = await capture(() => main(['eval', '--family', 'guess', '--agent', 'expert', '--forged', ...extra, '--json']));
  expect(r.code).toBe(2);
  expect((JSON.parse(r.out) as { error: { message: string } }).error.message).toMatch(/--forged sets the options itself|sets the family options/);
});

it("reads the forged options from the folder the manifest names (a forge's progress folder keeps stage-K/)", async () => {
  const root = await mkdtemp(join(tmpdir(), 'forged-folder-'));
  await cp(join(modelsDir(), 'policy'), join(root, 'stage-7'), { recursive: true });
  const manifest = JSON.parse(await readFile(join(modelsDir(), 'manifest.json'), 'utf8')) as {
    models: { policy: { folder: string; files: { path: string }[] } };
  };
  const policy = manifest.models.policy;
  const moved = { folder: 'stage-7', files: policy.files.map((f) => ({ ...f, path: f.path.replace(/^policy\//, 'stage-7/') })) };
  await writeFile(join(root, 'manifest.json'), JSON.stringify({ version: 1, models: { policy: moved } }));
  expect(await forgedTaskOptions(root, 'guess')).toEqual(await forgedTaskOptions(modelsDir(), 'guess'));
});
