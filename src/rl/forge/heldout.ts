// The forge's held-out check (issue #4 point 5): success on test-split tasks of each family for the
// shipped (4-bit) policy, sampled at temperature 1 and greedy, beside the scripted random, noisy and
// expert agents on the same tasks (src/rl/envs/evaluate.ts: task i uses seed `seed + i`).
import { createAgent } from '../envs/registry.ts';
import { evaluate } from '../envs/evaluate.ts';
import type { Agent } from '../envs/types.ts';
import type { LlamaRunner } from '../model/llama/runner.ts';
import type { Tokenizer } from '../model/tokenizer/tokenizer.ts';
import type { FamilyMix } from './config.ts';
import { SamplingAgent } from './sampler.ts';

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
  /** Task seeds are seed, seed + 1, …; sampling seeds follow the task seed. */
  seed: number;
  noise: number;
  contextTokens: number;
  maxReplyTokens: number;
  /** Skip the scripted agents (only the policy rows). */
  policyOnly?: boolean;
}

/** Plays every family with every agent; `log` gets one line per row. */
export async function heldOut(runner: LlamaRunner, tok: Tokenizer, o: HeldOutOptions, log: (line: string) => void): Promise<HeldOutRow[]> {
  const rows: HeldOutRow[] = [];
  const agents: HeldOutAgent[] = o.policyOnly ? ['policy-sampled', 'policy-greedy'] : ['random', 'noisy', 'expert', 'policy-sampled', 'policy-greedy'];
  for (const m of o.mix) {
    for (const a of agents) {
      const make = (seed: number): Agent => {
        if (a === 'policy-sampled' || a === 'policy-greedy') {
          return new SamplingAgent(runner, tok, { temperature: a === 'policy-sampled' ? 1 : 0, seed, maxReplyTokens: o.maxReplyTokens, contextTokens: o.contextTokens });
        }
        return createAgent(a, m.family, { seed, noise: o.noise });
      };
      const t0 = performance.now();
      const { summary } = await evaluate({ family: m.family, split: 'test', episodes: o.episodes, seed: o.seed, ...(m.options ? { options: m.options } : {}) }, make);
      const row: HeldOutRow = { family: m.family, agent: a, episodes: summary.episodes, successRate: summary.successRate, meanReward: summary.meanReward, meanTurns: summary.meanTurns };
      rows.push(row);
      log(`[forge eval] ${m.family} ${a}: success ${(100 * row.successRate).toFixed(1)}% of ${row.episodes}, reward ${row.meanReward.toFixed(3)}, turns ${row.meanTurns.toFixed(2)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    }
  }
  return rows;
}

/** A Markdown table of rows: one line per family, one column per agent (success %). */
export function heldOutTable(rows: readonly HeldOutRow[]): string {
  const agents: HeldOutAgent[] = ['random', 'noisy', 'expert', 'policy-sampled', 'policy-greedy'].filter((a) => rows.some((r) => r.agent === a)) as HeldOutAgent[];
  const fams = [...new Set(rows.map((r) => r.family))];
  const lines = [`| family (N) | ${agents.join(' | ')} |`, `| --- | ${agents.map(() => '---:').join(' | ')} |`];
  for (const f of fams) {
    const n = rows.find((r) => r.family === f)?.episodes ?? 0;
    lines.push(`| ${f} (${n}) | ${agents.map((a) => {
      const r = rows.find((x) => x.family === f && x.agent === a);
      return r ? `${(100 * r.successRate).toFixed(0)}%` : '';
    }).join(' | ')} |`);
  }
  return lines.join('\n');
}
