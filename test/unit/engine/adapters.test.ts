// Live adapters and the critic: swapping an adapter changes outputs without new sessions, clearing
// restores the base bit for bit, a smaller adapter embedded in the slot equals the float64
// reference with that adapter, and the critic's per-turn log-probs and values match the reference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceForward, logSoftmaxRows } from '../../../src/rl/model/llama/reference.ts';
import { encodeChat, type ChatMessage } from '../../../src/rl/model/tokenizer/chat.ts';
import { initLora, loraParams, type LoraSpec, type ModelWeights } from '../../../src/rl/model/llama/weights.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import type { Prompt } from '../../../src/rl/runtime/engine/types.ts';
import { tinyModels, type TinyModel } from './fixtures.ts';

let m: TinyModel & { criticWeights: ModelWeights };
const engine = new PolicyEngine();
const prompt: Prompt = { messages: [{ role: 'user', content: 'Is it red?' }] };

/** A trained-looking adapter: random A and B (PEFT would start B at 0). */
function randomAdapter(spec: LoraSpec, seed: number): ModelWeights {
  const w = initLora(m.cfg, spec, seed, 0.3);
  const rng = new Rng(seed);
  for (const p of loraParams(m.cfg, spec)) w[p.b.name] = w[p.b.name].map(() => rng.normal() * 0.3);
  return w;
}

beforeAll(async () => {
  m = await tinyModels(2);
  await engine.init('wasm');
  await engine.load('policy', { kind: 'files', files: m.files });
  await engine.load('critic', { kind: 'files', files: m.files, name: 'critic' });
});
afterAll(async () => {
  await engine.dispose();
  expect(engine.liveSessions()).toBe(0);
});

describe('live adapters', () => {
  it('swapping changes outputs, clearing restores the base exactly, without new sessions', async () => {
    const req = { prompts: [prompt], n: 2, sampling: { seed: 1, maxNewTokens: 12 } };
    const base = await engine.generate(req);
    const baseScore = await engine.score({ items: [{ context: prompt, continuation: base.generations[0].tokenIds }] });
    const sessions = engine.liveSessions();
    const spec: LoraSpec = { rank: 8, alpha: 16, targets: ['q_proj', 'v_proj', 'up_proj'] };
    await engine.setAdapter('a', { spec, weights: randomAdapter(spec, 1) });
    await engine.setAdapter('b', { spec, weights: randomAdapter(spec, 2) }, { activate: false });
    expect(await engine.adapters()).toEqual({ ids: ['a', 'b'], active: 'a' });
    const withA = await engine.generate(req);
    expect(withA.adapter).toBe('a');
    const scoreA = await engine.score({ items: [{ context: prompt, continuation: base.generations[0].tokenIds }] });
    expect(scoreA.items[0].logprobs).not.toEqual(baseScore.items[0].logprobs);
    // two adapters (and the base) compared on the same prompt
    const [ca, cb, c0] = await engine.compare(req, ['a', 'b', null]);
    expect(ca.generations[0].tokenIds).toEqual(withA.generations[0].tokenIds);
    expect(cb.generations.map((g) => g.tokenIds)).not.toEqual(ca.generations.map((g) => g.tokenIds));
    expect(c0.generations).toEqual(base.generations);
    // the reference (adapter off) while an adapter is active
    const ref = await engine.score({ items: [{ context: prompt, continuation: base.generations[0].tokenIds }], adapter: null });
    expect(ref.items[0].logprobs).toEqual(baseScore.items[0].logprobs);
    await engine.clearAdapter();
    const cleared = await engine.generate(req);
    expect(cleared.generations).toEqual(base.generations);
    expect(cleared.adapter).toBeNull();
    // the score session opened once; generation sessions were never rebuilt
    expect(engine.liveSessions()).toBe(sessions);
  });

  it('embeds a smaller adapter in the slot and matches the float64 reference with it', async () => {
    const spec: LoraSpec = { rank: 3, alpha: 5, targets: ['k_proj', 'down_proj'] };
    const weights = randomAdapter(spec, 9);
    await engine.setAdapter('small', { spec, weights });
    const ids = await engine.encode(prompt);
    const cont = [40, 41, 42, 43];
    const got = await engine.score({ items: [{ context: { ids }, continuation: cont }] });
    const seq = [...ids, ...cont];
    const ref = referenceForward(m.cfg, m.weights, seq, { lora: spec, loraWeights: weights });
    const lp = logSoftmaxRows(ref.logits, seq.length, m.cfg.vocabSize);
    cont.forEach((t, j) => expect(got.items[0].logprobs[j]).toBeCloseTo(lp[(ids.length + j - 1) * m.cfg.vocabSize + t], 4));
    await engine.removeAdapter('small');
    expect((await engine.adapters()).active).toBeNull();
  });

  it('refuses adapters that do not fit, naming why', async () => {
    const big: LoraSpec = { rank: 16, alpha: 16, targets: ['q_proj'] };
    await expect(engine.setAdapter('big', { spec: big, weights: randomAdapter(big, 1) })).rejects.toMatchObject({
      name: 'AdapterError',
      message: 'adapter "big": rank 16 exceeds the model\'s adapter slot rank 8 (load the model with a larger adapterSlot)',
    });
    const spec: LoraSpec = { rank: 2, alpha: 2, targets: ['q_proj'] };
    const w = randomAdapter(spec, 1);
    delete w['model.layers.1.self_attn.q_proj.lora_B.weight'];
    await expect(engine.setAdapter('broken', { spec, weights: w })).rejects.toThrow(
      'adapter "broken": model.layers.1.self_attn.q_proj.lora_B.weight is missing',
    );
    await expect(engine.generate({ prompts: [prompt], adapter: 'nope' })).rejects.toMatchObject({
      name: 'AdapterError',
      message: 'model policy has no adapter "nope" (it has a, b)',
    });
  });
});

