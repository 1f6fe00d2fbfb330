// What a longer context costs the forge (issue #18: "512 tokens, or compact prompts, or both —
// measure which serves better"). The forge's own SFT step (full parameters, the shipped d 128 × 4
// size) on real packed rows of the six-family teacher stream (SIX_FAMILY_FORGE), cut at 256, 384 and
// 512 tokens with B × S = 6,144 row tokens each, on onnxruntime-node; the cases alternate in one run
// so a shared machine's load falls on all of them. Reports real (non-padding) tokens per second, the
// share of row tokens that are real, and the share of segments each length can hold whole.
import { time, type BenchEntry, type BenchRow } from '../harness.ts';
import { SIX_FAMILY_FORGE } from '../../src/rl/forge/presets.ts';
import { EpisodeStream, segmentStream, teacher, type PackSegment } from '../../src/rl/forge/data.ts';
import { packRows } from '../../src/rl/algos/rows.ts';
import { sftGraph } from '../../src/rl/forge/train.ts';
import { dialogueOf } from '../../src/rl/envs/episode.ts';
import { validateConfig } from '../../src/rl/model/llama/config.ts';
import { initWeights } from '../../src/rl/model/llama/weights.ts';
import { segments, toChat } from '../../src/rl/model/tokenizer/dialogue.ts';
import { fitTokenizer } from '../../src/rl/model/tokenizer/fit.ts';
import { OrtRuntime } from '../../src/rl/runtime/ort.ts';
import { Trainer } from '../../src/rl/runtime/train/trainer.ts';
import type { Episode } from '../../src/rl/envs/types.ts';

const LENGTHS = [256, 384, 512] as const;
const ROW_TOKENS = 6144;

export const forgeContext: BenchEntry = {
  name: 'forge-context',
  description: "the forge's SFT step on six-family packed rows at context 256 / 384 / 512 (onnxruntime-node)",
  byDefault: false,
  async run(log) {
    const f = SIX_FAMILY_FORGE;
    const stream = new EpisodeStream(
      f.mix,
      'bench/forge-context',
      teacher(() => f.noise, f.expertShare),
    );
    const episodes: Episode[] = [];
    for (let i = 0; i < 600; i++) episodes.push(await stream.next());
    const tok = fitTokenizer(
      episodes.flatMap((e) => [e.task.prompt, ...e.turns.flatMap((t) => [t.action, t.observation])]),
      { maxVocab: f.maxVocab },
    );
    const runtime = await OrtRuntime.create('node');
    const rows: BenchRow[] = [];
    try {
      const setups = await Promise.all(
        LENGTHS.map(async (S) => {
          const cfg = validateConfig({ vocabSize: tok.vocabSize, dModel: f.dModel, nLayers: f.nLayers, nHeads: f.nHeads, dFf: f.dFf, maxSeq: S });
          const segs = episodes.flatMap((e) => segments(tok, toChat(dialogueOf(e.task.prompt, e.turns)), S, f.obsWeight));
          let at = 0;
          const take = async (): Promise<PackSegment> => segs[at++ % segs.length];
          const B = ROW_TOKENS / S;
          const batches = [];
          const stream = segmentStream({ cfg, batch: B, seqLen: S, padId: tok.special.pad, kind: 'sft' }, take);
          for (let i = 0; i < 4; i++) {
            const groups = await stream.next();
            const feeds = packRows(cfg, groups, B, S, ['loss_mask', 'weights'], tok.special.pad, 'start');
            batches.push({ feeds, tokens: groups.flat().reduce((a, r) => a + r.ids.length, 0) });
          }
          const weights = initWeights(cfg, 1);
          const trainer = await Trainer.create(runtime, sftGraph(cfg, weights, B, S), weights, { lr: 1e-4 });
          const whole = episodes.filter((e) => segments(tok, toChat(dialogueOf(e.task.prompt, e.turns)), S, f.obsWeight).length <= 1).length;
          return { S, B, batches, trainer, whole };
        }),
      );
      const timings = new Map<number, number[]>();
      for (let round = 0; round < 3; round++) {
        for (const s of setups) {
          let i = 0;
          const t = await time(() => s.trainer.step(s.batches[i++ % s.batches.length].feeds), { warmup: round === 0 ? 1 : 0, iterations: 4, budgetMs: 60_000 });
          timings.set(s.S, [...(timings.get(s.S) ?? []), t.medianMs]);
        }
      }
      for (const s of setups) {
        const ms = (timings.get(s.S) ?? []).sort((a, b) => a - b)[1];
        const real = s.batches.reduce((a, b) => a + b.tokens, 0) / s.batches.length;
        const c = `SFT step, context ${s.S} (B ${s.B}), d ${f.dModel} × ${f.nLayers}, six families, node (Node)`;
        log(
          `forge-context ${c}: ${ms.toFixed(0)} ms/step, ${((real * 1000) / ms).toFixed(0)} real tokens/s, rows ${((100 * real) / ROW_TOKENS).toFixed(0)}% full, ${s.whole} of ${episodes.length} episodes in one segment`,
        );
        rows.push(
          { case: c, metric: 'train step', value: (real * 1000) / ms, unit: 'tokens/s', note: `${((100 * real) / ROW_TOKENS).toFixed(0)}% of row tokens real` },
          { case: c, metric: 'train step', value: ms, unit: 'ms' },
          { case: c, metric: 'episodes in one segment', value: s.whole / episodes.length, unit: 'fraction' },
        );
        await s.trainer.dispose();
      }
    } finally {
      await runtime.dispose();
    }
    return rows;
  },
};
