// Scripted `frontend` players. The expert starts from the prompt's block list, then applies every
// difference the collaborator listed to its previous draft; when the reply listed all remaining
// differences it answers with the corrected page. The noisy expert perturbs one style value; the
// random agent sends a random page.
import type { FamilyAgents } from '../agent.ts';
import { agentMessages, lastUser } from '../agent.ts';
import type { Message } from '../types.ts';
import type { Rng } from '../../util/rng.ts';
import { drawDesign, CHOICES } from './designs.ts';
import { ANSWER_MARKER } from '../colbench.ts';
import { parseHtml, toHtml, PALETTE, STYLE_KEYS, type Block, type Design, type Style, type Tag } from './html.ts';

/** The page the prompt describes, with no styles. */
export function designFromPrompt(prompt: string): Design {
  const list = /blocks?: (.*?)\. Each turn/.exec(prompt)?.[1] ?? '';
  const blocks: Block[] = [...list.matchAll(/(h1|p|div) "([^"]*)"/g)].map((m) => ({ tag: m[1] as Tag, text: m[2], style: {} }));
  return { background: 'white', blocks };
}

/** Applies the differences stated in a reply to a draft (returns a copy). */
export function applyDifferences(draft: Design, reply: string): Design {
  const d: Design = JSON.parse(JSON.stringify(draft)) as Design;
  const page = /page background should be ([#\w]+)/.exec(reply);
  if (page) d.background = page[1];
  for (const m of reply.matchAll(/Block (\d+) ([a-z-]+) should be ("[^"]*"|[#\w]+), not/g)) {
    const b = d.blocks[Number(m[1]) - 1];
    if (!b) continue;
    const key = m[2];
    const value = m[3];
    if (key === 'text') b.text = value.slice(1, -1);
    else if ((STYLE_KEYS as readonly string[]).includes(key)) {
      const k = key as keyof Style;
      if (value === 'none') delete b.style[k];
      else (b.style as Record<string, string | number>)[k] = /^\d+$/.test(value) ? Number(value) : value;
    }
  }
  for (const m of reply.matchAll(/Block (\d+) should be a (h1|p|div), not/g)) {
    const b = d.blocks[Number(m[1]) - 1];
    if (b) b.tag = m[2] as Tag;
  }
  return d;
}

/** The expert's next draft and whether it is final. */
function plan(dialogue: readonly Message[]): { design: Design; final: boolean } {
  const fromPrompt = designFromPrompt(dialogue[0]?.content ?? '');
  const mine = agentMessages(dialogue);
  if (mine.length === 0) return { design: fromPrompt, final: false };
  let previous: Design;
  try {
    const last = mine[mine.length - 1];
    const at = last.toUpperCase().indexOf(ANSWER_MARKER);
    previous = parseHtml(at >= 0 ? last.slice(at + ANSWER_MARKER.length) : last);
    if (previous.blocks.length !== fromPrompt.blocks.length) previous = fromPrompt;
  } catch {
    return { design: fromPrompt, final: false };
  }
  const reply = lastUser(dialogue);
  const next = applyDifferences(previous, reply);
  const same = /looks the same/.test(reply);
  const total = Number(/I see (\d+) difference/.exec(reply)?.[1] ?? Infinity);
  const listed = [...reply.matchAll(/should be/g)].length;
  const turnsLeft = Number(/Turns left: (\d+)/.exec(reply)?.[1] ?? 99);
  return { design: next, final: same || listed >= total || turnsLeft <= 1 };
}

const say = (p: { design: Design; final: boolean }) => (p.final ? `${ANSWER_MARKER} ${toHtml(p.design)}` : toHtml(p.design));

/**
 * A scripted player's message (a draft, or the answer marker and a page) with its CSS written spaced
 * (toHtml's `spaced`); a message that is not a page comes back unchanged. The forge's `spacedCss`
 * rewrites its frontend teachers' and labels' drafts with it.
 */
export function spacedDraft(message: string): string {
  const at = message.toUpperCase().indexOf(ANSWER_MARKER);
  const html = at >= 0 ? message.slice(at + ANSWER_MARKER.length) : message;
  if (!html.includes('<')) return message;
  try {
    const page = toHtml(parseHtml(html), true);
    return at >= 0 ? `${message.slice(0, at + ANSWER_MARKER.length)} ${page}` : page;
  } catch {
    return message;
  }
}

function perturb(d: Design, rng: Rng): Design {
  const out: Design = JSON.parse(JSON.stringify(d)) as Design;
  const b = out.blocks.length ? rng.pick(out.blocks) : null;
  if (!b) return out;
  const key = rng.pick(['background', 'color', 'width', 'height', 'text-align'] as const);
  if (key === 'background' || key === 'color') b.style[key] = rng.pick(Object.keys(PALETTE));
  else if (key === 'text-align') b.style[key] = rng.pick(['left', 'center', 'right'] as const);
  else b.style[key] = rng.pick(CHOICES[key]);
  return out;
}

export const frontendAgents: FamilyAgents = {
  expert: (d) => say(plan(d)),
  mistake(d, rng) {
    const p = plan(d);
    return say({ design: perturb(p.design, rng), final: p.final });
  },
  random(_d, rng) {
    const html = toHtml(drawDesign(rng));
    return rng.chance(0.5) ? `${ANSWER_MARKER} ${html}` : html;
  },
};
