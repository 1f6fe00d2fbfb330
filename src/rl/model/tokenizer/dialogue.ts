// How an environment dialogue (src/rl/envs: the task prompt as the first 'user' message, then agent
// and collaborator messages) becomes the model's chat (src/rl/model/tokenizer/chat.ts):
//   policy: system = task prompt, then agent/user turns;
//   critic: the same with one 'hidden' message after the prompt (SWEET-RL's asymmetric critic,
//           arXiv 2503.15478: the critic sees training-time information the policy never sees).
// A sliding context window keeps the prompt and the most recent turns that fit a token budget, so
// long games (frozenlake, sokoban: the whole state is in the latest observation) stay short. The
// forge trains on the same windows the shipped policy sees (config.json turnwise.contextTokens).
import type { JsonObject, JsonValue, Message } from '../../envs/types.ts';
import { encodeChat, encodeTurn, type ChatMessage, type EncodedChat } from './chat.ts';
import { SPECIAL_TOKENS, type Tokenizer } from './tokenizer.ts';

/** Hidden fields left out of the critic's prompt: long lists the collaborator needs but that restate the rest. */
const HIDDEN_OMIT = new Set(['tests', 'facts', 'candidates', 'slip', 'safeReward', 'riskyProb']);

/** A short text of a task's hidden information for the critic's 'hidden' message. */
export function hiddenText(hidden: JsonObject): string {
  const show = (v: JsonValue): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  return Object.keys(hidden)
    .filter((k) => !HIDDEN_OMIT.has(k))
    .map((k) => `${k}: ${show(hidden[k])}`)
    .join('; ');
}

/** The model's chat for an environment dialogue; `hidden` adds the critic's hidden message. */
export function toChat(dialogue: readonly Message[], hidden?: JsonObject): ChatMessage[] {
  const out: ChatMessage[] = [];
  dialogue.forEach((m, i) => {
    if (i === 0) {
      out.push({ role: 'system', content: m.content });
      if (hidden) out.push({ role: 'hidden', content: hiddenText(hidden) });
    } else out.push({ role: m.role === 'assistant' ? 'agent' : 'user', content: m.content });
  });
  return out;
}

/** Tokens a reply may grow past the agent turn it revises (four listed edits) where a window keeps that turn. */
export const ANSWERED_MARGIN = 32;

/**
 * The tokens a policy sees before its next reply: the chat's head (system, and hidden for the
 * critic) and the longest suffix of whole turns, starting at a 'user' turn, such that the prompt plus
 * `reserve` reply tokens fits `budget`; ends with <|agent|>. When even the head and the last turn do
 * not fit, the last turn alone follows the head (the result may then exceed the budget).
 *
 * With `keepAnswered` (a model forged that way: config.json turnwise.keepAnswered), a window cut at a
 * user turn also keeps the agent turn that user turn answers, whenever a reply as long as that agent
 * turn (+ ANSWERED_MARGIN tokens) still fits in place of the full `reserve`. A frontend draft revises
 * the one before it: with the reserve of 192 the policy's previous draft fell out of its window on
 * 176 of 459 later turns, and it rewrote the page from the collaborator's list alone
 * (docs/experiments/2026-12-07-frontend-previous-draft.md).
 */
export function windowIds(tok: Tokenizer, chat: readonly ChatMessage[], budget: number, reserve: number, keepAnswered = false): number[] {
  const headLen = chat.length > 1 && chat[1].role === 'hidden' ? 2 : 1;
  const head = encodeChat(tok, chat.slice(0, headLen)).ids;
  const turns = chat.slice(headLen).map((m) => encodeTurn(tok, m));
  let used = head.length + 1 + reserve; // + <|agent|>
  let from = turns.length;
  for (let i = turns.length - 1; i >= 0; i--) {
    if (used + turns[i].length > budget && from < turns.length) break;
    used += turns[i].length;
    from = i;
  }
  // a cut window starts at a user turn (the context of the agent turn after it)
  while (from > 0 && from < turns.length && chat[headLen + from].role !== 'user') from++;
  if (keepAnswered && from > 0 && from < turns.length && chat[headLen + from - 1].role === 'agent') {
    const answered = turns[from - 1].length;
    const kept = turns.slice(from).reduce((n, t) => n + t.length, 0);
    if (head.length + 1 + kept + 2 * answered + ANSWERED_MARGIN <= budget) from--;
  }
  const ids = [...head];
  for (let i = from; i < turns.length; i++) ids.push(...turns[i]);
  ids.push(tok.special.agent);
  return ids;
}

/** One training sequence: ids and the loss mask/weights for next-token prediction (position t predicts ids[t + 1]). */
export interface Segment {
  ids: number[];
  /** weight[t] of predicting ids[t + 1]; 0 = not trained. */
  weight: number[];
}

