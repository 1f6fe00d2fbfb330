// Scripted agents behind the common Agent interface (types.ts): the expert (acts from the visible
// dialogue like a good player), the noisy expert (the expert, but with probability `noise` a
// family-specific mistake instead; this is what the default model imitates) and the random agent
// (uniform over the family's action space). A learned policy implements the same Agent interface.
import { Rng } from '../util/rng.ts';
import type { Agent, AgentKind, Message } from './types.ts';

/** A family's scripted moves; each reads only the visible dialogue. */
export interface FamilyAgents {
  /** The expert's move. Deterministic. */
  expert(dialogue: readonly Message[]): string;
  /** The move a noisy expert makes instead of the expert's, with probability `noise`. */
  mistake(dialogue: readonly Message[], rng: Rng): string;
  /** A uniformly random move from the family's action space. */
  random(dialogue: readonly Message[], rng: Rng): string;
  /**
   * Whether no sequence of moves can win from the dialogue's last state (a sokoban box pushed where it
   * cannot reach the target); there the expert's move is a placeholder, not a lesson. Absent: never.
   */
  lost?(dialogue: readonly Message[]): boolean;
}

/** Settings for one agent instance. */
export interface AgentOptions {
  /** Seeds the agent's own randomness (use the episode's seed for replayable episodes). */
  seed: number;
  /** Noisy expert's mistake rate in [0, 1]. */
  noise: number;
}

export const DEFAULT_NOISE = 0.3;

/** The agent's display name, e.g. "noisy(0.3)". */
export function agentName(kind: AgentKind, noise: number): string {
  return kind === 'noisy' ? `noisy(${noise})` : kind;
}

/** Builds an agent over a family's scripted moves. */
export function scriptedAgent(moves: FamilyAgents, kind: AgentKind, opts: AgentOptions): Agent {
  const rng = new Rng(`agent/${kind}/${opts.seed}`);
  const name = agentName(kind, opts.noise);
  const move = (d: readonly Message[]): string => {
    if (kind === 'expert') return moves.expert(d);
    if (kind === 'random') return moves.random(d, rng);
    return rng.chance(opts.noise) ? moves.mistake(d, rng) : moves.expert(d);
  };
  return { name, act: async (dialogue) => move(dialogue) };
}

/** The newest environment/collaborator message. */
export function lastUser(dialogue: readonly Message[]): string {
  for (let i = dialogue.length - 1; i >= 0; i--) if (dialogue[i].role === 'user') return dialogue[i].content;
  return '';
}

/** The messages the agent has sent so far. */
export function agentMessages(dialogue: readonly Message[]): string[] {
  return dialogue.filter((m) => m.role === 'assistant').map((m) => m.content);
}
