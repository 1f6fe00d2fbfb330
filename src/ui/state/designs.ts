// The designs a frontend episode shows a person: the agent's draft, read from its message the way
// the environment reads it (envs/frontend/env.ts act), so what is drawn is what is scored.
import { ANSWER_MARKER } from '../../rl/envs/colbench.ts';
import { parseHtml, type Design } from '../../rl/envs/frontend/html.ts';

/** The design an agent message proposes or answers with; null when it holds no HTML the environment accepts. */
export function designOfMessage(message: string): Design | null {
  const at = message.toUpperCase().indexOf(ANSWER_MARKER);
  const html = at >= 0 ? message.slice(at + ANSWER_MARKER.length).replace(/```[a-z]*/gi, '') : message;
  if (!html.includes('<')) return null;
  try {
    return parseHtml(html);
  } catch {
    return null;
  }
}
