// Nothing a run produced stays reachable once its caller drops it (issue #8: batched held-out
// evaluation grew RSS by ~150 MB/s because every run was raced against one never-settling "device
// lost" promise, whose reaction list kept each run's outputs — KV caches, logits — alive).
// Checked with WeakRefs after forced garbage collections, on the wasm backend and onnxruntime-node,
// for ManagedSession.run, OrtRuntime.download, and the bytes left behind by batched generation.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProbeGraph, probeInput, probeWeights, PROBE_IN } from '../../../src/rl/model/probe.ts';
import { OrtRuntime, type BackendKind, type ManagedSession } from '../../../src/rl/runtime/ort.ts';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import type { Prompt } from '../../../src/rl/runtime/engine/types.ts';
import { tinyModels } from '../engine/fixtures.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Full collections, with turns of the event loop between them (WeakRefs clear and finalizers run only then). */
async function collect(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 10));
    gc();
  }
  await new Promise((r) => setTimeout(r, 10));
}

/** Runs the probe graph once and keeps only a weak reference to its output's data. */
async function runAndDrop(session: ManagedSession, batch: number): Promise<WeakRef<object>> {
  const out = await session.run({ x: { type: 'float32', data: probeInput(batch), dims: [batch, PROBE_IN] } });
  return new WeakRef(out.y.data);
}

const BACKENDS: BackendKind[] = ['wasm', 'node'];

describe.each(BACKENDS)('ORT results are not retained (%s)', (kind) => {
  let runtime: OrtRuntime;
  let session: ManagedSession;
  beforeAll(async () => {
    runtime = await OrtRuntime.create(kind);
    session = await runtime.createSession(buildProbeGraph(probeWeights()), { label: 'probe' });
  });
  afterAll(async () => {
    await runtime.dispose();
  });

  it('a run leaves nothing waiting and its outputs become garbage once dropped', async () => {
    const refs: WeakRef<object>[] = [];
    for (let i = 0; i < 3; i++) refs.push(await runAndDrop(session, 8));
    expect(runtime.waitingRuns).toBe(0);
    await collect();
    expect(refs.map((r) => r.deref() === undefined)).toEqual([true, true, true]);
  });

  it('a failing run rejects with RuntimeError "run" and leaves nothing waiting', async () => {
    const bad = session.run({ x: { type: 'float32', data: new Float32Array(3), dims: [1, 3] } });
    await expect(bad).rejects.toMatchObject({ name: 'RuntimeError', code: 'run', message: expect.stringContaining('running probe on') });
    expect(runtime.waitingRuns).toBe(0);
    expect((await runAndDrop(session, 2)).deref()).toBeDefined(); // the queue goes on after a failure
  });

  it('a download (as of a KV cache left on the GPU) frees the tensor and does not retain its data', async () => {
    const dropped = async (): Promise<WeakRef<object>> => {
      const t = runtime.adoptGpu(new runtime.ort.Tensor('float32', new Float32Array(1024).fill(2), [4, 256]));
      expect(runtime.gpuTensors.live).toBe(1);
      const d = await runtime.download(t);
      expect([d.dims, d.data[1023]]).toEqual([[4, 256], 2]);
      return new WeakRef(d.data);
    };
    const ref = await dropped();
    expect([runtime.gpuTensors.live, runtime.waitingRuns]).toEqual([0, 0]);
    await collect();
    expect(ref.deref()).toBeUndefined();
  });
});

describe('batched generation does not accumulate memory', () => {
  const engine = new PolicyEngine();
  let kvBytesPerCall = 0;
  const prompts: Prompt[] = Array.from({ length: 16 }, (_, i) => ({ messages: [{ role: 'user', content: `Is it red? ${'Is it big? '.repeat(i % 4)}` }] }));
  const request = { prompts, sampling: { temperature: 1, seed: 3, maxNewTokens: 96, minNewTokens: 96 } };

  beforeAll(async () => {
    const m = await tinyModels(1, 256);
    await engine.init('node');
    await engine.load('policy', { kind: 'files', files: m.files });
    // Bytes of the present.* caches the decode runs return in one call (a lower bound on its outputs).
    const lens = await Promise.all(prompts.map((p) => engine.encode(p)));
    const longest = Math.max(...lens.map((l) => l.length));
    const perPosition = 2 * m.cfg.nLayers * m.cfg.nKvHeads * (m.cfg.dModel / m.cfg.nHeads) * 4;
    for (let step = 1; step < 96; step++) kvBytesPerCall += prompts.length * (longest + step) * perPosition;
  });
  afterAll(async () => {
    await engine.dispose();
  });

  it('three generations leave less than half of one generation’s KV outputs behind', async () => {
    const r = await engine.generate(request); // warm-up: ORT's and the wasm heap's own growth
    expect(r.generations.every((g) => g.completionTokens === 96)).toBe(true);
    await collect();
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 3; i++) await engine.generate(request);
    await collect();
    const grown = process.memoryUsage().arrayBuffers - before;
    expect(kvBytesPerCall).toBeGreaterThan(8 * 2 ** 20);
    expect(grown).toBeLessThan(kvBytesPerCall / 2);
  });
});
