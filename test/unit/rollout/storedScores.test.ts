// Stored critic scores recompute the live credit exactly (issue #20): episodes played by the policy
// are scored turn by turn by a critic with an adapter (so SWEET-RL's log-ratio is not zero), the
// scores the live estimators were fed are kept with the episode record, and after a Turnwise JSONL
// round trip and an IndexedDB round trip, GAE, bi-level GAE (per turn and per token) and SWEET-RL
// (per turn and per token) recomputed from the stored rewards, values and log-probs, with no critic
// in reach, equal the live values bit for bit, at the defaults and at other γ/λ/β.
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { PolicyBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { rollout, taskSpecs, type RolloutEpisode } from '../../../src/rl/rollout/rollout.ts';
import { LiveEpisodeCredit } from '../../../src/rl/rollout/liveCredit.ts';
import { readStored, storedCredit } from '../../../src/rl/rollout/stored.ts';
import type { EstimatorName } from '../../../src/rl/credit/registry.ts';
import type { CreditParams } from '../../../src/rl/credit/types.ts';
import { initLora, loraParams, type LoraSpec } from '../../../src/rl/model/llama/weights.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { playedRecord, readLines, textSource, type EpisodeRecord } from '../../../src/rl/store/index.ts';
import { decodeTurnwise, encodeTurnwise } from '../../../src/rl/store/formats/turnwise.ts';
import { tinyModels, type TinyModel } from '../engine/fixtures.ts';
import { openStore } from '../store/helpers.ts';

const engine = new PolicyEngine();
let m: TinyModel;
let episodes: RolloutEpisode[];

beforeAll(async () => {
  m = await tinyModels(6, 512);
  await engine.init('wasm');
  await engine.load('policy', { kind: 'files', files: m.files });
  await engine.load('critic', { kind: 'files', files: m.files, name: 'critic' });
  // a critic adapter with random B, so that log π_critic ≠ log π_ref
  const spec: LoraSpec = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] };
  const w = initLora(m.cfg, spec, 3, 0.3);
  const rng = new Rng(3);
  for (const p of loraParams(m.cfg, spec)) w[p.b.name] = w[p.b.name].map(() => rng.normal() * 0.3);
  await engine.setAdapter('sweet-critic', { spec, weights: w }, { model: 'critic', activate: true });
  const agent = await PolicyBatchAgent.create(engine, { sampling: { maxNewTokens: 8 } });
  // bandit ends after its pull (terminal); frozenlake is cut at the turn limit (a bootstrapped prefix)
  episodes = (await rollout({ tasks: [...taskSpecs('bandit', 'test', 1, 1), ...taskSpecs('frozenlake', 'test', 1, 1)], k: 1, seed: 9, turnLimit: 3 }, agent))
    .episodes;
});
afterAll(() => engine.dispose());

const CASES: [EstimatorName, CreditParams][] = [
  ['gae', {}],
  ['gae', { gamma: 0.9, lambda: 0.3 }],
  ['bilevel-gae', {}],
  ['bilevel-gae', { gamma: 0.8, lambda: 0.5, turnGamma: 0.7, turnLambda: 0.9 }],
  ['sweet', {}],
  ['sweet', { beta: 0.1 }],
];

describe('credit recomputed from stored critic scores', () => {
  it('equals the live credit exactly after JSONL and IndexedDB round trips, with no critic', async () => {
    expect(episodes.map((e) => e.turns[e.turns.length - 1].done)).toEqual([true, false]);
    const records: EpisodeRecord[] = [];
    const lives: LiveEpisodeCredit[] = [];
    for (const [i, e] of episodes.entries()) {
      const live = new LiveEpisodeCredit();
      const tokens = e.turns.map((t) => t.tokens);
      // live: one landed turn at a time, as Play scores them
      for (let t = 1; t <= e.turns.length; t++) await live.score(engine, { task: e.task, turns: e.turns.slice(0, t), tokens });
      const scores = live.scores(e.turns.length);
      expect(scores).not.toBeNull();
      expect(scores!.version).toBe('critic@sweet-critic');
      expect(scores!.values).toHaveLength(e.turns.length + 1);
      expect(scores!.tokens).toEqual(e.turns.flatMap((t) => t.tokens ?? []));
      expect(scores!.tokenText).toEqual(await Promise.all(scores!.tokens.map((id) => engine.decode([id], 'critic'))));
      lives.push(live);
      records.push({
        ...playedRecord(e, { id: `e${i}`, runId: null, model: { policy: 'policy', adapter: null, critic: 'critic' }, collaborative: false, at: 1 }),
        criticScores: { ...scores!, at: 2 },
      });
    }

    // through our JSONL (numbers printed and parsed back) …
    const lines: string[] = [];
    for await (const l of encodeTurnwise(records)) lines.push(l);
    const decoded: EpisodeRecord[] = [];
    for await (const ev of decodeTurnwise(readLines(textSource(lines.join(''))))) {
      if (ev.kind === 'issue') throw new Error(ev.issue.message);
      if (ev.record.type === 'episode') decoded.push(ev.record);
    }
    // … and through IndexedDB (typed-array rows)
    const store = await openStore();
    await store.importRecords(decoded, { source: 'test' });
    const back = (await store.getEpisodes(['e0', 'e1'])) as EpisodeRecord[];
    expect(back.map((r) => r.criticScores)).toEqual(decoded.map((r) => r.criticScores));
    store.close();
    await engine.dispose(); // no critic from here on

    const stored = readStored(back);
    let nonZeroSweet = false;
    for (const [name, params] of CASES) {
      const recomputed = storedCredit(stored, [name], { [name]: params }).get(name)!;
      episodes.forEach((e, i) => {
        const got = lives[i].credit(name, params, e.turns)!;
        expect(got.source).toBe('critic');
        expect(Array.from(recomputed[i].perTurn)).toEqual(Array.from(got.result.perTurn));
        expect(recomputed[i].perToken && Array.from(recomputed[i].perToken!)).toEqual(got.result.perToken && Array.from(got.result.perToken));
        if (name === 'sweet') nonZeroSweet ||= got.result.perTurn.some((a) => a !== 0);
      });
      if (name !== 'gae') expect(recomputed.map((r) => r.perToken?.length)).toEqual(back.map((r) => r.criticScores!.tokens.length));
    }
    expect(nonZeroSweet).toBe(true);
  });

  it('refuses critic estimators for stored episodes without scores, and scores that do not fit the episode', async () => {
    const [e] = episodes;
    const plain = playedRecord(e, { id: 'p', runId: null, model: { policy: 'policy', adapter: null, critic: null }, collaborative: false, at: 1 });
    expect(() => storedCredit(readStored([plain]), ['gae'])).toThrow(/gae needs the critic's inputs/);
    const store = await openStore();
    await store.importRecords([plain], { source: 'test' });
    const T = e.turns.length;
    const scores = {
      version: 'critic',
      values: new Array<number>(T + 2).fill(0),
      tokenOffsets: new Array<number>(T + 2).fill(0),
      tokens: [],
      tokenText: [],
      tokenValues: null,
      criticLogprobs: [],
      refLogprobs: [],
    };
    await expect(store.putCriticScores('p', scores)).rejects.toThrow(`critic scores cover ${T + 1} turns but episode p has ${T}`);
    await expect(store.putCriticScores('p', { ...scores, values: [0] })).rejects.toThrow(/values has 1 entries, expected/);
    store.close();
  });
});
