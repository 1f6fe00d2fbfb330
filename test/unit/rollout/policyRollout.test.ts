// The policy in the rollout loop, on a tiny random model written as a real model folder:
// batched rollout (one generate call per step) == one episode at a time through PolicyAgent with
// the same seeds and streams; critic inputs have the estimators' shapes, the live (one turn) form
// equals the batch form, and live incremental credit equals batch credit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { PolicyAgent, type PolicyTurn } from '../../../src/rl/runtime/policyAgent.ts';
import { PolicyBatchAgent } from '../../../src/rl/rollout/agents.ts';
import { rollout, taskSpecs, type RolloutResult } from '../../../src/rl/rollout/rollout.ts';
import { criticInputs, latestTurnInput } from '../../../src/rl/rollout/criticInputs.ts';
import { counterfactualTruth } from '../../../src/rl/rollout/counterfactual.ts';
import { computeCredit, createIncremental } from '../../../src/rl/credit/registry.ts';
import { createEnv } from '../../../src/rl/envs/registry.ts';
import type { EpisodeTurn, Message } from '../../../src/rl/envs/types.ts';
import type { AgentSide } from '../../../src/rl/store/turn.ts';
import { tinyModels } from '../engine/fixtures.ts';

const engine = new PolicyEngine();
const sampling = { maxNewTokens: 8 };
let result: RolloutResult;
let calls = 0;

beforeAll(async () => {
  const m = await tinyModels(6, 512);
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
        expect(x.action.length).toBeGreaterThanOrEqual(0);
      });
    }
  });

  it('equals PolicyAgent playing each episode alone with the same seed and stream', async () => {
    for (const e of result.episodes) {
      const turns: PolicyTurn[] = [];
      const agent = await PolicyAgent.create(engine, { seed: e.seed, sampling, onTurn: (t) => turns.push(t) });
      // runEpisode's loop, stopped at the rollout's turn limit
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
      // the reference (policy, adapter off) re-scores exactly what was sampled
      expect(inp.refLogprobs?.[0]).toBeCloseTo(e.turns[0].logprobs?.[0] ?? NaN, 4);
    });
    for (const name of ['mc', 'gae', 'bilevel-gae', 'sweet', 'grpo'] as const) {
      const out = computeCredit(name, inputs.map((x, i) => ({ ...x, group: String(Math.floor(i / 2)) })));
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
      expect(live.turn.reward).toBe(e.turns[t - 1].reward);
      gaeLive.push(live.turn);
      sweet.push(live.turn);
    }
    const batchGae = computeCredit('gae', [inputs[i]])[0].perTurn;
    const batchSweet = computeCredit('sweet', [inputs[i]])[0].perTurn;
    Array.from(gaeLive.result().perTurn).forEach((v, t) => expect(v).toBeCloseTo(batchGae[t], 4));
    Array.from(sweet.result().perTurn).forEach((v, t) => expect(v).toBeCloseTo(batchSweet[t], 4));
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
