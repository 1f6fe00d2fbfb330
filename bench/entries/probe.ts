// The probe MLP (4-bit MatMulNBits + fp32 MatMul) on each Node backend, side by side.
import { time, timingRows, type BenchEntry, type BenchRow } from '../harness.ts';
import { OrtRuntime } from '../../src/rl/runtime/ort.ts';
import { buildProbeGraph, probeInput, probeWeights, PROBE_IN } from '../../src/rl/model/probe.ts';

export const probe: BenchEntry = {
  name: 'probe',
  description: 'probe MLP (64→32 4-bit →8) runs per second, wasm vs onnxruntime-node',
  byDefault: true,
  async run(log) {
    const rows: BenchRow[] = [];
    const model = buildProbeGraph(probeWeights());
    for (const backend of ['wasm', 'node'] as const) {
      const runtime = await OrtRuntime.create(backend);
      if (runtime.info.kind !== backend) {
        log(`probe: ${backend} unavailable (${runtime.info.reason})`);
        continue;
      }
      const session = await runtime.createSession(model, { label: 'probe' });
      for (const batch of [1, 8]) {
        const x = { type: 'float32' as const, data: probeInput(batch), dims: [batch, PROBE_IN] };
        const t = await time(() => session.run({ x }), { warmup: 10, iterations: 500, budgetMs: 3000 });
        log(`probe ${backend} B=${batch}: ${t.perSecond.toFixed(0)} runs/s, median ${t.medianMs.toFixed(3)} ms`);
        rows.push(...timingRows(`probe MLP B=${batch}, ${backend} (Node)`, t));
      }
      await runtime.dispose();
    }
    return rows;
  },
};
