// Smoke test of the policy as the lab plays it (rollout/agents.ts PolicyBatchAgent through the one
// episode loop): one episode of a real task family, replayable from its seed, with per-turn tokens and
// log-probs recorded; special tokens never sampled; a batched multi-turn rollout with KV reuse across
// turns (the default) equal to one without.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { runSlots } from '../../../src/rl/rollout/rollout.ts';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import type { GenerateApi, GenerateRequest } from '../../../src/rl/runtime/engine/types.ts';
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

  it('reuses each episode’s KV cache across turns, with the same turns as without, and forgets ended episodes', async () => {
    const requests: GenerateRequest[] = [];
    const reused: number[] = [];
    const spy: GenerateApi = {
      models: () => engine.models(),
      async generate(req) {
        requests.push(req);
        const r = await engine.generate(req);
        reused.push(...r.generations.map((g) => g.reusedTokens ?? 0));
        return r;
      },
    };
    // the first episode is cut after one turn, so the second call has at least one episode fewer
    const slots = [0, 1, 2, 3].map((k) => ({
      spec: { family: 'guess' as const, split: 'test' as const, seed: 5 + k },
      seed: 20 + k,
      ...(k === 0 ? { turnLimit: 1 } : {}),
    }));
    const sampling = { maxNewTokens: 8 };
    const withReuse = await runSlots(slots, await PolicyBatchAgent.create(spy, { sampling }));
    const without = await runSlots(slots, await PolicyBatchAgent.create(engine, { sampling, reuseKv: false }));
    withReuse.forEach((e, i) => {
      expect(e.turns.map((t) => t.action)).toEqual(without[i].turns.map((t) => t.action));
      e.turns.forEach((t, j) => {
        const o = without[i].turns[j];
        expect(t.tokens).toEqual(o.tokens);
        t.logprobs?.forEach((lp, k) => expect(Math.abs(lp - (o.logprobs?.[k] ?? NaN))).toBeLessThan(1e-5));
      });
    });
    expect(requests.length).toBeGreaterThan(1);
    expect(requests.every((r) => r.cacheKeys?.length === r.prompts.length)).toBe(true);
    expect(reused.some((n) => n > 0)).toBe(true);
    // an episode that ended is forgotten with the next call
    const ended = requests.findIndex((r, i) => i > 0 && r.prompts.length < requests[i - 1].prompts.length);
    expect(ended).toBe(1);
    expect(requests[ended].forget?.length).toBe(requests[ended - 1].prompts.length - requests[ended].prompts.length);
  });
});
