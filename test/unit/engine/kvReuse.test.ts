// KV reuse across turns (GenerateRequest.cacheKeys, engine/contexts.ts) against the path without it:
// multi-turn episodes played twice on the same engine, once with a cache key per episode and once
// without, give the same tokens and log-probs (1e-5), while later turns prefill only what is new;
// a sliding window that cuts the dialogue reuses only the shared head, an adapter change reuses
// nothing, and both still equal the path without reuse. On wasm and on onnxruntime-node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { initLora } from '../../../src/rl/model/llama/weights.ts';
import type { ChatMessage } from '../../../src/rl/model/tokenizer/chat.ts';
import type { GenerateRequest, Generation } from '../../../src/rl/runtime/engine/types.ts';
import { reusable } from '../../../src/rl/runtime/engine/contexts.ts';
import { tinyModels, type TinyModel } from './fixtures.ts';

const OBSERVATIONS = ['No.', 'Is it big? No.', 'It is small and yellow.', 'Yes.'];
const REPLY = 6;

let m: TinyModel;
beforeAll(async () => {
  m = await tinyModels(1, 256);
});

function expectSame(a: Generation, b: Generation): void {
  expect(a.tokenIds).toEqual(b.tokenIds);
  expect(a.text).toBe(b.text);
  expect(a.finishReason).toBe(b.finishReason);
  a.logprobs.forEach((lp, i) => expect(Math.abs(lp - b.logprobs[i])).toBeLessThan(1e-5));
}

/**
 * Plays `turns` turns of `episodes` dialogues, each turn one batched call, with and without cache
 * keys; returns per turn the generations of both and the prompt ids (as the engine encodes them).
 */
async function play(
  engine: PolicyEngine,
  episodes: number,
  turns: number,
  window: { budget: number; reserve: number },
  between?: (turn: number) => Promise<void>,
) {
  const chats: ChatMessage[][] = Array.from({ length: episodes }, (_, e) => [{ role: 'system', content: e % 2 ? 'Which fruit is it?' : 'GUESS: apple' }]);
  const out: { reuse: Generation[]; plain: Generation[]; ids: number[][] }[] = [];
  for (let t = 0; t < turns; t++) {
    await between?.(t);
    const request: GenerateRequest = {
      prompts: chats.map((c) => ({ messages: c.map((x) => ({ ...x })), window })),
      seeds: chats.map((_, e) => 100 * e + t),
      sampling: { temperature: 1, maxNewTokens: REPLY },
    };
    const reuse = (await engine.generate({ ...request, cacheKeys: chats.map((_, e) => `ep${e}`) })).generations;
    const plain = (await engine.generate(request)).generations;
    const ids = await Promise.all(request.prompts.map((p) => engine.encode(p)));
    out.push({ reuse, plain, ids });
    chats.forEach((c, e) => c.push({ role: 'agent', content: reuse[e].text }, { role: 'user', content: OBSERVATIONS[(t + e) % OBSERVATIONS.length] }));
  }
  return out;
}

/** What a turn can reuse from the turn before: the shared leading ids of its context (prompt + all tokens but the last) and the new prompt. */
const expectedReuse = (prev: number[], tokens: number[], ids: number[]) => reusable([...prev, ...tokens.slice(0, -1)], ids);

