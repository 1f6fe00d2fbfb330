// The pieces the one agent loop (src/rl/rollout/rollout.ts) is built from, and the replay check:
// beginTurn is the one environment step (an agent message through both phases), playTurn its form
// with a live collaborator, replayEpisode and the rollout's prefix replay its forms with recorded
// replies. dialogueOf is the one place a dialogue is built from turns (pushTurn grows one in place).
// replayEpisode re-runs the recorded actions (and person replies) from the task seed; equality with
// the recording is the determinism check. Envs sit below rollout, so no agent loop lives here.
import { agentSideOf, SCRIPTED, type AgentSide, type Turn } from './turn.ts';
import type { Collaborator, CollaboratorRequest, Env, Episode, Message } from './types.ts';

/** The dialogue the agent sees after the given turns: the prompt, then each message and what followed it. */
export function dialogueOf(prompt: string, turns: readonly Pick<Turn, 'action' | 'observation'>[]): Message[] {
  const out: Message[] = [{ role: 'user', content: prompt }];
  for (const t of turns) pushTurn(out, t);
  return out;
}

/** Appends one turn to a dialogue in place (loops that grow a dialogue turn by turn). */
export function pushTurn(dialogue: Message[], turn: Pick<Turn, 'action' | 'observation'>): void {
  dialogue.push({ role: 'assistant', content: turn.action }, { role: 'user', content: turn.observation });
}

/** A step begun by beginTurn: finished already, or waiting for the collaborator's reply. */
export type TurnStep = { turn: Turn } | { request: CollaboratorRequest; complete: (reply: string | null, source: NonNullable<Turn['replySource']>) => Turn };

/**
 * The one environment step: an agent message through both phases. Either the step is done (no
 * collaborator involved) or `complete` takes the collaborator's reply — null for the simulated
 * suggestion — and where it came from.
 */
export function beginTurn(env: Env, action: string, agent: AgentSide = SCRIPTED): TurnStep {
  const pending = env.beginStep(action);
  if (pending.kind === 'done') return { turn: { action, reply: null, replySource: null, ...pending.result, ...agent } };
  const { request } = pending;
  return {
    request,
    complete: (reply, source) => ({
      action,
      reply: reply ?? request.suggestion,
      replySource: source,
      ...env.completeStep(reply ?? request.suggestion),
      ...agent,
    }),
  };
}

/**
 * One agent message through both phases of a step: the collaborator's reply, when one is asked
 * for, comes from `collaborator` (a person) or else, also when the person returns null, the
 * simulated suggestion.
 */
export async function playTurn(env: Env, action: string, collaborator?: Collaborator, agent: AgentSide = SCRIPTED): Promise<Turn> {
  const step = beginTurn(env, action, agent);
  if ('turn' in step) return step.turn;
  // null: the person left this answer to the simulated collaborator
  const given = collaborator ? await collaborator(step.request) : null;
  return step.complete(given, given === null ? 'simulated' : 'person');
}

/** Re-runs an episode's actions (and recorded replies) on a fresh environment; the agent side is kept as recorded. */
export function replayEpisode(env: Env, episode: Episode): Episode {
  const task = env.reset(episode.task.spec);
  const turns: Turn[] = [];
  for (const rec of episode.turns) {
    if (env.done) break;
    const step = beginTurn(env, rec.action, agentSideOf(rec));
    turns.push('turn' in step ? step.turn : step.complete(rec.reply, rec.replySource ?? 'simulated'));
  }
  return {
    task,
    agent: episode.agent,
    turns,
    totalReward: turns.reduce((a, t) => a + t.reward, 0),
    success: turns.length > 0 && turns[turns.length - 1].info.success,
  };
}
