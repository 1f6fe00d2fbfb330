// Smoke test of the policy agent: one episode of a real task family through the Agent interface,
// replayable from its seed, with per-turn tokens and log-probs recorded; special tokens never sampled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playEpisode } from '../../../src/rl/rollout/rollout.ts';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { PolicyAgent, type PolicyTurn } from '../../../src/rl/runtime/policyAgent.ts';
import { tinyModels } from './fixtures.ts';

const engine = new PolicyEngine();
beforeAll(async () => {
  await engine.init('wasm');
  await engine.load('policy', { kind: 'files', files: (await tinyModels(6, 512)).files });
});
afterAll(() => engine.dispose());

describe('PolicyAgent', () => {
  it('plays an episode of a bandit task, replayably, recording tokens and log-probs', async () => {
    const spec = { family: 'bandit' as const, split: 'test' as const, seed: 3 };
    const turns: PolicyTurn[] = [];
    const agent = await PolicyAgent.create(engine, { seed: 9, sampling: { maxNewTokens: 8 }, onTurn: (t) => turns.push(t) });
    expect(agent.name).toBe('policy(T=1)');
    const a = await playEpisode(agent, spec);
    expect(a.turns.length).toBeGreaterThan(0);
    expect(turns.length).toBe(a.turns.length);
    for (const [i, t] of turns.entries()) {
      expect(t.generation.text).toBe(a.turns[i].action);
      expect(t.generation.logprobs.length).toBe(t.generation.tokenIds.length);
      expect(t.generation.logprobs.every((x) => Number.isFinite(x) && x <= 0)).toBe(true);
      // no role, pad or bos token in a reply (only <|end|> may end it)
      expect(t.generation.tokenIds.filter((id) => id < 7 && id !== 2)).toEqual([]);
      expect(t.backend).toBe('wasm');
    }
    const again = await playEpisode(await PolicyAgent.create(engine, { seed: 9, sampling: { maxNewTokens: 8 } }), spec);
    expect(again.turns.map((t) => t.action)).toEqual(a.turns.map((t) => t.action));
  });
});
