// Smoke test of the policy as the lab plays it (rollout/agents.ts PolicyBatchAgent through the one
// episode loop): one episode of a real task family, replayable from its seed, with per-turn tokens and
// log-probs recorded; special tokens never sampled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { runSlots } from '../../../src/rl/rollout/rollout.ts';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { tinyModels } from './fixtures.ts';

const engine = new PolicyEngine();
beforeAll(async () => {
  await engine.init('wasm');
  await engine.load('policy', { kind: 'files', files: (await tinyModels(6, 512)).files });
});
afterAll(() => engine.dispose());

describe('PolicyBatchAgent', () => {
  it('plays an episode of a bandit task, replayably, recording tokens and log-probs', async () => {
    const spec = { family: 'bandit' as const, split: 'test' as const, seed: 3 };
    const agent = await PolicyBatchAgent.create(engine, { sampling: { maxNewTokens: 8 } });
    expect(agent.name).toBe('policy(T=1)');
    const [a] = await runSlots([{ spec, seed: 9 }], agent);
    expect(a.turns.length).toBeGreaterThan(0);
    for (const t of a.turns) {
      expect(t.logprobs?.length).toBe(t.tokens?.length);
      expect((t.logprobs ?? []).every((x) => Number.isFinite(x) && x <= 0)).toBe(true);
      // no role, pad or bos token in a reply (only <|end|> may end it)
      expect((t.tokens ?? []).filter((id) => id < 7 && id !== 2)).toEqual([]);
      expect(t.backend).toBe('wasm');
    }
    const [again] = await runSlots([{ spec, seed: 9 }], await PolicyBatchAgent.create(engine, { sampling: { maxNewTokens: 8 } }));
    expect(again.turns.map((t) => t.action)).toEqual(a.turns.map((t) => t.action));
  });
});
