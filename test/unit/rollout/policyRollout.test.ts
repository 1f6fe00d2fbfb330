// The policy in the rollout loop, on a tiny random model written as a real model folder:
// batched rollout (one generate call per step) == one episode at a time through PolicyAgent with
// the same seeds and streams; critic inputs have the estimators' shapes, the live (one turn) form
// equals the batch form, live incremental credit equals batch credit, and the SWEET-RL credit is
// the advantage the trainer ranks candidates with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { PolicyAgent, type PolicyTurn } from '../engine/oracleAgent.ts';
import { PolicyBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { rollout, taskSpecs, type RolloutResult } from '../../../src/rl/rollout/rollout.ts';
import { criticInputs, latestTurnInput, type ScoreApi } from '../../../src/rl/rollout/criticInputs.ts';
import { LiveEpisodeCredit } from '../../../src/rl/rollout/liveCredit.ts';
import type { CreditParams } from '../../../src/rl/credit/types.ts';
import { counterfactualTruth } from '../../../src/rl/rollout/counterfactual.ts';
import { computeCredit, createIncremental } from '../../../src/rl/credit/registry.ts';
import { createEnv } from '../../../src/rl/envs/registry.ts';
import type { EpisodeTurn, Message } from '../../../src/rl/envs/types.ts';
import { tinyModels, type TinyModel } from '../engine/fixtures.ts';
import { sweetTurnAdvantage } from '../../../src/rl/credit/sweetAdvantage.ts';
import { dialogueOf } from '../../../src/rl/envs/episode.ts';
import { toChat, windowIds } from '../../../src/rl/model/tokenizer/dialogue.ts';
import { initLora, loraParams, type LoraSpec } from '../../../src/rl/model/llama/weights.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import type { AgentSide } from '../../../src/rl/envs/turn.ts';

const engine = new PolicyEngine();
let m: TinyModel;
const sampling = { maxNewTokens: 8 };
let result: RolloutResult;
let calls = 0;

beforeAll(async () => {
  m = await tinyModels(6, 512);
  await engine.init('wasm');
  await engine.load('policy', { kind: 'files', files: m.files });
  await engine.load('critic', { kind: 'files', files: m.files, name: 'critic' });
  const agent = await PolicyBatchAgent.create(engine, { sampling });
  const tasks = [...taskSpecs('bandit', 'test', 2, 1), ...taskSpecs('frozenlake', 'test', 2, 1)];
  result = await rollout({ tasks, k: 2, seed: 5, turnLimit: 3 }, agent);
  calls = agent.calls;
});
afterAll(() => engine.dispose());

describe('policy rollout', () => {
  it('batches each step into one generate call', () => {
    const steps = Math.max(...result.episodes.map((e) => e.turns.length));
    expect(calls).toBe(steps);
    for (const e of result.episodes) {
      e.turns.forEach((x) => {
        expect(x.backend).toBe('wasm');
        expect(x.tokens?.length).toBe(x.completionTokens);
        expect(x.logprobs?.length).toBe(x.completionTokens);
        expect(x.promptTokens).toBeGreaterThan(0);
        // the action is the reply's text: its tokens decoded, without the <|end|> that closed it
        expect(x.action).toBe(m.tok.decode((x.tokens ?? []).filter((id) => id !== m.tok.special.end)));
      });
    }
  });

  it('equals PolicyAgent playing each episode alone with the same seed and stream', async () => {
    for (const e of result.episodes) {
      const turns: PolicyTurn[] = [];
      const agent = await PolicyAgent.create(engine, { seed: e.seed, sampling, onTurn: (t) => turns.push(t) });
      // a plain one-episode loop, stopped at the rollout's turn limit
      const env = createEnv(e.task.spec.family);
      const dialogue: Message[] = [{ role: 'user', content: env.reset(e.task.spec).prompt }];
      const alone: Omit<EpisodeTurn, keyof AgentSide>[] = [];
      while (!env.done && alone.length < 3) {
        const action = await agent.act(dialogue);
        const step = env.step(action);
        alone.push({ action, reply: null, replySource: null, ...step });
        dialogue.push({ role: 'assistant', content: action }, { role: 'user', content: step.observation });
      }
      expect(e.turns.map(({ tokens: _t, logprobs: _l, promptTokens: _p, completionTokens: _c, latencyMs: _ms, backend: _b, ...env }) => env)).toEqual(alone);
      turns.forEach((t, i) => {
        expect(Array.from(e.turns[i].tokens ?? [])).toEqual(t.generation.tokenIds);
        expect(e.turns[i].promptTokens).toBe(t.generation.promptTokens);
      });
    }
  });

  it('gives critic inputs of the estimators’ shapes; live one-turn inputs equal the batch ones', async () => {
    const eps = result.episodes.map((e) => ({ task: e.task, turns: e.turns, tokens: e.turns.map((t) => t.tokens) }));
    const inputs = await criticInputs(engine, eps);
    inputs.forEach((inp, i) => {
      const e = result.episodes[i];
      const T = e.turns.length;
      expect(inp.rewards.length).toBe(T);
      expect(inp.values?.length).toBe(T + 1);
      expect(inp.tokenOffsets?.[T]).toBe(e.turns.reduce((a, x) => a + (x.tokens?.length ?? 0), 0));
      expect(inp.criticLogprobs?.length).toBe(inp.tokenOffsets?.[T]);
      for (const arr of [inp.values, inp.criticLogprobs, inp.refLogprobs, inp.tokenValues]) expect(Array.from(arr ?? []).every(Number.isFinite)).toBe(true);
      // the reference is the critic's base on the same items: with no critic adapter they coincide
      expect(Array.from(inp.refLogprobs ?? [])).toEqual(Array.from(inp.criticLogprobs ?? []));
    });
    for (const name of ['mc', 'gae', 'bilevel-gae', 'sweet', 'grpo'] as const) {
      const out = computeCredit(
        name,
        inputs.map((x, i) => ({ ...x, group: String(Math.floor(i / 2)) })),
      );
      for (const r of out) expect(Array.from(r.perTurn).every(Number.isFinite)).toBe(true);
    }
    // live: push each turn as it lands; equals the batch GAE and SWEET on the whole episode
    const e = result.episodes.find((x) => x.turns.length >= 2) ?? result.episodes[0];
    const i = result.episodes.indexOf(e);
    const sweet = createIncremental('sweet');
    let gaeLive = createIncremental('gae');
    for (let t = 1; t <= e.turns.length; t++) {
      const live = await latestTurnInput(engine, { task: e.task, turns: e.turns.slice(0, t), tokens: eps[i].tokens });
      if (t === 1) {
        expect(live.initialValue).toBeCloseTo(inputs[i].values?.[0] ?? NaN, 4);
        gaeLive = createIncremental('gae', {}, { initialValue: live.initialValue });
      }
      expect(live.turn.reward).toBe(Math.fround(e.turns[t - 1].reward)); // float32, as stored credit inputs hold it
      gaeLive.push(live.turn);
      sweet.push(live.turn);
    }
    const batchGae = computeCredit('gae', [inputs[i]])[0].perTurn;
    const batchSweet = computeCredit('sweet', [inputs[i]])[0].perTurn;
    Array.from(gaeLive.result().perTurn).forEach((v, t) => expect(v).toBeCloseTo(batchGae[t], 4));
    Array.from(sweet.result().perTurn).forEach((v, t) => expect(v).toBeCloseTo(batchSweet[t], 4));
  });

  it('live credit scores each landed turn once, and equals batch credit on every prefix; a moved slider scores nothing', async () => {
    const e = result.episodes.reduce((a, b) => (b.turns.length > a.turns.length ? b : a));
    const tokens = e.turns.map((t) => t.tokens);
    const items: number[] = [];
    const counting: ScoreApi = {
      score: (r) => (items.push(r.items.length), engine.score(r)),
      encode: (p, m) => engine.encode(p, m),
      models: () => engine.models(),
    };
    const live = new LiveEpisodeCredit();
    const PARAMS = { mc: { gamma: 0.9 }, gae: { gamma: 0.9, lambda: 0.7 }, 'bilevel-gae': { turnGamma: 0.8 }, sweet: { beta: 0.5 } } as const;
    for (let t = 1; t <= e.turns.length; t++) {
      const turns = e.turns.slice(0, t);
      items.length = 0;
      await live.score(counting, { task: e.task, turns, tokens });
      expect(items).toEqual([2, 1, 1]); // V(s_{t−1}), V(s_t); π_critic; π_ref — of the new turn only
      const [batch] = await criticInputs(engine, [{ task: e.task, turns, tokens: tokens.slice(0, t) }]);
      for (const [name, params] of Object.entries(PARAMS) as [keyof typeof PARAMS, CreditParams][]) {
        const got = live.credit(name, params, turns);
        expect(got?.source).toBe('critic');
        Array.from(computeCredit(name, [batch], params)[0].perTurn).forEach((v, k) => expect(got!.result.perTurn[k]).toBeCloseTo(v, 4));
      }
    }
    items.length = 0;
    const moved = live.credit('gae', { gamma: 0.5, lambda: 0.2 }, e.turns);
    expect(items).toEqual([]);
    const [full] = await criticInputs(engine, [{ task: e.task, turns: e.turns, tokens }]);
    Array.from(computeCredit('gae', [full], { gamma: 0.5, lambda: 0.2 })[0].perTurn).forEach((v, k) => expect(moved!.result.perTurn[k]).toBeCloseTo(v, 4));
  });

  it('gives the SWEET-RL advantage the trainer ranks with: critic adapter vs its base, both seeing the hidden information', async () => {
    const spec: LoraSpec = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] };
    const w = initLora(m.cfg, spec, 7, 0.3);
    const rng = new Rng(7);
    for (const p of loraParams(m.cfg, spec)) w[p.b.name] = w[p.b.name].map(() => rng.normal() * 0.3);
    await engine.setAdapter('sweet-critic', { spec, weights: w }, { model: 'critic', activate: false });
    const e = result.episodes.find((x) => x.turns.length >= 2) ?? result.episodes[0];
    const tokens = e.turns.map((t) => t.tokens);
    const [input] = await criticInputs(engine, [{ task: e.task, turns: e.turns, tokens }], { criticAdapter: 'sweet-critic' });
    const credit = computeCredit('sweet', [input], { beta: 0.1 })[0].perTurn;
    expect(credit.some((a) => a !== 0)).toBe(true);
    // as algos/sweet.ts criticAdvantages scores a reply: ctx.criticPrompt ids, adapter vs null
    for (let t = 0; t < e.turns.length; t++) {
      const ids = Array.from(tokens[t] ?? []);
      const context = { ids: windowIds(m.tok, toChat(dialogueOf(e.task.prompt, e.turns.slice(0, t)), e.task.hidden), 512, ids.length) };
      const [crit, ref] = await Promise.all([
        engine.score({ model: 'critic', adapter: 'sweet-critic', items: [{ context, continuation: ids }] }),
        engine.score({ model: 'critic', adapter: null, items: [{ context, continuation: ids }] }),
      ]);
      expect(credit[t]).toBeCloseTo(sweetTurnAdvantage(crit.items[0].logprobs, ref.items[0].logprobs, 0.1), 5);
    }
  });

  it('re-rolls counterfactuals with the policy, reproducibly', async () => {
    const eps = [result.episodes[0], result.episodes[4]];
    const agent = await PolicyBatchAgent.create(engine, { sampling });
    const a = await counterfactualTruth(eps, agent, { m: 2, seed: 3, turnLimit: 3 });
    const b = await counterfactualTruth(eps, await PolicyBatchAgent.create(engine, { sampling }), { m: 2, seed: 3, turnLimit: 3 });
    expect(b).toEqual(a);
    expect(a.map((x) => x.perTurn.length)).toEqual(eps.map((e) => e.turns.length));
  });
});
