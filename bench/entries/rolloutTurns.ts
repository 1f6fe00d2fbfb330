// Per-turn KV reuse in rollouts (part of `npx turnwise bench rollout`): the time of an agent turn
// (one batched generate call over the live episodes) at turn 1 and at turn 4 of guess, K = 8
// episodes of one task at a time, with the shipped policy and the task options it was forged on
// (4 candidates, T = 4), once reusing each episode's KV cache across its turns
// (PolicyBatchAgent reuseKv, GenerateRequest.cacheKeys) and once prefilling every prompt whole.
// The two run interleaved, task by task, so load on the shared machine hits both alike. The engine
// is wrapped to record each call's rows, prompt tokens, reused tokens and prefill time; call i of a
// rollout is turn i + 1 of every episode still live (episodes that succeed end early, so later turns
// have fewer rows: their count is reported beside the time).
import type { BenchRow } from '../harness.ts';
import type { GenerateApi, GenerateRequest } from '../../src/rl/runtime/engine/types.ts';
import type { PolicyEngine } from '../../src/rl/runtime/policyEngine.ts';
import { taskOptions } from '../../src/rl/model/meta.ts';
import { PolicyBatchAgent } from '../../src/rl/rollout/agents.ts';
import { rollout, taskSpecs } from '../../src/rl/rollout/rollout.ts';

const K = 8;
/** Tasks played one after another (each K episodes), per mode. */
const TASKS = 12;
const TURNS = [1, 4];

interface Call {
  rows: number;
  ms: number;
  prefillMs: number;
  promptTokens: number;
  reusedTokens: number;
}

/** An engine that records every generate call of the current rollout. */
function recording(engine: PolicyEngine): GenerateApi & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    models: () => engine.models(),
    async generate(req: GenerateRequest) {
      const t = performance.now();
      const r = await engine.generate(req);
      const g = r.generations;
      calls.push({
        rows: g.length,
        ms: performance.now() - t,
        prefillMs: r.timing.prefillMs,
        promptTokens: g.reduce((a, x) => a + x.promptTokens, 0),
        reusedTokens: g.reduce((a, x) => a + (x.reusedTokens ?? 0), 0),
      });
      return r;
    },
  };
}

export async function kvReuseTurns(engine: PolicyEngine, backend: string, log: (line: string) => void): Promise<BenchRow[]> {
  const options = taskOptions(engine.loadedModel('policy').turnwise, 'guess');
  const modes = [
    { name: 'KV reuse', reuseKv: true },
    { name: 'no reuse', reuseKv: false },
  ];
  const rec = modes.map(() => recording(engine));
  const agents = await Promise.all(modes.map((m, i) => PolicyBatchAgent.create(rec[i], { reuseKv: m.reuseKv })));
  // per mode, per turn (1-based): the calls at that turn
  const byTurn = modes.map(() => new Map<number, Call[]>());
  for (let task = -1; task < TASKS; task++) {
    for (let i = 0; i < modes.length; i++) {
      rec[i].calls.length = 0;
      await rollout({ tasks: taskSpecs('guess', 'test', 1, 20_000 + task, options), k: K, seed: 3 }, agents[i]);
      if (task < 0) continue; // warm-up
      rec[i].calls.forEach((c, t) => {
        const list = byTurn[i].get(t + 1) ?? [];
        list.push(c);
        byTurn[i].set(t + 1, list);
      });
    }
  }
  const rows: BenchRow[] = [];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const perTurn: number[][] = modes.map(() => []);
  modes.forEach((m, i) => {
    for (const turn of TURNS) {
      const calls = byTurn[i].get(turn) ?? [];
      const ms = mean(calls.map((c) => c.ms));
      perTurn[i].push(ms);
      const c = `guess turn ${turn}, K=${K} episodes, ${m.name}, ${backend}`;
      const note = `${calls.length} tasks; mean ${mean(calls.map((x) => x.rows)).toFixed(1)} live episodes per call; prompt ${mean(calls.map((x) => x.promptTokens / x.rows)).toFixed(0)} tokens/episode, ${mean(calls.map((x) => x.reusedTokens / x.rows)).toFixed(0)} reused; prefill ${mean(calls.map((x) => x.prefillMs)).toFixed(1)} ms`;
      rows.push({ case: c, metric: 'ms per agent turn', value: ms, unit: 'ms', note });
      log(`rollout ${c}: ${ms.toFixed(1)} ms per agent turn (${note})`);
    }
    rows.push({ case: `guess turn 4 ÷ turn 1, ${m.name}, ${backend}`, metric: 'ratio', value: perTurn[i][1] / perTurn[i][0], unit: '×' });
  });
  rows.push({ case: `guess turn 4, no reuse ÷ KV reuse, ${backend}`, metric: 'ratio', value: perTurn[1][1] / perTurn[0][1], unit: '×' });
  log(
    `rollout guess turn 4 ÷ turn 1: ${(perTurn[0][1] / perTurn[0][0]).toFixed(2)} with KV reuse, ${(perTurn[1][1] / perTurn[1][0]).toFixed(2)} without (${backend})`,
  );
  return rows;
}