describe.each(['wasm', 'node'] as const)('KV reuse across turns (%s)', (backend) => {
  const engine = new PolicyEngine();
  beforeAll(async () => {
    await engine.init(backend);
    await engine.load('policy', { kind: 'files', files: m.files });
  });
  afterAll(async () => {
    await engine.dispose();
    expect(engine.liveSessions()).toBe(0);
  });

  it('multi-turn episodes give the same tokens and log-probs with and without reuse, prefilling only the new turn', async () => {
    const turns = await play(engine, 3, 4, { budget: 256, reserve: REPLY });
    turns.forEach(({ reuse, plain, ids }, t) => {
      reuse.forEach((g, e) => {
        expectSame(g, plain[e]);
        expect(plain[e].reusedTokens).toBe(0);
        expect(g.promptTokens).toBe(ids[e].length);
        if (t === 0) expect(g.reusedTokens).toBe(0);
        else {
          const prev = turns[t - 1];
          expect(g.reusedTokens).toBe(expectedReuse(prev.ids[e], prev.reuse[e].tokenIds, ids[e]));
          // at least the whole previous prompt: the window did not cut
          expect(g.reusedTokens).toBeGreaterThanOrEqual(prev.ids[e].length);
        }
      });
    });
  });

  it('a reply that re-encodes to its sampled tokens is reused whole: only its last token and the new turn run', async () => {
    // token-id dialogues (the tiny model's byte tokens rarely re-encode to themselves as text)
    const bos = m.tok.special.bos;
    let prompts = [
      [bos, 5, 6, 7],
      [bos, 9],
      [bos, 11, 12, 13, 14, 15],
    ];
    for (let t = 0; t < 4; t++) {
      const request: GenerateRequest = {
        prompts: prompts.map((ids) => ({ ids })),
        seeds: [t, t + 10, t + 20],
        sampling: { temperature: 1, maxNewTokens: 5 + t },
      };
      const reuse = (await engine.generate({ ...request, cacheKeys: ['a', 'b', 'c'] })).generations;
      const plain = (await engine.generate(request)).generations;
      reuse.forEach((g, e) => expectSame(g, plain[e]));
      if (t > 0) reuse.forEach((g, e) => expect(g.reusedTokens).toBe(prompts[e].length - 3));
      prompts = prompts.map((ids, e) => [...ids, ...reuse[e].tokenIds, 16 + e, 17]);
    }
  });

  it('falls back when the sliding window cuts: only the shared head is reused, results unchanged', async () => {
    // a budget that holds the head and about two turns: later prompts drop their oldest turns
    const turns = await play(engine, 2, 5, { budget: 40, reserve: REPLY });
    let cut = 0;
    turns.forEach(({ reuse, plain, ids }, t) => {
      reuse.forEach((g, e) => {
        expectSame(g, plain[e]);
        if (t === 0) return;
        const prev = turns[t - 1];
        expect(g.reusedTokens).toBe(expectedReuse(prev.ids[e], prev.reuse[e].tokenIds, ids[e]));
        if (g.reusedTokens! < prev.ids[e].length) cut++;
      });
    });
    expect(cut).toBeGreaterThan(0);
  });

  it('reuses nothing after the adapter changes, and matches the path without reuse', async () => {
    const spec = { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj'] } as const;
    const turns = await play(engine, 2, 3, { budget: 256, reserve: REPLY }, async (t) => {
      if (t === 2)
        await engine.setAdapter('a', {
          spec: { ...spec, targets: [...spec.targets] },
          weights: initLora(m.cfg, { ...spec, targets: [...spec.targets] }, 5, 0.3),
        });
    });
    await engine.clearAdapter();
    turns[1].reuse.forEach((g) => expect(g.reusedTokens).toBeGreaterThan(0));
    turns[2].reuse.forEach((g, e) => {
      expect(g.reusedTokens).toBe(0);
      expectSame(g, turns[2].plain[e]);
    });
  });

  it('keeps contexts only where asked, drops forgotten ones, and refuses keys with n > 1', async () => {
    const prompt = { ids: [m.tok.special.bos, 5, 6, 7, 8] };
    const a = await engine.generate({ prompts: [prompt], cacheKeys: ['k'], sampling: { temperature: 0, maxNewTokens: 4, minNewTokens: 4, banSpecial: false } });
    const next = { ids: [...prompt.ids, ...a.generations[0].tokenIds, 9, 10] };
    const b = await engine.generate({ prompts: [next], cacheKeys: ['k'], sampling: { temperature: 0, maxNewTokens: 3 } });
    expect(b.generations[0].reusedTokens).toBe(prompt.ids.length + 3);
    const c = await engine.generate({ prompts: [next], cacheKeys: ['k'], forget: ['k'], sampling: { temperature: 0, maxNewTokens: 3 } });
    expect(c.generations[0].reusedTokens).toBe(0);
    expectSame(c.generations[0], b.generations[0]);
    await expect(engine.generate({ prompts: [prompt], n: 2, cacheKeys: ['k'] })).rejects.toMatchObject({ name: 'EngineInputError' });
    await expect(engine.generate({ prompts: [prompt, prompt], cacheKeys: ['k', 'k'] })).rejects.toMatchObject({ name: 'EngineInputError' });
  });
});
