// Centred SWEET-RL credit of whole episodes (rollout/centredSweet.ts, issue #46) on a tiny policy and a
// tiny critic with a SWEET-RL adapter, written as a models folder. A critic whose log-ratio is a known
// function, A(s, a) = g(s) + h(a) (a wrapper over the tiny critic: every critic token log-prob is
// g(context) + h(continuation), every reference one 0), gives centred credit h(taken) − mean h(candidates)
// exactly, whatever g; then `turnwise credit --sweet-centre K` (K in the JSON and in each annotation's
// params) and a critic without an adapter, for which nothing is sampled (no policy is even in the folder).
import 'fake-indexeddb/auto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credit } from '../../../src/cli/commands/credit.ts';
import { shippedAdapterFiles } from '../../../src/rl/bridge/peft.ts';
import { validateConfig } from '../../../src/rl/model/llama/config.ts';
import { initLora, initWeights, loraParams, type LoraSpec } from '../../../src/rl/model/llama/weights.ts';
import { fitTokenizer } from '../../../src/rl/model/tokenizer/fit.ts';
import { writeManifest, writeModelFolder } from '../../../src/rl/model/folder/folder.ts';
import { nodeWriter } from '../../../src/rl/model/folder/nodeIo.ts';
import { PolicyBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { CENTRE_NO_ADAPTER, centreStored, LiveSweetCentring } from '../../../src/rl/rollout/centredSweet.ts';
import { criticInputs, type ScoreApi } from '../../../src/rl/rollout/criticInputs.ts';
import { openModels } from '../../../src/rl/rollout/node.ts';
import { rollout, taskSpecs, type RolloutEpisode } from '../../../src/rl/rollout/rollout.ts';
import { storeSink } from '../../../src/rl/rollout/sink.ts';
import { fromEpisode, storedCredit, type StoredEpisode } from '../../../src/rl/rollout/stored.ts';
import type { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { encodeTurnwise } from '../../../src/rl/store/formats/turnwise.ts';
import { TrajectoryStore } from '../../../src/rl/store/index.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { capture } from '../capture.ts';
import { CORPUS } from '../engine/fixtures.ts';

let dir: string;
let engine: PolicyEngine;
let played: RolloutEpisode[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'turnwise-centre-'));
  const tok = fitTokenizer(CORPUS, { minCount: 1 });
  const cfg = validateConfig({ vocabSize: tok.vocabSize, dModel: 32, nLayers: 2, nHeads: 4, nKvHeads: 2, dFf: 64, maxSeq: 512 });
  const criticWeights = initWeights(cfg, 106, { std: 0.2, heads: { value: true } });
  // a critic adapter with random B, so that log π_critic ≠ log π_ref
  const spec: LoraSpec = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] };
  const w = initLora(cfg, spec, 3, 0.3);
  const rng = new Rng(3);
  for (const p of loraParams(cfg, spec)) w[p.b.name] = w[p.b.name].map(() => rng.normal() * 0.3);
  const adapterFiles = shippedAdapterFiles(cfg, { spec, weights: w }, { baseModel: 'tiny' });
  // models: policy + critic with its adapter; bare: the critic alone, no adapter (and no policy to sample with)
  const write = nodeWriter(join(dir, 'models'));
  const policy = await writeModelFolder(write, 'policy', { config: cfg, tokenizer: tok, weights: initWeights(cfg, 6, { std: 0.2 }) });
  const critic = await writeModelFolder(write, 'critic', { config: cfg, tokenizer: tok, weights: criticWeights, heads: { value: true }, files: adapterFiles });
  await writeManifest(write, { policy, critic });
  const bare = nodeWriter(join(dir, 'bare'));
  await writeManifest(bare, {
    critic: await writeModelFolder(bare, 'critic', { config: cfg, tokenizer: tok, weights: criticWeights, heads: { value: true } }),
  });

  engine = await openModels({ root: join(dir, 'models'), backend: 'wasm', models: ['policy', 'critic'] });
  const agent = await PolicyBatchAgent.create(engine, { sampling: { maxNewTokens: 6 } });
  // bandit ends after one pull; frozenlake goes on, so turn 1's state replays a prefix
  played = (await rollout({ tasks: [...taskSpecs('bandit', 'test', 1, 1), ...taskSpecs('frozenlake', 'test', 1, 1)], k: 1, seed: 9, turnLimit: 2 }, agent))
    .episodes;
}, 120_000);
afterAll(async () => {
  await engine?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The tiny critic with a known log-ratio: on its adapter, each continuation token's log-prob is
 * g(context) + h(continuation); on its base 0; so A(s, a) = g(s) + h(a). Values pass through. Every
 * critic-side item is recorded (context, h) in `seen`. Quarters keep every sum and mean exact.
 */
function knownCritic(g: (context: string) => number, seen: { context: string; h: number }[]): ScoreApi {
  const h = (ids: ArrayLike<number>) => ((ids[0] ?? 0) % 4) * 0.25;
  return {
    encode: (p, m) => engine.encode(p, m),
    models: () => engine.models(),
    async score(request) {
      const real = await engine.score(request);
      return {
        ...real,
        items: real.items.map((it, i) => {
          const item = request.items[i];
          const ids = typeof item.continuation === 'string' ? [] : item.continuation;
          if (ids.length === 0) return it;
          const context = JSON.stringify(item.context);
          if (request.adapter !== null) seen.push({ context, h: h(ids) });
          const lp = request.adapter === null ? 0 : g(context) + h(ids);
          return { ...it, logprobs: it.tokens.map(() => lp), sum: lp * it.tokens.length, mean: lp };
        }),
      };
    },
  };
}

const stateConstant = (context: string) => (context.length % 8) * 0.25 - 1;

describe('centred SWEET-RL credit of stored episodes', () => {
  it('is A(taken) − mean A(candidates) at each state, and a per-state constant added to A leaves it unchanged', { timeout: 120_000 }, async () => {
    const stored: StoredEpisode[] = played.map((e, i) => ({
      ...fromEpisode(e, i + 1),
      critic: { task: e.task, turns: e.turns, tokens: e.turns.map((t) => t.tokens) },
    }));
    expect(played.map((e) => e.turns.length)).toEqual([1, 2]);
    const agent = await PolicyBatchAgent.create(engine, { sampling: { maxNewTokens: 6 } });
    const k = 4;
    const centred: Float32Array[][] = [];
    for (const g of [() => 0, stateConstant]) {
      const taken: { context: string; h: number }[] = [];
      const sweet = storedCredit(
        stored,
        ['sweet'],
        {},
        await criticInputs(
          knownCritic(g, taken),
          stored.map((s) => s.critic),
        ),
      ).get('sweet')!;
      const candidates: { context: string; h: number }[] = [];
      const c = await centreStored(
        stored,
        sweet.map((r) => r.perTurn),
        1,
        { agent, critic: knownCritic(g, candidates) },
        { k, seed: 5 },
      );
      // turn by turn, in order: each taken turn's state has exactly K candidates, scored at that same state
      let at = 0;
      stored.forEach((s, i) =>
        s.critic.turns.forEach((_, t) => {
          const mine = taken[at++];
          const cands = candidates.filter((x) => x.context === mine.context).map((x) => x.h);
          expect(cands).toHaveLength(k);
          expect(c[i][t]).toBe(mine.h - cands.reduce((a, b) => a + b, 0) / k);
        }),
      );
      expect(candidates).toHaveLength(k * at);
      centred.push(c);
    }
    // g(s) shifted every A at a state (the raw credit moved), the centred credit did not
    expect(centred[1]).toEqual(centred[0]);
  });
});

describe('centred SWEET-RL credit of an episode as its turns land (Play)', () => {
  it('samples each state once, in order; null until every turn is sampled, and for another K or task', { timeout: 120_000 }, async () => {
    const e = played[1];
    const episode = { task: e.task, turns: e.turns, tokens: e.turns.map((t) => t.tokens) };
    const taken: { context: string; h: number }[] = [];
    const [sweet] = storedCredit(
      [{ ...fromEpisode(e, 1), critic: episode }],
      ['sweet'],
      {},
      await criticInputs(knownCritic(stateConstant, taken), [episode]),
    ).get('sweet')!;
    const seen: { context: string; h: number }[] = [];
    const models = { agent: await PolicyBatchAgent.create(engine, { sampling: { maxNewTokens: 6 } }), critic: knownCritic(stateConstant, seen) };
    const k = 2;
    const live = new LiveSweetCentring();
    await live.extend(models, e.task, e.turns.slice(0, 1), { k, seed: 5 });
    expect([live.done, seen.length]).toEqual([1, k]);
    expect(live.centred(sweet.perTurn, 1, e.task, k)).toBeNull();
    await live.extend(models, e.task, e.turns, { k, seed: 5 });
    await live.extend(models, e.task, e.turns, { k, seed: 5 }); // nothing new to sample
    expect([live.done, seen.length]).toEqual([2, 2 * k]);
    const centred = live.centred(sweet.perTurn, 1, e.task, k)!;
    taken.forEach((mine, t) => {
      const cands = seen.filter((x) => x.context === mine.context).map((x) => x.h);
      expect(cands).toHaveLength(k);
      expect(centred[t]).toBe(mine.h - cands.reduce((a, b) => a + b, 0) / k);
    });
    expect(live.centred(sweet.perTurn, 1, e.task, k + 1)).toBeNull();
    expect(live.centred(sweet.perTurn, 1, played[0].task, k)).toBeNull();
  });
});

describe('turnwise credit --sweet-centre', () => {
  let file: string;
  beforeAll(async () => {
    const store = await TrajectoryStore.open({ name: `centre-${Date.now()}` });
    const sink = storeSink(store, { policy: 'policy', adapter: null, critic: null });
    const agent = await PolicyBatchAgent.create(engine, { sampling: { maxNewTokens: 6 } });
    await rollout({ tasks: taskSpecs('bandit', 'test', 2, 3), k: 1, seed: 4 }, agent, { onEvent: sink.onEvent });
    const lines: string[] = [];
    for await (const l of encodeTurnwise(store.exportRecords())) lines.push(l);
    store.close();
    file = join(dir, 'eps.turnwise.jsonl');
    writeFileSync(file, lines.join(''));
  });

  type Out = { criticSource: string; sweetCentre: number; sweetCentreNote: string; episodes: { id: string; credit: Record<string, number[]> }[] };
  const run = async (args: string[]) => {
    const { code, out } = await capture(() => credit.run(['--in', file, '--estimators', 'mc,sweet', '--backend', 'wasm', ...args, '--json']));
    expect(code).toBe(0);
    return JSON.parse(out) as Out;
  };

  it('centres SWEET-RL at each state over K policy candidates, says K in the JSON and in each annotation', { timeout: 120_000 }, async () => {
    const models = ['--models', join(dir, 'models')];
    const raw = await run([...models, '--rescore', '--sweet-centre', '0']);
    expect(raw.sweetCentre).toBe(0);
    expect(raw.sweetCentreNote).toMatch(/^uncentred: the raw log-ratio/);
    const out = join(dir, 'annotated.turnwise.jsonl');
    const r = await run([...models, '--rescore', '--sweet-centre', '3', '--out', out]);
    expect(r.criticSource).toBe('critic');
    expect(r.sweetCentre).toBe(3);
    expect(r.sweetCentreNote).toMatch(/K = 3 candidate turns/);
    const rawSweet = raw.episodes.flatMap((e) => e.credit.sweet);
    const centred = r.episodes.flatMap((e) => e.credit.sweet);
    expect(rawSweet.some((x) => x !== 0)).toBe(true);
    expect(centred).toHaveLength(rawSweet.length);
    expect(centred).not.toEqual(rawSweet);
    // the rewards-only rows are untouched
    expect(r.episodes.map((e) => e.credit.mc)).toEqual(raw.episodes.map((e) => e.credit.mc));
    const annotated = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as { type: string; id: string; credit: { estimator: string; params: Record<string, number>; values: number[] }[] })
      .filter((x) => x.type === 'episode');
    for (const ep of annotated) {
      const row = ep.credit.find((c) => c.estimator === 'sweet')!;
      expect(row.params).toEqual({ beta: 1, centre: 3 });
      expect(row.values).toEqual(r.episodes.find((e) => e.id === ep.id)!.credit.sweet.map((x) => expect.closeTo(x, 5)));
    }
    await expect(credit.run(['--in', file, '--estimators', 'mc', '--sweet-centre', '3'])).rejects.toMatchObject({
      name: 'UsageError',
      message: expect.stringMatching(/add sweet to --estimators/),
    });
  });

  it('samples nothing for a critic without an adapter (its folder has no policy to sample with), K = 8 by default', { timeout: 60_000 }, async () => {
    const r = await run(['--models', join(dir, 'bare'), '--rescore']);
    expect(r.sweetCentre).toBe(8);
    expect(r.sweetCentreNote).toBe(CENTRE_NO_ADAPTER);
    expect(r.episodes.flatMap((e) => e.credit.sweet).every((x) => x === 0)).toBe(true);
  });
});
