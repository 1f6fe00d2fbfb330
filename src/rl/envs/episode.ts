// Running and replaying one episode: agent ⇄ environment ⇄ collaborator, recorded as plain JSON.
// replayEpisode re-runs the recorded actions (and person replies) from the task seed; equality with
// the recording is the determinism check.
import type { Agent, Collaborator, Env, Episode, EpisodeTurn, Message, TaskSpec } from './types.ts';

/** Options of runEpisode. */
export interface RunOptions {
  /** Supplies collaborator replies (a person in the UI); default: the simulated reply. */
  collaborator?: Collaborator;
  /** Called after every turn (live views, credit). */
  onTurn?: (turn: EpisodeTurn, index: number) => void;
}

/** The dialogue the agent sees after the given turns. */
export function dialogueOf(prompt: string, turns: readonly EpisodeTurn[]): Message[] {
  const out: Message[] = [{ role: 'user', content: prompt }];
  for (const t of turns) out.push({ role: 'assistant', content: t.action }, { role: 'user', content: t.observation });
  return out;
}

/**
 * One agent message through both phases of a step: the collaborator's reply, when one is asked
 * for, comes from `collaborator` (a person) or else the simulated suggestion.
 */
export async function playTurn(env: Env, action: string, collaborator?: Collaborator): Promise<EpisodeTurn> {
  const pending = env.beginStep(action);
  if (pending.kind === 'done') return { action, reply: null, replySource: null, ...pending.result };
  const reply = collaborator ? await collaborator(pending.request) : pending.request.suggestion;
  return { action, reply, replySource: collaborator ? 'person' : 'simulated', ...env.completeStep(reply) };
}

/** Plays one episode to the end (at most maxTurns agent messages). */
export async function runEpisode(env: Env, agent: Agent, spec: TaskSpec, opts: RunOptions = {}): Promise<Episode> {
  const task = env.reset(spec);
  const turns: EpisodeTurn[] = [];
  const dialogue: Message[] = [{ role: 'user', content: task.prompt }];
  while (!env.done) {
    const action = await agent.act(dialogue);
    const turn = await playTurn(env, action, opts.collaborator);
    turns.push(turn);
    opts.onTurn?.(turn, turns.length - 1);
    dialogue.push({ role: 'assistant', content: action }, { role: 'user', content: turn.observation });
  }
  return {
    task,
    agent: agent.name,
    turns,
    totalReward: turns.reduce((a, t) => a + t.reward, 0),
    success: turns.length > 0 && turns[turns.length - 1].info.success,
  };
}

/** Re-runs an episode's actions (and recorded replies) on a fresh environment. */
export function replayEpisode(env: Env, episode: Episode): Episode {
  const task = env.reset(episode.task.spec);
  const turns: EpisodeTurn[] = [];
  for (const rec of episode.turns) {
    if (env.done) break;
    const pending = env.beginStep(rec.action);
    if (pending.kind === 'done') turns.push({ action: rec.action, reply: null, replySource: null, ...pending.result });
    else {
      const reply = rec.reply ?? pending.request.suggestion;
      turns.push({ action: rec.action, reply, replySource: rec.replySource ?? 'simulated', ...env.completeStep(reply) });
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
