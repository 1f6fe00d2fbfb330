// How Play shows a turn's reply: the collaborator's words in their bubble, the environment's status
// ("Remaining: … Turns left: 3.") on its own line, and how the environment read a person's answer to
// a `guess` question. The agent still sees the whole observation; this only splits it for display.
import type { Turn } from '../../rl/envs/turn.ts';

/** A turn's collaborator reply apart from the environment's text that follows it in the observation. */
export interface TurnText {
  /** What the collaborator (or, with no reply, the environment) said: the bubble. */
  said: string;
  /** The environment's text after the reply ("Remaining: … Turns left: 3."), or '' when none. */
  status: string;
}

/**
 * Splits a turn's observation into the reply and the environment's status. Every family builds the
 * observation of a replied step as `${reply} ${environment text}` (the agent sees it whole, unchanged);
 * a turn without a reply, or one whose observation does not start with it, is all `said`.
 */
export function turnText(t: Pick<Turn, 'reply' | 'observation'>): TurnText {
  const reply = t.reply?.trim();
  if (!reply || !t.observation.startsWith(reply)) return { said: t.observation, status: '' };
  return { said: reply, status: t.observation.slice(reply.length).trim() };
}

/** The line under a person's answer to a `guess` question saying how the environment read it ("read as: yes"), or null for any other turn. */
export function readingOf(t: Pick<Turn, 'replySource' | 'info'>): string | null {
  if (t.replySource !== 'person' || typeof t.info.answer !== 'string') return null;
  if (t.info.attribute === null) return 'not read: the environment did not recognise the question';
  return t.info.answer === 'unknown' ? 'read as: unknown (no candidate ruled out)' : `read as: ${t.info.answer}`;
}
