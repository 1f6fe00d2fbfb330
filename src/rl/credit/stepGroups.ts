// Step-level advantages from anchor-state groups, in the spirit of GiGPO (Feng et al., "Group-in-Group
// Policy Optimization for LLM Agent Training", arXiv 2505.10978, §3.2–3.3). Within the K episodes of
// one task, the turns that acted in the same anchor state (the environment's state where the family
// reports one, else the visible history verbatim; the caller's key) form a step group; each turn's discounted return from
// that state on, G_t = Σ_{s≥t} γ^{s−t} r_s, is compared with its step group's:
//   A^S_t = G_t − mean_group G          (÷ std_group G with divideByStd, as GiGPO's default)
// A state only one episode reached, or whose group's returns are all equal, gets 0: nothing to
// compare. The algorithm adds ω·A^S_t to the episode-level advantage of turn t (GiGPO eq. 7), so two
// episodes that agree up to a turn and part there are credited by what they did at the parting turn,
// not only by how their whole episodes ended.

import { dialogueOf } from '../envs/episode.ts';
import { spreadOf } from './groupAdvantage.ts';
import { returnsToGo } from './turnReturns.ts';
import type { Turn } from '../envs/turn.ts';

/**
 * The key of the state turn t acted in: the environment's own description of it where the family
 * reports one (the previous turn's info.anchor: guess's remaining candidates, asked attributes and
 * turn count), else the visible history verbatim. GiGPO groups by environment state; with varied
 * phrasings two identical states rarely read the same ("Yes." / "Yes, it is."), so the text alone
 * would leave most later turns ungrouped.
 */
export function anchorState(prompt: string, turns: readonly Pick<Turn, 'action' | 'observation' | 'info'>[], t: number): string {
  const before = t > 0 ? turns[t - 1].info.anchor : undefined;
  return typeof before === 'string' ? `anchor:${before}` : JSON.stringify(dialogueOf(prompt, turns.slice(0, t)));
}

/** One turn as the step groups see it: a key of the state it acted in and its reward. */
export interface StepTurn {
  state: string;
  reward: number;
}

export interface StepGroupOptions {
  /** Discount of the return from a state on (GiGPO: γ). */
  gamma: number;
  /** Divide by the step group's (unbiased) standard deviation. */
  divideByStd: boolean;
}

/**
 * A^S per turn of each episode of one task group, and how many turns shared their state with at
 * least one other episode (the turns step credit can tell apart).
 */
export function stepGroupAdvantages(episodes: readonly (readonly StepTurn[])[], opts: StepGroupOptions): { advantages: number[][]; grouped: number } {
  const returns = episodes.map((turns) =>
    returnsToGo(
      turns.map((t) => t.reward),
      opts.gamma,
    ),
  );
  const groups = new Map<string, [number, number][]>();
  episodes.forEach((turns, i) =>
    turns.forEach((turn, t) => {
      const members = groups.get(turn.state) ?? [];
      members.push([i, t]);
      groups.set(turn.state, members);
    }),
  );
  const advantages = episodes.map((turns) => new Array<number>(turns.length).fill(0));
  let grouped = 0;
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    grouped += members.length;
    const g = members.map(([i, t]) => returns[i][t]);
    const s = spreadOf(g);
    if (!s) continue;
    members.forEach(([i, t], j) => (advantages[i][t] = opts.divideByStd ? (g[j] - s.mean) / s.std : g[j] - s.mean));
  }
  return { advantages, grouped };
}
