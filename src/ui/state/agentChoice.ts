// Which agent plays a Play episode. The person picks one (the learned policy by default, issue 20);
// the policy plays only once its model is loaded, only tasks whose prompt fits its context (issue 18:
// rl/model/fit.ts, from its metadata) and only the families it was forged on (its metadata's
// `families`). Otherwise the noisy expert stands in, and the note says why, so the swap is never silent.
import type { AgentKind, TaskSpec } from '../../rl/envs/types.ts';
import type { LessonStart } from '../../rl/envs/family.ts';
import type { FamilyName } from '../../rl/envs/registry.ts';
import type { PolicyFit } from '../../rl/model/fit.ts';
import type { ForgedRecord } from '../../rl/model/meta.ts';
import { policyFitOf, type PromptCounter } from '../../rl/rollout/policyFit.ts';

/** Agent kinds the Play view offers: the learned policy or a scripted one. */
export type PlayAgentKind = AgentKind | 'policy';

/** The Play agent kind behind a stored episode's policy name (agents.ts names: expert, noisy(0.3), random, policy(T=1), student(T=1)…). */
export function agentKindOf(policy: string): PlayAgentKind | null {
  if (policy === 'expert' || policy === 'random') return policy;
  if (policy.startsWith('noisy')) return 'noisy';
  if (policy.startsWith('policy') || policy.startsWith('student')) return 'policy';
  return null;
}

/** Which policy model played a stored episode of the policy: the forge's student (a lesson's start) or the shipped policy. */
export function policyModelOf(policy: string): LessonStart {
  return policy.startsWith('student') ? 'student' : 'policy';
}

/**
 * A stored agent name in words for the tables: "policy(T=1)" says its sampling temperature, which
 * beside a task's "T = 4" (turns) read as a turn count, so the lab spells it out.
 */
export function storedAgentLabel(policy: string): string {
  const m = /^(policy|student)\((?:T=([\d.]+)|greedy)\)$/.exec(policy);
  if (!m) return policy;
  return m[2] === undefined ? `${m[1]} (greedy)` : `${m[1]} (temperature ${m[2]})`;
}

/**
 * What the policy managed on `family` when it was forged, said before it plays there: a family where
 * it rarely wins (the shipped policy: frontend 0%) should not surprise a person after the game.
 */
export function forgedNote(record: ForgedRecord | null, family: string): string | null {
  if (!record) return null;
  const pct = (x: number) => `${Math.round(100 * x)}%`;
  const greedy = record.greedy === null ? '' : ` (greedy ${pct(record.greedy)})`;
  const teacher = record.noisy === null ? '' : `; the noisy expert it learned from, ${pct(record.noisy)}`;
  return `When it was forged, this policy solved ${pct(record.sampled)} of ${record.episodes} held-out ${family} tasks${greedy}${teacher}.`;
}

/** What Play knows of the learned policy. */
export interface PolicyAvailability {
  /** Loaded in the policy worker and ready to generate. */
  ready: boolean;
  /** Still loading (or the engine still starting). */
  loading: boolean;
  /** The families it was forged on (model metadata); undefined: not recorded, assume any. */
  families?: readonly string[];
  /** Whether it can take the task at hand (rl/rollout/policyFit.ts); undefined or null: not checked yet. */
  fit?: PolicyFit | null;
}

/** The agent that will play, and why it is not the chosen one (null when it is). */
export interface AgentInUse {
  kind: PlayAgentKind;
  note: string | null;
}

/** The scripted agent that stands in for a policy that cannot play. */
export const STAND_IN: AgentKind = 'noisy';

/** The agent a new episode of `family` is played by when the person chose `chosen`. */
export function agentInUse(chosen: PlayAgentKind, policy: PolicyAvailability, family: FamilyName): AgentInUse {
  if (chosen !== 'policy') return { kind: chosen, note: null };
  if (!policy.ready) {
    const why = policy.loading ? 'The policy is still loading' : 'No policy model is loaded (see Settings → Models)';
    return { kind: STAND_IN, note: `${why} — the noisy expert plays instead.` };
  }
  if (policy.fit?.kind === 'too-long')
    return { kind: STAND_IN, note: `${sentence(policy.fit.reason)} — the noisy expert plays instead (or choose another agent).` };
  if (policy.families && !policy.families.includes(family)) {
    return { kind: STAND_IN, note: `The policy was trained on ${policy.families.join(', ')}, not ${family} — the noisy expert plays instead.` };
  }
  return { kind: 'policy', note: null };
}

/** How Play names the agent of an episode: "policy · base", "student · adapter <id>", "noisy expert"; `model`: which policy plays. */
export function agentLabel(kind: PlayAgentKind, adapter: string | null, model: LessonStart = 'policy'): string {
  if (kind === 'policy') return adapter === null ? `${model} · base` : `${model} · adapter ${adapter}`;
  return kind === 'noisy' ? 'noisy expert' : kind === 'expert' ? 'scripted expert' : 'random';
}

/** A reason as the start of a sentence. */
export function sentence(reason: string): string {
  return reason.charAt(0).toUpperCase() + reason.slice(1);
}

/** Whether the loaded policy can take the task (rl/rollout/policyFit.ts); null without a policy, or when the model went away mid-check. */
export async function policyFitFor(engine: PromptCounter | null, spec: TaskSpec): Promise<PolicyFit | null> {
  if (!engine) return null;
  try {
    return await policyFitOf(engine, [spec]);
  } catch {
    return null; // the agent note already says the policy is not loaded
  }
}