describe('critic scoring', () => {
  it('gives per-turn log-probs and values equal to the float64 reference, hidden info in the prompt', async () => {
    const episode: ChatMessage[] = [
      { role: 'system', content: 'Guess the fruit.' },
      { role: 'hidden', content: 'banana' },
      { role: 'agent', content: 'Is it red?' },
      { role: 'user', content: 'No.' },
      { role: 'agent', content: 'GUESS: banana' },
    ];
    const r = await engine.scoreTurns({ model: 'critic', episodes: [episode, episode.slice(0, 3)] });
    expect(r.episodes.map((e) => e.map((t) => t.message))).toEqual([[2, 4], [2]]);
    const enc = encodeChat(m.tok, episode);
    const ref = referenceForward(m.cfg, m.criticWeights, enc.ids, { heads: { value: true } });
    const lp = logSoftmaxRows(ref.logits, enc.ids.length, m.cfg.vocabSize);
    const V = m.cfg.vocabSize;
    enc.spans
      .filter((s) => s.role === 'agent')
      .forEach((s, t) => {
        const turn = r.episodes[0][t];
        expect(turn.tokens).toBe(s.end - s.start);
        for (let j = s.start; j < s.end; j++) expect(turn.logprobs[j - s.start]).toBeCloseTo(lp[(j - 1) * V + enc.ids[j]], 4);
        expect(turn.value).toBeCloseTo(ref.values?.[s.roleAt] as number, 4);
        expect(turn.mean).toBeCloseTo(turn.sum / turn.tokens, 6);
      });
    // the shorter episode's first turn equals the longer one's (causality)
    expect(r.episodes[1][0].logprobs.map((x) => x.toFixed(4))).toEqual(r.episodes[0][0].logprobs.map((x) => x.toFixed(4)));
    // the policy has no value head
    const p = await engine.scoreTurns({ episodes: [episode] });
    expect(p.episodes[0][0].value).toBeUndefined();
  });

  it("reads V(s) through a critic adapter's value-head delta, as the reference does, and without one leaves the head at the base", async () => {
    const episode: ChatMessage[] = [
      { role: 'system', content: 'Guess the fruit.' },
      { role: 'agent', content: 'Is it red?' },
    ];
    const spec: LoraSpec = { rank: 2, alpha: 4, targets: ['v_proj'] };
    const weights = {
      ...randomAdapter(spec, 3),
      'v_head.summary.delta.weight': Float32Array.from({ length: m.cfg.dModel }, (_, i) => (i % 3) * 0.1),
      'v_head.summary.delta.bias': Float32Array.of(0.5),
    };
    await engine.setAdapter('critic-head', { spec, weights }, { model: 'critic', activate: false });
    await engine.setAdapter('critic-trunk', { spec, weights: randomAdapter(spec, 3) }, { model: 'critic', activate: false });
    const [withHead, trunkOnly] = await Promise.all(
      ['critic-head', 'critic-trunk'].map((adapter) => engine.scoreTurns({ model: 'critic', adapter, episodes: [episode] })),
    );
    const enc = encodeChat(m.tok, episode);
    const at = enc.spans.find((x) => x.role === 'agent')?.roleAt as number;
    const ref = referenceForward(m.cfg, m.criticWeights, enc.ids, { heads: { value: true }, lora: spec, loraWeights: weights });
    expect(withHead.episodes[0][0].value).toBeCloseTo(ref.values?.[at] as number, 4);
    const trunkRef = referenceForward(m.cfg, m.criticWeights, enc.ids, { heads: { value: true }, lora: spec, loraWeights: randomAdapter(spec, 3) });
    expect(trunkOnly.episodes[0][0].value).toBeCloseTo(trunkRef.values?.[at] as number, 4);
    expect(Math.abs((withHead.episodes[0][0].value as number) - (trunkOnly.episodes[0][0].value as number))).toBeGreaterThan(0.1);
    await engine
      .setAdapter(
        'critic-bad',
        { spec, weights: { ...weights, 'v_head.summary.delta.bias': Float32Array.of(Number.NaN) } },
        { model: 'critic', activate: false },
      )
      .then(
        () => expect.unreachable('a non-finite head delta is refused'),
        (e: Error) => expect(e.message).toBe('adapter "critic-bad": v_head.summary.delta.bias holds a non-finite value at 0'),
      );
  });
});
