// What one bad turn costs on a guess setting (issue #45 check (a)): from the states the shipped
// policy visits on held-out tasks, the rest of the episode is re-rolled M times after the expert's
// question and M times after a wasted question (one that cannot split the remaining candidates, or a
// repeated one where every unasked question splits them), the continuation played by the policy
// (and, for the structural cost, by the expert); the cost is the difference in win probability,
// averaged over states, with a 95% normal interval over states. The re-rolls use the counterfactual
// machinery's slots (rollout/counterfactual.ts: prefix replayed, environment reseeded, forced turn).
// Usage: npx tsx scripts/lesson-turn-cost.ts '{"candidates":8,"maxTurns":4,"pool":13}' [tasks 100] [m 8] [seed 1]
import { readState } from '../src/rl/envs/guess/agents.ts';
import { informationGain } from '../src/rl/envs/guess/logic.ts';
import { ATTRIBUTES } from '../src/rl/envs/guess/table.ts';
import { guessAgents } from '../src/rl/envs/guess/agents.ts';
import { parseGuessAction } from '../src/rl/envs/guess/env.ts';
import { dialogueOf } from '../src/rl/envs/episode.ts';
import { SCRIPTED } from '../src/rl/envs/turn.ts';
import type { JsonObject } from '../src/rl/envs/types.ts';
import { rerollSeed } from '../src/rl/rollout/counterfactual.ts';
import { batchAgent, openModels } from '../src/rl/rollout/node.ts';
import { rollout, runSlots, taskSpecs, type EpisodeSlot, type RolloutEpisode } from '../src/rl/rollout/rollout.ts';
import type { BatchAgent } from '../src/rl/rollout/agents.ts';

const options = JSON.parse(process.argv[2] ?? '{"candidates":8,"maxTurns":4}') as JsonObject;
const nTasks = Number(process.argv[3] ?? 100);
const m = Number(process.argv[4] ?? 8);
const seed = Number(process.argv[5] ?? 1);

interface State {
  episode: RolloutEpisode;
  t: number;
  expert: string;
  wasted: string;
}

/** The states where the expert asks a question, with the expert's question and a wasted one. */
function statesOf(episodes: readonly RolloutEpisode[]): State[] {
  const out: State[] = [];
  for (const e of episodes) {
    e.turns.forEach((_, t) => {
      const dialogue = dialogueOf(e.task.prompt, e.turns.slice(0, t));
      const { remaining, turnsLeft } = readState(dialogue);
      if (remaining.length < 2 || turnsLeft < 2) return;
      const expert = guessAgents.expert(dialogue);
      if (expert.startsWith('guess')) return;
      const asked = new Set(
        e.turns
          .slice(0, t)
          .map((x) => parseGuessAction(x.action))
          .flatMap((p) => (p.kind === 'question' ? [p.attribute] : [])),
      );
      let a = ATTRIBUTES.findIndex((_, j) => !asked.has(j) && informationGain(remaining, j) === 0);
      if (a < 0) a = [...asked][0] ?? -1;
      if (a < 0) return;
      out.push({ episode: e, t, expert, wasted: ATTRIBUTES[a].question });
    });
  }
  return out;
}

/** Win probability after each forced move, per state: [expert, wasted]. */
async function winRates(states: readonly State[], agent: BatchAgent): Promise<[number, number][]> {
  const slots: EpisodeSlot[] = [];
  for (const s of states) {
    for (const [kind, action] of [
      ['taken', s.expert],
      ['alt', s.wasted],
    ] as const) {
      for (let j = 0; j < m; j++) {
        const r = rerollSeed(seed, s.episode.task, s.t, j, kind);
        slots.push({ spec: s.episode.task.spec, seed: r, reseed: r, prefix: s.episode.turns.slice(0, s.t), forced: { action, agent: SCRIPTED } });
      }
    }
  }
  const played = await runSlots(slots, agent);
  return states.map((_, i) => {
    const win = (from: number) => played.slice(from, from + m).filter((p) => p.success).length / m;
    return [win(2 * m * i), win(2 * m * i + m)];
  });
}

function summary(rates: readonly [number, number][]): JsonObject {
  const d = rates.map(([a, b]) => a - b);
  const n = d.length;
  const mean = d.reduce((x, y) => x + y, 0) / n;
  const sd = Math.sqrt(d.reduce((x, y) => x + (y - mean) ** 2, 0) / Math.max(1, n - 1));
  const half = (1.96 * sd) / Math.sqrt(n);
  const avg = (k: 0 | 1) => rates.reduce((x, r) => x + r[k], 0) / n;
  return { states: n, winAfterExpert: avg(0), winAfterWasted: avg(1), cost: mean, ci95: [mean - half, mean + half] };
}

const started = performance.now();
const engine = await openModels({ root: 'public/models', backend: 'node', models: ['policy'] });
try {
  const tasks = taskSpecs('guess', 'test', nTasks, seed, options);
  const policy = await batchAgent('policy', 'guess', { engine, temperature: 1 });
  const played = (await rollout({ tasks, k: 1, seed }, policy)).episodes;
  const states = statesOf(played);
  const first = states.filter((s) => s.t === 0);
  const byPolicy = await winRates(states, await batchAgent('policy', 'guess', { engine, temperature: 1 }));
  const byExpert = await winRates(states, await batchAgent('expert', 'guess', {}));
  const pick = (rates: [number, number][]) => rates.filter((_, i) => states[i].t === 0);
  const out = {
    options,
    tasks: nTasks,
    m,
    seed,
    policyContinues: { allStates: summary(byPolicy), firstTurn: summary(pick(byPolicy)) },
    expertContinues: { allStates: summary(byExpert), firstTurn: summary(pick(byExpert)) },
    firstTurnStates: first.length,
    seconds: (performance.now() - started) / 1000,
  };
  console.log(JSON.stringify(out, null, 2));
} finally {
  await engine.dispose();
}
