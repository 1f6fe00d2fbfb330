// The pieces the one agent loop (src/rl/rollout/rollout.ts) is built from, and the replay check:
// playTurn takes one agent message through both phases of a step; dialogueOf is the one place a
// dialogue is built from turns (pushTurn grows one in place). replayEpisode re-runs the recorded
// actions (and person replies) from the task seed; equality with the recording is the determinism
// check. Envs sit below rollout, so no agent loop lives here.
import { agentSideOf, SCRIPTED, type AgentSide, type Turn } from './turn.ts';
import type { Collaborator, Env, Episode, Message } from './types.ts';

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

/**
 * One agent message through both phases of a step: the collaborator's reply, when one is asked
 * for, comes from `collaborator` (a person) or else, also when the person returns null, the
 * simulated suggestion.
 */
export async function playTurn(env: Env, action: string, collaborator?: Collaborator, agent: AgentSide = SCRIPTED): Promise<Turn> {
  const pending = env.beginStep(action);
  if (pending.kind === 'done') return { action, reply: null, replySource: null, ...pending.result, ...agent };
  // null: the person left this answer to the simulated collaborator
  const given = collaborator ? await collaborator(pending.request) : null;
  const reply = given ?? pending.request.suggestion;
  return { action, reply, replySource: given === null ? 'simulated' : 'person', ...env.completeStep(reply), ...agent };
}

/** Re-runs an episode's actions (and recorded replies) on a fresh environment; the agent side is kept as recorded. */
export function replayEpisode(env: Env, episode: Episode): Episode {
  const task = env.reset(episode.task.spec);
  const turns: Turn[] = [];
  for (const rec of episode.turns) {
    if (env.done) break;
    const agent = agentSideOf(rec);
    const pending = env.beginStep(rec.action);
    if (pending.kind === 'done') turns.push({ action: rec.action, reply: null, replySource: null, ...pending.result, ...agent });
    else {
      const reply = rec.reply ?? pending.request.suggestion;
      turns.push({ action: rec.action, reply, replySource: rec.replySource ?? 'simulated', ...env.completeStep(reply), ...agent });
    }
  }
  return {
    task,
    agent: episode.agent,
    turns,
    totalReward: turns.reduce((a, t) => a + t.reward, 0),
    success: turns.length > 0 && turns[turns.length - 1].info.success,
  };
}