/** The weights `segments` gives beside agent turns' 1 and user turns' `obsWeight`, and its window rule. */
export interface SegmentOptions {
  /** Weight of the head's tokens (default 0). */
  promptWeight?: number;
  /** Weight of the n-th agent turn's tokens (default 1 each). */
  agentWeights?: readonly number[];
  /** Factor on the agent tokens the context before them holds (default 1: none). */
  copyWeight?: number;
  /** A segment that starts at a user turn also holds, untrained, the agent turn it answers when the next agent turn still fits (windowIds' keepAnswered). */
  keepAnswered?: boolean;
}

/**
 * Cuts an encoded chat into training segments of at most `maxLen` tokens: each starts with the head
 * (system [+ hidden]) followed by whole turns from a 'user' turn (or the first agent turn), the way
 * `windowIds` shows them at play time. Agent-turn tokens weigh 1; user-turn tokens `obsWeight`; the
 * head's tokens `promptWeight` (default 0: a prompt that restates its own names, as bandit's "Answer
 * like <answer>X</answer> or <answer>Y</answer>", then trains copying them). `agentWeights[n]`, when
 * given, replaces the weight of the n-th agent turn (the forge's DAgger data trains only the turns the
 * expert agrees with, or only the expert's label at the end); a segment with nothing trained is dropped.
 * `copyWeight` multiplies the weight of an agent token that the segment's prompt or user turns before
 * it hold (a block text the prompt names, a colour the collaborator asks for, a number it states): the
 * few tokens a reply copies are a sliver of a long reply's loss: forged from scratch on full frontend
 * pages a policy named 1.2% of its first drafts' texts right, and at copyWeight 5, 92.9%
 * (docs/experiments/2026-12-06-copy-drills-first.md). Format tokens the context also holds are weighed
 * up too; once learned their loss is near 0.
 */
export function segments(tok: Tokenizer, chat: readonly ChatMessage[], maxLen: number, obsWeight: number, opts: SegmentOptions = {}): Segment[] {
  const { promptWeight = 0, agentWeights, copyWeight = 1, keepAnswered = false } = opts;
  const enc: EncodedChat = encodeChat(tok, chat);
  const headLen = chat.length > 1 && chat[1].role === 'hidden' ? 2 : 1;
  const headEnd = enc.spans[headLen - 1].end;
  const head = enc.ids.slice(0, headEnd);
  let agentIndex = 0;
  const turns = enc.spans.slice(headLen).map((s) => {
    const w = s.role === 'agent' ? (agentWeights?.[agentIndex++] ?? 1) : obsWeight;
    return { role: s.role, from: s.roleAt, to: s.end, w };
  });
  const len = (k: number) => turns[k].to - turns[k].from;
  const out: Segment[] = [];
  let i = 0;
  while (i < turns.length) {
    // a segment starts at turn i (a user turn giving context, or the first agent turn)
    const ids = [...head];
    const weight = new Array<number>(head.length).fill(0);
    // as for a turn: the role token predicts the first content token … the last content token <|end|>;
    // the head's <|end|> predicts the next role token (not trained)
    for (let k = 1; k < head.length - 1; k++) weight[k] = promptWeight;
    // the ids a reply can copy: the prompt's and the user turns' so far in this segment
    const context = copyWeight === 1 ? null : new Set(head);
    const copied = (id: number) => context !== null && id >= SPECIAL_TOKENS.length && context.has(id);
    // keepAnswered: the agent turn this user turn answers, as context only, if the next agent turn still fits
    const answered = keepAnswered && i > 0 && i + 1 < turns.length && turns[i].role !== 'agent' && turns[i - 1].role === 'agent';
    if (answered && ids.length + len(i - 1) + len(i) + len(i + 1) <= maxLen) {
      for (let k = turns[i - 1].from; k < turns[i - 1].to; k++) {
        ids.push(enc.ids[k]);
        weight.push(0);
      }
    }
    let j = i;
    let trained = false;
    while (j < turns.length && ids.length + len(j) <= maxLen) {
      const t = turns[j];
      const w = t.w;
      for (let k = t.from; k < t.to; k++) {
        ids.push(enc.ids[k]);
        weight.push(0);
      }
      // the role token predicts the first content token; the last content token predicts <|end|>
      const start = ids.length - len(j);
      for (let k = start; k < ids.length - 1; k++) weight[k] = t.role === 'agent' && copied(ids[k + 1]) ? w * copyWeight : w;
      if (context && t.role !== 'agent') for (let k = start; k < ids.length; k++) context.add(ids[k]);
      if (t.role === 'agent' && w > 0) trained = true;
      j++;
    }
    if (j === i) break; // one turn longer than the whole budget: drop the rest of the episode
    if (trained) out.push({ ids, weight });
    // the next segment repeats the last user turn before the next agent turn as its context
    let next = j;
    if (next < turns.length && turns[next].role === 'agent' && next - 1 > i) next--;
    i = next;
  }
  return out;
}
