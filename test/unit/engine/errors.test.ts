// Bad input and lifecycle: named errors with messages that state the rule, cancellation, loading
// progress and verification, and no leaked sessions.
import { describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import type { LoadProgress, Prompt } from '../../../src/rl/runtime/engine/types.ts';
import { tinyModels } from './fixtures.ts';

const prompt: Prompt = { messages: [{ role: 'user', content: 'Is it red?' }] };

async function ready(): Promise<{ engine: PolicyEngine; files: Record<string, Uint8Array> }> {
  const { files } = await tinyModels(3);
  const engine = new PolicyEngine();
  await engine.init('wasm');
  await engine.load('policy', { kind: 'files', files });
  return { engine, files };
}

describe('engine errors', () => {
  it('names bad requests and states the rule', async () => {
    const { engine } = await ready();
    try {
      const long = { ids: Array.from({ length: 64 }, () => 20) };
      await expect(engine.generate({ prompts: [prompt, long] })).rejects.toMatchObject({
        name: 'PromptTooLongError',
        message: "prompt 1 has 64 tokens; a prompt may have at most 63 (the model's context window is 64 tokens and one must stay free for the reply)",
      });
      await expect(engine.score({ items: [{ context: { ids: long.ids.slice(0, 60) }, continuation: [1, 2, 3, 4, 5] }] })).rejects.toMatchObject({
        name: 'PromptTooLongError',
        message: "score item 0 has 65 tokens; context and continuation together may have at most 64 (the model's context window)",
      });
      await expect(engine.generate({ prompts: [prompt], sampling: { topP: 2 } })).rejects.toMatchObject({
        name: 'SamplingParamsError',
        message: 'sampling: topP must be in (0, 1], got 2',
      });
      await expect(engine.generate({ prompts: [prompt], n: 0 })).rejects.toMatchObject({
        name: 'EngineInputError',
        message: 'generate: n (samples per prompt) must be an integer in [1, 1024], got 0',
      });
      await expect(engine.generate({ prompts: [] })).rejects.toMatchObject({ name: 'EngineInputError' });
      await expect(engine.generate({ prompts: [{ ids: [1, 9999] }] })).rejects.toMatchObject({
        name: 'EngineInputError',
        message: 'prompt 0: ids[1] = 9999 is outside the vocabulary [0, 380)',
      });
      await expect(engine.score({ items: [{ context: prompt, continuation: [-1] }] })).rejects.toMatchObject({ name: 'EngineInputError' });
      await expect(engine.generate({ model: 'critic', prompts: [prompt] })).rejects.toMatchObject({
        name: 'ModelNotLoadedError',
        message: 'model "critic" is not loaded (loaded: policy); call load first',
      });
    } finally {
      await engine.dispose();
    }
  });

  it('cancels a request by id and supersedes older requests on a channel', async () => {
    const { engine } = await ready();
    try {
      const req = { prompts: [prompt], sampling: { maxNewTokens: 60, stop: [] }, id: 'r1' };
      let seen = 0;
      const p = engine.generate(req, () => {
        if (++seen === 3) void engine.cancel('r1');
      });
      await expect(p).rejects.toMatchObject({ name: 'CancelledError', message: 'request "r1" was cancelled' });
      expect(seen).toBe(3);
      expect(await engine.cancel('r1')).toBe(false);
      const first = engine.generate({ prompts: [prompt], sampling: { temperature: 0, maxNewTokens: 30 }, channel: 'credit' });
      const second = engine.generate({ prompts: [prompt], sampling: { temperature: 0, maxNewTokens: 3 }, channel: 'credit' });
      await expect(first).rejects.toMatchObject({
        name: 'CancelledError',
        message: expect.stringMatching(/superseded by a newer request on channel "credit"/),
      });
      expect((await second).generations[0].completionTokens).toBeLessThanOrEqual(3);
      // the engine still works afterwards
      expect((await engine.generate({ prompts: [prompt], sampling: { maxNewTokens: 2 } })).generations).toHaveLength(1);
    } finally {
      await engine.dispose();
    }
  });

  it('refuses calls after dispose, stops running requests, and leaks no sessions', async () => {
    const { engine } = await ready();
    await engine.load('critic', { kind: 'files', files: (await tinyModels(3)).files, name: 'critic' });
    await engine.score({ model: 'critic', items: [{ context: prompt, continuation: 'Yes.' }] });
    expect(engine.liveSessions()).toBe(5); // policy prefill+decode, critic prefill+decode+score
    await engine.unload('critic');
    expect(engine.liveSessions()).toBe(2);
    const running = engine.generate({ prompts: [prompt], sampling: { maxNewTokens: 60 } });
    await engine.dispose();
    await expect(running).rejects.toMatchObject({ name: expect.stringMatching(/CancelledError|EngineDisposedError|RuntimeError/) });
    expect(engine.liveSessions()).toBe(0);
    await expect(engine.generate({ prompts: [prompt] })).rejects.toMatchObject({
      name: 'EngineDisposedError',
      message: 'the engine was disposed; call init to start it again',
    });
    await expect(engine.load('policy', { kind: 'files', files: {} })).rejects.toMatchObject({ name: 'EngineDisposedError' });
    await expect(new PolicyEngine().generate({ prompts: [prompt] })).rejects.toMatchObject({
      name: 'EngineDisposedError',
      message: 'the engine is not initialised; call init first',
    });
  });
});

describe('loading', () => {
  it('reports stages and bytes, verifies sha256, and loads a plain folder unverified', async () => {
    const { files } = await tinyModels(4);
    const engine = new PolicyEngine();
    await engine.init('wasm');
    try {
      const events: LoadProgress[] = [];
      const info = await engine.load('policy', { kind: 'files', files }, { adapterSlot: null }, (p) => events.push(p));
      expect(events.map((e) => e.stage)).toEqual(['verify', 'build', 'ready']);
      expect(info).toMatchObject({ name: 'policy', verified: true, precision: 'fp32', adapterSlot: null, backend: 'wasm' });
      expect(info.bytes).toBe(
        Object.entries(files)
          .filter(([p]) => p.startsWith('policy/'))
          .reduce((a, [, b]) => a + b.length, 0),
      );
      expect(engine.liveSessions()).toBe(2);
      await expect(engine.setAdapter('x', { spec: { rank: 1, alpha: 1, targets: ['q_proj'] }, weights: {} })).rejects.toMatchObject({ name: 'AdapterError' });

      const corrupt = { ...files, 'policy/model.safetensors': files['policy/model.safetensors'].map((b, i) => (i === 200 ? b ^ 1 : b)) };
      await expect(engine.load('policy', { kind: 'files', files: corrupt })).rejects.toMatchObject({
        name: 'ModelFileError',
        message: 'model file policy/model.safetensors fails its sha256 check',
      });
      expect(engine.liveSessions()).toBe(2); // the loaded model stays

      const plain = Object.fromEntries(
        Object.entries(files)
          .filter(([p]) => p.startsWith('critic/'))
          .map(([p, b]) => [p.slice('critic/'.length), b]),
      );
      const critic = await engine.load('critic', { kind: 'files', files: plain }, { precision: 'quant4' });
      expect(critic).toMatchObject({ verified: false, heads: { value: true }, precision: 'quant4' });
      const r = await engine.scoreTurns({ model: 'critic', episodes: [[{ role: 'agent', content: 'hi' }]] });
      expect(Number.isFinite(r.episodes[0][0].value)).toBe(true);
    } finally {
      await engine.dispose();
    }
  });

  it('gives the same greedy tokens on onnxruntime-node as on wasm', async () => {
    const { files } = await tinyModels(5);
    const outs: number[][] = [];
    for (const backend of ['wasm', 'node'] as const) {
      const engine = new PolicyEngine();
      expect((await engine.init(backend)).kind).toBe(backend);
      await engine.load('policy', { kind: 'files', files });
      outs.push((await engine.generate({ prompts: [prompt], sampling: { temperature: 0, maxNewTokens: 10 } })).generations[0].tokenIds);
      await engine.dispose();
    }
    expect(outs[1]).toEqual(outs[0]);
  });
});
