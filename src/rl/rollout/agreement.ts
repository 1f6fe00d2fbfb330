// Agreement with the scripted expert: on each of an episode's agent turns, what the family's expert
// (a function of the visible dialogue only, envs/agent.ts) would have sent from the same state, and
// whether the agent sent exactly that. The forge's DAgger rounds label states with it (forge/dagger.ts);
// `eval --agent policy` reports the share of agreeing turns, which says how far imitation got where
// success alone is too coarse (docs/experiments/2026-12-04-forge-six-h-long-games.md).
import { dialogueOf } from '../envs/episode.ts';
import { FAMILIES } from '../envs/registry.ts';
import type { Episode, Message } from '../envs/types.ts';

/** At each agent turn's state, the expert's move (`labels`) and whether the agent sent exactly it, up to surrounding whitespace (`agree`). */
export function judgeTurns(ep: Pick<Episode, 'task' | 'turns'>, expert: (dialogue: readonly Message[]) => string): { labels: string[]; agree: boolean[] } {
  const labels = ep.turns.map((_, t) => expert(dialogueOf(ep.task.prompt, ep.turns.slice(0, t))));
  return { labels, agree: ep.turns.map((turn, t) => turn.action.trim() === labels[t].trim()) };
}

/** Share of all agent turns, over the episodes, on which the family's expert would have moved the same way. */
export function expertAgreement(episodes: readonly Pick<Episode, 'task' | 'turns'>[]): number {
  let turns = 0;
  let agreed = 0;
  for (const ep of episodes) {
    const { agree } = judgeTurns(ep, FAMILIES[ep.task.spec.family].agents.expert);
    turns += agree.length;
    agreed += agree.filter(Boolean).length;
  }
  return turns ? agreed / turns : 0;
}
