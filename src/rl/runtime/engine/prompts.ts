// Prompts to token ids, and the context-window rule: a prompt must leave room for at least one new
// token (promptTokens < maxSeq), else PromptTooLongError. Turnwise never truncates a prompt silently;
// the policy agent applies its own stated rule (policyAgent.ts) before calling the engine.
import { encodeChat } from '../../model/tokenizer/chat.ts';
import type { Tokenizer } from '../../model/tokenizer/tokenizer.ts';
import { windowIds } from '../../model/tokenizer/dialogue.ts';
import { EngineInputError, PromptTooLongError } from './errors.ts';
import type { Prompt } from './types.ts';

const CHAT_ROLES: readonly string[] = ['system', 'hidden', 'user', 'agent'];

/** Defaults for a windowed prompt: the model's context budget, the reply reserve and its window rule (model/meta.ts keepsAnswered). */
export interface WindowDefaults {
  /** Absent: a windowed prompt must name its own budget, else it is not windowed. */
  budget?: number;
  reserve: number;
  keepAnswered: boolean;
}

/** Token ids of a prompt (see Prompt for the three forms). */
export function encodePrompt(tok: Tokenizer, prompt: Prompt, where = 'prompt', window?: WindowDefaults): number[] {
  if (prompt && 'messages' in prompt && Array.isArray(prompt.messages)) {
    for (const m of prompt.messages) {
      if (!m || typeof m.content !== 'string' || !CHAT_ROLES.includes(m.role)) {
        throw new EngineInputError(`${where}: each message needs a role (system, hidden, user, agent) and string content`);
      }
    }
    if (prompt.window) {
      if (prompt.messages[0]?.role !== 'system') throw new EngineInputError(`${where}: a windowed prompt starts with the system message`);
      const budget = prompt.window.budget ?? window?.budget;
      const reserve = prompt.window.reserve ?? window?.reserve ?? 0;
      if (budget !== undefined) return windowIds(tok, prompt.messages, budget, reserve, window?.keepAnswered);
    }
    return encodeChat(tok, prompt.messages, { addGenerationPrompt: true }).ids;
  }
  if (prompt && 'text' in prompt && typeof prompt.text === 'string') return [tok.special.bos, ...tok.encode(prompt.text)];
  if (prompt && 'ids' in prompt && Array.isArray(prompt.ids)) {
    if (prompt.ids.length === 0) throw new EngineInputError(`${where}: token ids must not be empty`);
    prompt.ids.forEach((id, i) => {
      if (!Number.isInteger(id) || id < 0 || id >= tok.vocabSize)
        throw new EngineInputError(`${where}: ids[${i}] = ${id} is outside the vocabulary [0, ${tok.vocabSize})`);
    });
    return [...prompt.ids];
  }
  throw new EngineInputError(`${where}: expected { messages }, { text } or { ids }`);
}

/** Throws PromptTooLongError unless the prompt leaves one position free for the reply. */
export function checkPromptFits(tokens: number, maxSeq: number, where: string): void {
  if (tokens >= maxSeq) {
    throw new PromptTooLongError(
      tokens,
      maxSeq,
      `${where} has ${tokens} tokens; a prompt may have at most ${maxSeq - 1} (the model's context window is ${maxSeq} tokens and one must stay free for the reply)`,
    );
  }
}

/** Throws PromptTooLongError unless a scored sequence fits the context window. */
export function checkSequenceFits(tokens: number, maxSeq: number, where: string): void {
  if (tokens > maxSeq) {
    throw new PromptTooLongError(
      tokens,
      maxSeq,
      `${where} has ${tokens} tokens; context and continuation together may have at most ${maxSeq} (the model's context window)`,
    );
  }
}
