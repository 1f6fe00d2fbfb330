// Resident memory of a learner's train-step sessions, one per length bucket (learner.ts SEQ_BUCKET):
// the shipped policy's LoRA learner at B 8 takes two steps at each of nine buckets (512 down to 256
// tokens, what a frozenlake or sokoban run visits), its sessions without ORT's memory pattern (the
// arena keeps only a run's live peak), on onnxruntime-node and on onnxruntime-web's wasm in Node.
// Reported: resident memory gained over the nine buckets, and the median time of each bucket's second
// step (its first builds and opens the session). The path before (a memory pattern per session, a
// block for all of a graph's intermediates kept in its arena) is no longer in the code: run this
// entry on a commit before issue 44 to compare.
import { median, type BenchEntry, type BenchRow } from '../harness.ts';
import { modelsDir } from '../../src/cli/paths.ts';
import { DEFAULT_LORA } from '../../src/rl/algos/config.ts';
import { Learner } from '../../src/rl/algos/learner.ts';
import type { Row } from '../../src/rl/algos/rows.ts';
import { loadModel } from '../../src/rl/model/folder/folder.ts';
import { nodeReader } from '../../src/rl/model/folder/nodeIo.ts';
import { OrtRuntime } from '../../src/rl/runtime/ort.ts';

const BATCH = 8;
const BUCKETS = [512, 480, 448, 416, 384, 352, 320, 288, 256];

const rssMb = () => process.memoryUsage().rss / 2 ** 20;

/** B rows of `len` tokens, every prediction trained with a small advantage (the clipped objective's inputs). */
function rows(len: number): Row[] {
  return Array.from({ length: BATCH }, (_, b) => {
    const ids = Array.from({ length: len }, (_, i) => 5 + ((i * 7 + b) % 200));
    return { ids, f: { loss_mask: ids.map(() => 1), advantages: ids.map((_, i) => (i % 3) - 1), old_logp: ids.map(() => -3) } };
  });
}

export const trainMemory: BenchEntry = {
  name: 'train-memory',
  description: 'resident memory and step time of a learner over nine length buckets',
  byDefault: true,
  async run(log) {
    const out: BenchRow[] = [];
    const model = await loadModel(nodeReader(modelsDir()), 'policy');
    for (const backend of ['node', 'wasm'] as const) {
      const runtime = await OrtRuntime.create(backend);
      if (runtime.info.kind !== backend) continue;
      {
        const label = `no memory pattern, ${backend === 'node' ? 'onnxruntime-node' : 'wasm (Node)'}`;
        const before = rssMb();
        const learner = await Learner.create(runtime, {
          target: 'policy',
          model,
          lora: DEFAULT_LORA,
          base: 'fp32',
          loss: { kind: 'policy-gradient', clipLow: 0.2, clipHigh: 0.28 },
          batch: BATCH,
          seqLen: 512,
          adamw: { lr: 1e-4 },
          seed: 1,
          initStd: 0.05,
        });
        const times: number[] = [];
        for (const t of BUCKETS) {
          const r = rows(t - 1);
          await learner.step(r);
          const t0 = performance.now();
          await learner.step(r);
          times.push(performance.now() - t0);
        }
        const grown = rssMb() - before;
        await learner.dispose();
        log(`train-memory ${label}: +${grown.toFixed(0)} MB resident after ${BUCKETS.length} buckets, median step ${median(times).toFixed(0)} ms`);
        const c = `policy learner, B ${BATCH}, buckets ${BUCKETS[BUCKETS.length - 1]}–${BUCKETS[0]}: ${label}`;
        out.push({ case: c, metric: 'resident memory gained', value: grown, unit: 'MB' }, { case: c, metric: 'median step', value: median(times), unit: 'ms' });
      }
      await runtime.dispose();
    }
    return out;
  },
};
