// `turnwise tasks` and `turnwise eval` end to end (in-process, stdout captured).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { evalCommand } from '../../../src/cli/commands/eval.ts';
import { tasks } from '../../../src/cli/commands/tasks.ts';
import { FAMILY_NAMES } from '../../../src/rl/envs/types.ts';
import { capture } from '../capture.ts';

afterEach(() => vi.restoreAllMocks());

describe('turnwise tasks', () => {
  it('lists every family with defaults and split sizes', async () => {
    const { code, out } = await capture(() => tasks.run(['--json']));
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as { families: { name: string; maxTurns: number; splits: { test: { distinctEpisodes: number } } }[] };
    expect(parsed.families.map((f) => f.name)).toEqual([...FAMILY_NAMES]);
    for (const f of parsed.families) expect(f.splits.test.distinctEpisodes).toBeGreaterThan(0);
  });

  it('shows one task', async () => {
    const { out } = await capture(() => tasks.run(['--family', 'sokoban', '--seed', '3', '--json']));
    expect(JSON.parse(out)).toMatchObject({ spec: { family: 'sokoban', split: 'test', seed: 3 }, maxTurns: 20 });
  });
});

describe('turnwise eval', () => {
  it('reports success, reward, turns and Pass@(1,T)', async () => {
    const { code, out } = await capture(() => evalCommand.run(['--family', 'backend', '--agent', 'expert', '--episodes', '5', '--json']));
    expect(code).toBe(0);
    const s = JSON.parse(out);
    expect(s).toMatchObject({ family: 'backend', split: 'test', agent: 'expert', episodes: 5, successRate: 1, meanReward: 1 });
    expect(s.passAt1).toHaveLength(10);
  });

  it('refuses unknown families and agents', async () => {
    await expect(evalCommand.run(['--family', 'chess'])).rejects.toThrow('unknown family "chess"');
    await expect(evalCommand.run(['--family', 'guess', '--agent', 'genius'])).rejects.toThrow('unknown agent "genius"');
    await expect(evalCommand.run([])).rejects.toThrow('--family is required');
  });
});
