// `turnwise tasks` and `turnwise eval` end to end (in-process, stdout captured); eval's policy agent
// on a tiny random model written as a models folder (the engine in-thread on onnxruntime-node).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { evalCommand } from '../../../src/cli/commands/eval.ts';
import { tasks } from '../../../src/cli/commands/tasks.ts';
import { FAMILY_NAMES } from '../../../src/rl/envs/registry.ts';
import { nodeWriter } from '../../../src/rl/model/folder/nodeIo.ts';
import { capture } from '../capture.ts';
import { tinyModels } from '../engine/fixtures.ts';

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

  it('plays the policy from a models folder, sampled and greedy, with the same JSON shape', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnwise-eval-'));
    try {
      const write = nodeWriter(join(dir, 'models'));
      for (const [p, b] of Object.entries((await tinyModels(3, 512)).files)) await write(p, b);
      const args = ['--family', 'bandit', '--agent', 'policy', '--episodes', '3', '--models', join(dir, 'models'), '--json'];
      const sampled = JSON.parse((await capture(() => evalCommand.run([...args, '--out', join(dir, 'eps.jsonl')]))).out);
      expect(sampled).toMatchObject({ family: 'bandit', split: 'test', agent: 'policy(T=1)', episodes: 3, seed: 1 });
      expect(Object.keys(sampled).sort()).toEqual([
        'agent',
        'episodes',
        'family',
        'meanReward',
        'meanTurns',
        'metrics',
        'passAt1',
        'seed',
        'split',
        'successRate',
      ]);
      // --out is Turnwise JSONL: the header, the run, its episodes (test/unit/cli/pipeline.test.ts follows it further)
      const lines = readFileSync(join(dir, 'eps.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines[0]).toEqual({ format: 'turnwise.trajectories', version: 3 });
      expect(lines.slice(1).map((r) => r.type)).toEqual(['run', 'episode', 'episode', 'episode']);
      expect(lines[2].model).toEqual({ policy: 'policy', adapter: null, critic: null });
      expect(lines[2].turns[1].tokens.length).toBeGreaterThan(0); // the policy's sampled tokens are kept
      const again = JSON.parse((await capture(() => evalCommand.run(args))).out);
      expect(again).toEqual(sampled);
      const greedy = JSON.parse((await capture(() => evalCommand.run([...args, '--temperature', '0']))).out);
      expect(greedy.agent).toBe('policy(greedy)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses unknown families and agents', async () => {
    await expect(evalCommand.run(['--family', 'chess'])).rejects.toThrow('unknown family "chess"');
    await expect(evalCommand.run(['--family', 'guess', '--agent', 'genius'])).rejects.toThrow('unknown agent "genius"');
    await expect(evalCommand.run([])).rejects.toThrow('--family (or --lesson) is required');
  });
});
