// Generation against second implementations: greedy == argmax over full recomputation (a fresh
// prefill of the whole sequence each step, and the float64 reference), batched == one at a time,
// sampled log-probs == re-scored, streaming == final text, stop strings, seeds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Stepper } from '../../../src/rl/runtime/engine/stepper.ts';
import { paramSource } from '../../../src/rl/model/llama/params.ts';
import { referenceForward } from '../../../src/rl/model/llama/reference.ts';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { argmax, logSoftmax } from '../../../src/rl/runtime/engine/sampling.ts';
import type { Prompt, TokenEvent } from '../../../src/rl/runtime/engine/types.ts';
import { tinyModels, type TinyModel } from './fixtures.ts';

let m: TinyModel;
const engine = new PolicyEngine();
const chat = (content: string): Prompt => ({ messages: [{ role: 'user', content }] });

beforeAll(async () => {
  m = await tinyModels(1);
  await engine.init('wasm');
  await engine.load('policy', { kind: 'files', files: m.files });
});
afterAll(async () => {
  await engine.dispose();
  expect(engine.liveSessions()).toBe(0);
});

describe('generation', () => {
  it('greedy equals step-by-step argmax over full recomputation', async () => {
    const r = await engine.generate({ prompts: [chat('Is it red?')], sampling: { temperature: 0, maxNewTokens: 12, banSpecial: false } });
    const g = r.generations[0];
    expect(g.promptTokens).toBe((await engine.encode(chat('Is it red?'))).length);
    const runtime = await OrtRuntime.create('wasm');
    const runner = await Stepper.create(runtime, m.cfg, paramSource(m.weights, 'const'));
    try {
      const seq = await engine.encode(chat('Is it red?'));
      for (let i = 0; i < g.tokenIds.length; i++) {
        const full = await runner.prefill([seq]); // no cache: the whole sequence again
        expect(argmax(full.logits)).toBe(g.tokenIds[i]);
        expect(g.logprobs[i]).toBeCloseTo(logSoftmax(full.logits)[g.tokenIds[i]], 4);
        if (i < 2) {
          const ref = referenceForward(m.cfg, m.weights, seq).logits;
          const last = ref.subarray((seq.length - 1) * m.cfg.vocabSize);
          expect(argmax(last)).toBe(g.tokenIds[i]);
        }
        seq.push(g.tokenIds[i]);
      }
    } finally {
      await runner.dispose();
      await runtime.dispose();
    }
    expect(g.completionTokens).toBe(g.tokenIds.length);
    expect(g.finishReason === 'end' ? g.tokenIds.at(-1) === m.tok.special.end : g.completionTokens === 12).toBe(true);
    expect(r.timing.prefillMs).toBeGreaterThan(0);
    expect(r.timing.firstTokenMs).toBeLessThanOrEqual(r.timing.totalMs);
  });

  it('batched (B ragged prompts × K samples) equals one prompt at a time', async () => {
    const prompts = [chat('Is it red?'), { text: 'GUESS' }, chat('Which fruit is it? It is small and yellow.')];
    const sampling = { temperature: 1, topK: 50, seed: 7, maxNewTokens: 10 };
    const batched = await engine.generate({ prompts, n: 3, sampling });
    expect(batched.generations.map((g) => [g.prompt, g.sample])).toEqual(prompts.flatMap((_, p) => [0, 1, 2].map((k) => [p, k])));
    for (let p = 0; p < prompts.length; p++) {
      const alone = await engine.generate({ prompts: [prompts[p]], n: 3, sampling });
      for (let k = 0; k < 3; k++) {
        const a = alone.generations[k];
        const b = batched.generations[p * 3 + k];
        expect(b.tokenIds).toEqual(a.tokenIds);
        expect(b.text).toBe(a.text);
        b.logprobs.forEach((lp, i) => expect(lp).toBeCloseTo(a.logprobs[i], 4));
      }
    }
    // different samples of one prompt differ (their streams are independent)
    const texts = new Set(batched.generations.filter((g) => g.prompt === 0).map((g) => g.tokenIds.join(',')));
    expect(texts.size).toBeGreaterThan(1);
  });

  it('returns log-probs equal to re-scoring the completion afterwards', async () => {
    const prompt = chat('Is it big?');
    const r = await engine.generate({ prompts: [prompt], n: 4, sampling: { temperature: 1.3, topP: 0.9, seed: 3, maxNewTokens: 12 } });
    const scored = await engine.score({ items: r.generations.map((g) => ({ context: prompt, continuation: g.tokenIds })) });
    r.generations.forEach((g, i) => {
      expect(scored.items[i].tokens).toEqual(g.tokenIds);
      g.logprobs.forEach((lp, j) => expect(scored.items[i].logprobs[j]).toBeCloseTo(lp, 4));
      expect(scored.items[i].sum).toBeCloseTo(
        g.logprobs.reduce((a, b) => a + b, 0),
        3,
      );
    });
  });

  it('reproduces a sample from its seed and changes with another seed', async () => {
    const req = { prompts: [chat('Is it red?')], sampling: { seed: 11, maxNewTokens: 16 } };
    const a = await engine.generate(req);
    const b = await engine.generate(req);
    const c = await engine.generate({ ...req, sampling: { seed: 12, maxNewTokens: 16 } });
    expect(b.generations[0].tokenIds).toEqual(a.generations[0].tokenIds);
    expect(c.generations[0].tokenIds).not.toEqual(a.generations[0].tokenIds);
  });

  it('streams tokens whose deltas add up to the final text, and cuts at a stop string', async () => {
    const events: TokenEvent[] = [];
    const free = await engine.generate({ prompts: [chat('x')], n: 2, sampling: { seed: 5, maxNewTokens: 20 } }, (e) => events.push(e));
    for (const g of free.generations) {
      const mine = events.filter((e) => e.row === g.prompt * 2 + g.sample);
      expect(mine.map((e) => e.token)).toEqual(g.tokenIds);
      expect(mine.map((e) => e.delta).join('')).toBe(g.text);
      expect(mine.at(-1)?.finishReason).toBe(g.finishReason);
    }
    // pick a stop string from the free text (two characters after the first), then generate again
    const text = free.generations[0].text;
    const stop = text.slice(3, 5);
    expect(stop.length).toBe(2);
    const stopped = await engine.generate({ prompts: [chat('x')], sampling: { seed: 5, maxNewTokens: 20, stop: [stop] } });
    const g = stopped.generations[0];
    expect(g.finishReason).toBe('stop');
    expect(g.stop).toBe(stop);
    expect(g.text).toBe(text.slice(0, text.indexOf(stop)));
    expect(free.generations[0].tokenIds.slice(0, g.tokenIds.length)).toEqual(g.tokenIds);
    expect(g.logprobs.length).toBe(g.tokenIds.length);
  });

  it('ends at the context window with finishReason "length"', async () => {
    const ids = Array.from({ length: 60 }, (_, i) => 10 + (i % 50));
    // <|end|> is held back (minNewTokens) so that only the window of 64 can end it: 4 tokens, not 50
    const r = await engine.generate({ prompts: [{ ids }], sampling: { temperature: 0, maxNewTokens: 50, minNewTokens: 50 } });
    const g = r.generations[0];
    expect(g.promptTokens).toBe(60);
    expect(g.finishReason).toBe('length');
    expect(g.completionTokens).toBe(4);
    expect(g.tokenIds).toHaveLength(4);
  });
});
