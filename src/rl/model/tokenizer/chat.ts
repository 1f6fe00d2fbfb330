// The chat template: how a multi-turn episode becomes one token sequence, identically in the forge,
// the rollout loop, the trainer and (through CHAT_TEMPLATE_JINJA in tokenizer_config.json) in
// Hugging Face transformers:
//   <|bos|> ( <|role|> content <|end|> )*  [<|agent|> when a reply is to be generated]
// Roles: system (task prompt), hidden (training-time information only the critic sees, SWEET-RL's
// asymmetric critic), user (collaborator or environment), agent (the policy). Content is encoded
// literally: text that happens to spell a special token cannot inject one.
import type { Tokenizer } from './tokenizer.ts';

type ChatRole = 'system' | 'hidden' | 'user' | 'agent';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** Where one message sits in the encoded sequence. */
export interface ChatSpan {
  role: ChatRole;
  /** Index into the messages. */
  message: number;
  /** Id index of the role token. */
  roleAt: number;
  /** [start, end): the content tokens and the closing <|end|>: what an agent turn is trained on. */
  start: number;
  end: number;
}

export interface EncodedChat {
  ids: number[];
  spans: ChatSpan[];
}

export interface ChatOptions {
  /** Append <|agent|> so the model continues with the agent's reply. */
  addGenerationPrompt?: boolean;
}

/** The same template in Jinja (Hugging Face's `chat_template`); "assistant" is read as agent. */
export const CHAT_TEMPLATE_JINJA =
  "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'assistant' %}{% set role = 'agent' %}{% else %}{% set role = message['role'] %}{% endif %}" +
  "{{ '<|' + role + '|>' + message['content'] + '<|end|>' }}{% endfor %}{% if add_generation_prompt %}{{ '<|agent|>' }}{% endif %}";

/** The template as text (special tokens spelled out), equal to rendering CHAT_TEMPLATE_JINJA. */
export function renderChat(messages: readonly ChatMessage[], opts: ChatOptions = {}): string {
  return '<|bos|>' + messages.map((m) => `<|${m.role}|>${m.content}<|end|>`).join('') + (opts.addGenerationPrompt ? '<|agent|>' : '');
}

/** Encodes an episode with the template; `spans` locate each message for loss masks and credit. */
export function encodeChat(tok: Tokenizer, messages: readonly ChatMessage[], opts: ChatOptions = {}): EncodedChat {
  const ids = [tok.special.bos];
  const spans: ChatSpan[] = [];
  messages.forEach((m, i) => {
    const roleAt = ids.length;
    ids.push(tok.special[m.role]);
    const start = ids.length;
    ids.push(...tok.encode(m.content), tok.special.end);
    spans.push({ role: m.role, message: i, roleAt, start, end: ids.length });
  });
  if (opts.addGenerationPrompt) ids.push(tok.special.agent);
  return { ids, spans };
}

/** Tokens of one more message appended to an encoded episode (for growing a KV cache turn by turn). */
export function encodeTurn(tok: Tokenizer, message: ChatMessage, opts: ChatOptions = {}): number[] {
  const ids = [tok.special[message.role], ...tok.encode(message.content), tok.special.end];
  if (opts.addGenerationPrompt) ids.push(tok.special.agent);
  return ids;
}
