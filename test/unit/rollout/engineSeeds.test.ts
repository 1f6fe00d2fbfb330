// The two small engine additions rollouts rely on: per-prompt seeds (a batch of episodes keeps each
// episode's own random stream) and the critic's value at the context's last token in score().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import type { Prompt } from '../../../src/rl/runtime/engine/types.ts';
import { tinyModels } from '../engine/fixtures.ts';

const engine = new PolicyEngine();
const chat = (content: string): Prompt => ({ messages: [{ role: 'system', content }] });

beforeAll(async () => {
  const m = await tinyModels(2);
  await engine.init('wasm');
  await engine.load('policy', { kind: 'files', files: m.files });
  await engine.load('critic', { kind: 'files', files: m.files, name: 'critic' });
});
afterAll(() => engine.dispose());

describe('engine additions for rollouts', () => {
  it('per-prompt seeds: each prompt of a batch samples as it would alone with its seed', async () => {
    const prompts = [chat('Is it red?'), chat('Is it red?'), chat('Which fruit is it?')];
    const seeds = [11, 12, 13];
    const sampling = { maxNewTokens: 10 };
    const batched = await engine.generate({ prompts, seeds, sampling });
    for (let p = 0; p < prompts.length; p++) {
      const alone = await engine.generate({ prompts: [prompts[p]], sampling: { ...sampling, seed: seeds[p] } });
      expect(batched.generations[p].tokenIds).toEqual(alone.generations[0].tokenIds);
    }
    // same prompt, different seeds: different streams
    expect(batched.generations[0].tokenIds).not.toEqual(batched.generations[1].tokenIds);
    await expect(engine.generate({ prompts, seeds: [1, 2], sampling })).rejects.toThrow(/seeds must be one integer per prompt \(3\)/);
  });

  it('score: a critic reports the value at the context end and after each continuation token', async () => {
    const r = await engine.score({ model: 'critic', items: [{ context: chat('Is it big?'), continuation: 'No.' }] });
    const item = r.items[0];
    expect(Number.isFinite(item.contextValue)).toBe(true);
    expect(item.values?.length).toBe(item.tokens.length);
    const p = await engine.score({ items: [{ context: chat('Is it big?'), continuation: 'No.' }] });
    expect(p.items[0].contextValue).toBeUndefined();
  });
});
