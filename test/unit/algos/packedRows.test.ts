// Packed training rows (issue 17): an episode's agent turns share one row for as long as each later
// prompt extends the row (algos/rows.ts appendTurn), and the row must be exactly the sequence the
// policy generated from: the engine's scoring of a packed row gives every turn's recorded rollout
// log-probs, and the train-step graph's own forward does too (its approx KL to the recorded
// log-probs is 0 before the update). Length buckets pick the shortest graph a batch fits.
// The shipped policy on wasm (a random model's replies rarely re-encode to their own tokens, so
// they would never pack); cost ~15 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { loadModel, type LoadedModel } from '../../../src/rl/model/folder/folder.ts';
import { AlgoContext } from '../../../src/rl/algos/context.ts';
import { defaultLoopConfig } from '../../../src/rl/algos/config.ts';
import { bucketLength, SEQ_BUCKET } from '../../../src/rl/algos/driver.ts';
import { Learner } from '../../../src/rl/algos/learner.ts';
import { setSpan } from '../../../src/rl/algos/rows.ts';
import { PolicyBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { rollout, taskSpecs, type RolloutEpisode } from '../../../src/rl/rollout/rollout.ts';
import { nodeReader } from '../../../src/rl/model/folder/nodeIo.ts';
import { modelsDir } from '../../../src/cli/paths.ts';

const engine = new PolicyEngine();
let runtime: OrtRuntime;
let policy: LoadedModel;
let episodes: RolloutEpisode[];
let ctx: AlgoContext;
const REPLY = 64;
const BUDGET = 256;

beforeAll(async () => {
  const read = nodeReader(modelsDir());
  policy = await loadModel(read, 'policy');
  await engine.init('wasm');
  await engine.loadFrom('policy', { kind: 'reader', read, manifest: true, name: 'policy' });
  runtime = await OrtRuntime.create('wasm');
  const agent = await PolicyBatchAgent.create(engine, { sampling: { temperature: 1, maxNewTokens: REPLY } });
  episodes = (await rollout({ tasks: taskSpecs('guess', 'train', 3, 1, { candidates: 4, maxTurns: 4 }), k: 2, seed: 3 }, agent)).episodes;
  const config = defaultLoopConfig('grpo', 'guess', { seed: 1, tasksPerIteration: 3, k: 2 });
  ctx = new AlgoContext(
    engine,
    runtime,
    { policy, critic: null },
    { policyBudget: BUDGET, policyReserve: REPLY, criticBudget: BUDGET, policyKeepsAnswered: false, criticKeepsAnswered: false },
    config,
    {
      policy: 'p',
      critic: 'c',
    },
  );
}, 60_000);
afterAll(async () => {
  await engine.dispose();
  await runtime.dispose();
});

describe('packed turn rows', () => {
  it('packs an episode played in one window into one row with a span per turn', () => {
    const { rows, spans } = ctx.turnRows(episodes);
    const turns = episodes.reduce((a, e) => a + e.turns.length, 0);
    expect(spans).toHaveLength(turns);
    expect(rows.length).toBeLessThan(turns);
    // every span lies in its row, spans of one row do not overlap, and the mask is exactly the spans
    rows.forEach((row, r) => {
      const own = spans.filter((s) => s.row === r).sort((a, b) => a.from - b.from);
      const mask = new Array<number>(row.ids.length).fill(0);
      own.forEach((s, i) => {
        expect(s.to).toBeLessThan(row.ids.length);
        if (i > 0) expect(s.from).toBeGreaterThanOrEqual(own[i - 1].to);
        for (let p = s.from; p < s.to; p++) mask[p] = 1;
      });
      expect(row.f.loss_mask).toEqual(mask);
    });
  });

  it("scores each turn of a packed row at the rollout's recorded log-probs", async () => {
    const { rows, spans } = ctx.turnRows(episodes);
    const lps = await ctx.positionLogprobs('policy', null, rows);
    for (const s of spans) {
      const recorded = episodes[s.episode].turns[s.turn].logprobs ?? [];
      const scored = lps[s.row].slice(s.from, s.to);
      expect(scored).toHaveLength(recorded.length);
      scored.forEach((v, j) => expect(v).toBeCloseTo(recorded[j], 4));
      // the recorded log-probs were carried into old_logp
      expect(rows[s.row].f.old_logp?.slice(s.from, s.to)).toEqual(Array.from(recorded));
    }
  });

  it("the train-step graph's forward on packed rows equals the rollout log-probs (approx KL 0 before the update)", async () => {
    const { rows, spans } = ctx.turnRows(episodes);
    for (const s of spans) setSpan(rows[s.row], s, 'advantages', 1);
    const learner = await Learner.create(runtime, {
      target: 'policy',
      model: policy,
      lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] },
      base: 'fp32',
      loss: { kind: 'policy-gradient', clipLow: 0.2, clipHigh: 0.2 },
      batch: 4,
      seqLen: BUDGET,
      adamw: { lr: 1e-3 },
      seed: 1,
      initStd: 0.05,
    });
    try {
      const batch = rows.slice(0, 4);
      const [before, initial] = [learner.state(), learner.adapter()];
      const r = await learner.step(batch);
      // a saved state's adapter reads back without loading it (the success guard's reference adapters)
      expect(learner.adapterOf(before)).toEqual(initial);
      expect(learner.adapterOf(learner.state())).toEqual(learner.adapter());
      expect(learner.adapterOf(before)).not.toEqual(learner.adapter());
      expect(Math.abs(r.stats.approx_kl)).toBeLessThan(1e-5);
      expect(r.stats.clip_frac).toBe(0);
      const longest = Math.max(...batch.map((x) => x.ids.length));
      expect(learner.meter.paddedTokens).toBe(4 * bucketLength(longest, BUDGET));
      expect(learner.meter.tokens).toBe(batch.reduce((a, x) => a + x.ids.length, 0));
    } finally {
      await learner.dispose();
    }
  }, 60_000);

  it('buckets lengths to multiples of SEQ_BUCKET, capped at the context', () => {
    expect(bucketLength(1, 256)).toBe(SEQ_BUCKET);
    expect(bucketLength(SEQ_BUCKET + 1, 256)).toBe(2 * SEQ_BUCKET);
    expect(bucketLength(255, 256)).toBe(256);
    expect(bucketLength(250, 250)).toBe(250);
  });
});
