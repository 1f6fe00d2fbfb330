// The forge's held-out check (issue #4 point 5): success on test-split tasks of each family for the
// shipped (4-bit) policy, sampled at temperature 1 and greedy, beside the scripted random, noisy and
// expert agents on the same tasks. A thin caller of the one evaluation path (rollout/evaluate.ts:
// the batched rollout loop, task i with seed `seed + i`); the policy plays on an engine the forge
// loaded its fresh weights into. The figures go into the report and config.json's turnwise.heldOut;
// they never touch the weights. A family whose prompts do not fit the policy's context (the engine
// refuses them with PromptTooLongError rather than truncate) gets no policy rows, and a log line.
import type { AgentKind } from '../envs/types.ts';
import { familyAgent } from '../rollout/agents.ts';
import { evaluate, evaluatePolicy, type EvalConfig, type EvalSummary, type PolicyModeResult } from '../rollout/evaluate.ts';
import type { GenerateApi } from '../runtime/engine/types.ts';
import type { FamilyMix } from './config.ts';

/** Who played. */
export type HeldOutAgent = 'random' | 'noisy' | 'expert' | 'policy-sampled' | 'policy-greedy';

/** One family × agent figure. */
export interface HeldOutRow {
  family: string;
  agent: HeldOutAgent;
  episodes: number;
  successRate: number;
  meanReward: number;
  meanTurns: number;
}

/** What to measure. */
export interface HeldOutOptions {
  mix: readonly FamilyMix[];
  episodes: number;
  /** Task seeds are seed, seed + 1, …; episode seeds follow (rollout.ts episodeSeed). */
  seed: number;
  noise: number;
  maxReplyTokens: number;
}

const SCRIPTED: readonly AgentKind[] = ['random', 'noisy', 'expert'];

/** Plays every family with every agent (engine: the policy loaded as 'policy'); `log` gets one line per row. */
export async function heldOut(engine: GenerateApi, o: HeldOutOptions, log: (line: string) => void): Promise<HeldOutRow[]> {
  const rows: HeldOutRow[] = [];
  const add = (family: string, agent: HeldOutAgent, s: EvalSummary, t0: number) => {
    const row: HeldOutRow = { family, agent, episodes: s.episodes, successRate: s.successRate, meanReward: s.meanReward, meanTurns: s.meanTurns };
    rows.push(row);
    log(
      `[forge eval] ${family} ${agent}: success ${(100 * row.successRate).toFixed(1)}% of ${row.episodes}, reward ${row.meanReward.toFixed(3)}, turns ${row.meanTurns.toFixed(2)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
  };
  for (const m of o.mix) {
    const config: EvalConfig = { family: m.family, split: 'test', episodes: o.episodes, seed: o.seed, ...(m.options ? { options: m.options } : {}) };
    for (const kind of SCRIPTED) {
      const t0 = performance.now();
      add(m.family, kind, (await evaluate(config, familyAgent(kind, m.family, o.noise))).summary, t0);
    }
    for (const mode of ['sampled', 'greedy'] as const) {
      const t0 = performance.now();
      try {
        const r = await evaluatePolicy(engine, config, { adapter: null, maxNewTokens: o.maxReplyTokens, modes: [mode] });
        add(m.family, `policy-${mode}`, (r[mode] as PolicyModeResult).summary, t0);
      } catch (e) {
        if ((e as Error).name !== 'PromptTooLongError') throw e;
        log(`[forge eval] ${m.family} policy-${mode}: not measured, ${(e as Error).message}`);
      }
    }
  }
  return rows;
}

/** A Markdown table of rows: one line per family, one column per agent (success %). */
export function heldOutTable(rows: readonly HeldOutRow[]): string {
  const agents: HeldOutAgent[] = ['random', 'noisy', 'expert', 'policy-sampled', 'policy-greedy'].filter((a) =>
    rows.some((r) => r.agent === a),
  ) as HeldOutAgent[];
  const fams = [...new Set(rows.map((r) => r.family))];
  const lines = [`| family (N) | ${agents.join(' | ')} |`, `| --- | ${agents.map(() => '---:').join(' | ')} |`];
  for (const f of fams) {
    const n = rows.find((r) => r.family === f)?.episodes ?? 0;
    lines.push(
      `| ${f} (${n}) | ${agents
        .map((a) => {
          const r = rows.find((x) => x.family === f && x.agent === a);
          return r ? `${(100 * r.successRate).toFixed(0)}%` : '';
        })
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}
