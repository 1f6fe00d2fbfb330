// The one environment interface every task family implements (docs/design.md "Task families"):
// ColBench's collaborative tasks (SWEET-RL, arXiv 2503.15478: backend, frontend), twenty questions
// (ArCHer's `guess`) and RAGEN's single-agent games (arXiv 2504.20073: bandit, frozenlake, sokoban).
//
// Everything that crosses this interface is plain JSON (no classes, no typed arrays, no undefined),
// so tasks, steps and whole episodes go to IndexedDB, workers and exports unchanged.
//
// A step has two phases so that a person can stand in for the simulated collaborator:
//   env.beginStep(agentMessage) → { kind: 'done', result }            (no collaborator involved), or
//                               → { kind: 'reply', request }          (a reply is needed);
//   env.completeStep(replyText) → the StepResult.
// `request.suggestion` is what the simulated collaborator would say; the UI may show the request
// (with the hidden information) to a person and pass their text to completeStep instead.
// `env.step(msg)` is the shortcut that always uses the simulated reply.

import type { Turn } from './turn.ts';

import type { JsonObject, JsonValue } from '../util/json.ts';
export type { JsonObject, JsonValue } from '../util/json.ts';

// A family's name is a key of the registry (registry.ts FAMILIES). Only the type comes from there, so
// the cycle registry → family specs → environments → types.ts → registry exists for the type checker
// alone, never at run time (types.ts loads nothing of the registry).
import type { FamilyName } from './registry.ts';

/** Held-out evaluation uses 'test'; the two never share an episode (see split.ts). */
export type Split = 'train' | 'test';

/** Everything needed to reproduce one episode's task. */
export interface TaskSpec {
  /** Which family. */
  family: FamilyName;
  /** Which split the task is drawn from. */
  split: Split;
  /** Any integer; with family and split it fixes the task, the collaborator's phrasing and the environment's randomness. */
  seed: number;
  /** Overrides of the family's default options (FAMILIES[family].defaults), e.g. {candidates: 8}. */
  options?: JsonObject;
  /**
   * Varies the environment's and the simulated collaborator's randomness (slips, payouts, phrasings,
   * noise) without changing the task; default 0. Use different streams for the K independent
   * episodes of Pass@(K,T) or for counterfactual re-rolls of one task.
   */
  stream?: number;
}

/** One chat message; a dialogue starts with the task prompt as 'user'. */
export interface Message {
  role: 'user' | 'assistant';
  content: string;
}

/** What reset returns: the task as the agent, the collaborator and the critic see it. */
export interface Task {
  /** The spec it came from, with options completed from the family defaults. */
  spec: TaskSpec;
  /** The agent's opening prompt (the only thing a policy sees before its first move). */
  prompt: string;
  /** Training-time information: what the collaborator and an asymmetric critic may see, never the policy. */
  hidden: JsonObject;
  /** The turn limit T: at most this many agent messages. */
  maxTurns: number;
  /** Canonical identity of the episode content; train and test never share a key. */
  key: string;
}

/** Why a step ended as it did (machine-readable; info.reason). */
export type StepReason =
  | 'question' // the agent asked and the collaborator answered
  | 'proposal' // frontend: a draft was shown and commented on
  | 'answer' // a final answer was scored
  | 'move' // a game action was applied
  | 'invalid-format' // the message could not be parsed as any action
  | 'too-long' // the message exceeded the family's size limit
  | 'unsafe' // the message contained forbidden content (scripts, handlers, URLs)
  | 'code-error' // backend: the code failed to parse or run
  | 'turn-limit' // T messages were used without a final answer
  | 'solved' // goal reached
  | 'failed'; // terminal failure (hole, wrong guess)

/** Per-step facts. Family-specific fields sit beside the common ones (e.g. informationGain, testsPassed, similarity). */
export interface StepInfo {
  [key: string]: JsonValue;
  reason: StepReason;
  /** True when the message was not a well-formed action (RAGEN's format penalty applies). */
  invalidFormat: boolean;
  /** True only on the final step of a solved episode. */
  success: boolean;
}

/** The outcome of one agent message. */
export interface StepResult {
  /** What the agent sees next (collaborator reply and/or environment text). */
  observation: string;
  /** Per-turn reward. */
  reward: number;
  /** True when the episode is over. */
  done: boolean;
  info: StepInfo;
}

/** What a collaborator (simulated or a person) is asked to reply to. */
export interface CollaboratorRequest {
  family: FamilyName;
  /** 1-based index of the agent message being answered. */
  turn: number;
  agentMessage: string;
  /** The environment's reading of the message, e.g. {kind: 'question', attribute: 'fur'}. */
  parsed: JsonObject;
  /** The hidden information the reply must come from. */
  hidden: JsonObject;
  /** The simulated collaborator's reply (deterministic from the task seed and the turn). */
  suggestion: string;
}

/** The first phase of a step. */
export type PendingStep = { kind: 'done'; result: StepResult } | { kind: 'reply'; request: CollaboratorRequest };

/**
 * Supplies the collaborator's reply. The simulated one returns `request.suggestion`; the UI passes
 * a function that resolves when the person has typed their answer, or with null when they let the
 * simulator answer (the turn then records the suggestion as a simulated reply).
 */
export type Collaborator = (request: CollaboratorRequest) => string | null | Promise<string | null>;

/** One task family's environment; one instance runs one episode at a time. */
export interface Env {
  readonly family: FamilyName;
  /** Starts an episode. Throws EnvError on a spec for another family or bad options. */
  reset(spec: TaskSpec): Task;
  /** Phase 1 of a step: parse the agent's message; either finish the step or ask for a reply. */
  beginStep(agentMessage: string): PendingStep;
  /** Phase 2: the collaborator's reply (a person's text, or request.suggestion). */
  completeStep(reply: string): StepResult;
  /** Both phases with the simulated collaborator's reply. */
  step(agentMessage: string): StepResult;
  /** Agent messages taken so far in this episode. */
  readonly turn: number;
  /** True once the episode has ended. */
  readonly done: boolean;
}

/**
 * One turn of a recorded episode: the one Turn of envs/turn.ts (agent message, reply, reward, step
 * info and the agent side's tokens and counts), inferred from its valibot schema.
 */
export type EpisodeTurn = Turn;

/** A whole episode as plain JSON; replayEpisode() reproduces it from task.spec and the actions. */
export interface Episode {
  task: Task;
  /** Agent name (e.g. "expert", "noisy(0.3)", "random", "policy"). */
  agent: string;
  turns: EpisodeTurn[];
  totalReward: number;
  success: boolean;
}

/** Agents see only the visible dialogue: the prompt and every message since. */
export interface Agent {
  readonly name: string;
  /** The next message, given the dialogue so far (starts with the prompt; the last message is 'user'). */
  act(dialogue: readonly Message[]): Promise<string>;
}

export type AgentKind = 'expert' | 'noisy' | 'random';

/** Bad specs or options, or steps out of order. */
export class EnvError extends Error {
  override name = 'EnvError';
}
