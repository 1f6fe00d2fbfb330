import { afterEach, describe, expect, it } from 'vitest';
import { PolicyEngine, SELF_TEST_TOLERANCE } from '../../../src/rl/runtime/policyEngine.ts';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { buildProbeGraph, probeInput, probeReference, probeWeights, PROBE_IN } from '../../../src/rl/model/probe.ts';

describe('PolicyEngine in-thread', () => {
  const engine = new PolicyEngine();
  afterEach(async () => engine.dispose());

  it('runs the probe graph on wasm in Node within 1e-4 of the TypeScript reference', async () => {
    const info = await engine.init('auto');
    expect(info.kind).toBe('wasm');
    expect(info.reason).toMatch(/Node/);
    const r = await engine.selfTest(4);
    expect(r.backend).toBe('wasm');
    expect(r.maxAbsError).toBeLessThanOrEqual(SELF_TEST_TOLERANCE);
    expect(r.ok).toBe(true);
    expect(r.sample.every(Number.isFinite)).toBe(true);
    expect(engine.liveSessions()).toBe(0);
  });

  it('runs the same graph on onnxruntime-node with the same answer', async () => {
    const info = await engine.init('node');
    expect(info.kind).toBe('node');
    const r = await engine.selfTest(3);
    expect(r.maxAbsError).toBeLessThanOrEqual(SELF_TEST_TOLERANCE);
  });

  it('names the error when used before init or after dispose', async () => {
    const fresh = new PolicyEngine();
    await expect(fresh.selfTest()).rejects.toMatchObject({ name: 'RuntimeError', code: 'disposed' });
  });
});

describe('OrtRuntime', () => {
  it('serialises runs, counts live sessions and refuses a disposed session', async () => {
    const runtime = await OrtRuntime.create('wasm');
    const w = probeWeights(3);
    const a = await runtime.createSession(buildProbeGraph(w), { label: 'a' });
    const b = await runtime.createSession(buildProbeGraph(w), { label: 'b' });
    expect(runtime.liveSessions).toBe(2);
    const x = probeInput(2, 5);
    const feeds = { x: { type: 'float32' as const, data: x, dims: [2, PROBE_IN] } };
    const [ya, yb] = await Promise.all([a.run(feeds), b.run(feeds)]);
    const ref = probeReference(w, x, 2);
    for (const y of [ya.y.data, yb.y.data]) y.forEach((v, i) => expect(Math.abs(Number(v) - ref[i])).toBeLessThan(1e-4));
    await a.dispose();
    expect(runtime.liveSessions).toBe(1);
    await expect(a.run(feeds)).rejects.toMatchObject({ name: 'RuntimeError', code: 'disposed' });
    await runtime.dispose();
    expect(runtime.liveSessions).toBe(0);
  });

  it('reports a named error for a corrupt model', async () => {
    const runtime = await OrtRuntime.create('wasm');
    await expect(runtime.createSession(new Uint8Array([1, 2, 3, 4]), { label: 'junk' })).rejects.toMatchObject({
      name: 'RuntimeError',
      code: 'session-create',
    });
    await runtime.dispose();
  });
});
