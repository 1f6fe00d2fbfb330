// The chat template that transformers will apply, checked against the engine's own prompt layout with
// the reference implementations, in every run: @huggingface/jinja (transformers.js's chat-template
// renderer) renders the chat_template of the shipped models' tokenizer_config.json, and
// @huggingface/tokenizers (tokenizers.js) reads their tokenizer.json; both must give the text and the
// token ids of chat.ts renderChat/encodeChat, on the dialogues of every task family (policy and critic
// chats, with and without the generation prompt).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { hfRole } from '../../../src/rl/bridge/check.ts';
import { modelsDir } from '../../../src/cli/paths.ts';
import { tokenizerConfigJson, parseTokenizerJson } from '../../../src/rl/model/tokenizer/hfJson.ts';
import { CHAT_TEMPLATE_JINJA, encodeChat, renderChat, type ChatMessage } from '../../../src/rl/model/tokenizer/chat.ts';
import { fitTokenizer } from '../../../src/rl/model/tokenizer/fit.ts';
import { playEpisode } from '../../../src/rl/rollout/rollout.ts';
import type { Message } from '../../../src/rl/envs/types.ts';
import { createAgent, FAMILY_NAMES } from '../../../src/rl/envs/registry.ts';
import { toChat } from '../../../src/rl/model/tokenizer/dialogue.ts';
import { toChatRecord } from '../../../src/rl/store/formats/chat.ts';
import type { EpisodeRecord, MessageRecord } from '../../../src/rl/store/schema.ts';

/** transformers' apply_chat_template, as transformers.js runs it: the template rendered by @huggingface/jinja. */
function applyChatTemplate(template: string, messages: readonly { role: string; content: string }[], addGenerationPrompt: boolean): string {
  return new Template(template).render({
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
    bos_token: '<|bos|>',
    eos_token: '<|end|>',
    add_generation_prompt: addGenerationPrompt,
  });
}

/** A store episode the way the recorder writes it: the task prompt as a system turn, then agent and collaborator turns. */
function storeEpisode(prompt: string, turns: { action: string; observation: string }[]): EpisodeRecord {
  const turn = (role: MessageRecord['role'], text: string): MessageRecord => ({
    role,
    text,
    tokens: null,
    logprobs: null,
    promptTokens: 0,
    completionTokens: 0,
    reward: 0,
    done: false,
    latencyMs: 0,
    backend: 'test',
    info: {},
    at: 0,
  });
  return {
    type: 'episode',
    id: 'e1',
    runId: null,
    status: 'complete',
    task: { family: 'guess', split: 'train', seed: 3, options: {}, hidden: null },
    model: { policy: 'policy', adapter: null, critic: null },
    turns: [turn('system', prompt), ...turns.flatMap((t) => [turn('agent', t.action), turn('collaborator', t.observation)])],
    outcome: { success: true, totalReward: 1, turns: turns.length },
    credit: [],
    createdAt: 0,
    updatedAt: 0,
    finishedAt: 0,
    abortReason: null,
  };
}

describe('chat_template in tokenizer_config.json', () => {
  it("renders a real episode's exported chat messages exactly as the engine lays out its prompt", async () => {
    const ep = await playEpisode(createAgent('expert', 'guess', { seed: 5 }), { family: 'guess', split: 'train', seed: 5 });
    const turns = ep.turns.slice(0, -1); // the engine prompts for the last turn's reply
    expect(turns.length).toBeGreaterThan(0);
    const dialogue = [
      { role: 'user' as const, content: ep.task.prompt },
      ...turns.flatMap((t) => [
        { role: 'assistant' as const, content: t.action },
        { role: 'user' as const, content: t.observation },
      ]),
    ];
    const engineChat = toChat(dialogue);
    // the path a dataset takes: store episode → TRL chat JSONL messages → transformers' chat template
    const messages = toChatRecord(storeEpisode(ep.task.prompt, turns)).messages;
    expect(messages.map((m) => m.role)).toEqual(engineChat.map((m) => hfRole(m.role)));
    const template = tokenizerConfigJson(512).chat_template as string;
    expect(template).toBe(CHAT_TEMPLATE_JINJA);
    for (const addGenerationPrompt of [true, false]) {
      const rendered = applyChatTemplate(template, messages, addGenerationPrompt);
      expect(rendered).toBe(renderChat(engineChat, { addGenerationPrompt }));
      // tokenizers split special tokens out of the rendered text, then pre-tokenize the pieces: the same ids
      const tok = fitTokenizer([rendered], { minCount: 1 });
      expect(tok.encode(rendered, { parseSpecial: true })).toEqual(encodeChat(tok, engineChat, { addGenerationPrompt }).ids);
    }
  });

  it("renders the shipped models' chat_template as the engine does, and tokenizers.js reads it into the engine's ids, on every family's dialogues", async () => {
    for (const model of ['policy', 'critic'] as const) {
      const dir = join(modelsDir(), model);
      const config = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
      const json = readFileSync(join(dir, 'tokenizer.json'), 'utf8');
      expect(config.chat_template).toBe(CHAT_TEMPLATE_JINJA);
      const ours = parseTokenizerJson(json);
      const theirs = new HfTokenizer(JSON.parse(json), config);
      let chats = 0;
      for (const family of FAMILY_NAMES) {
        for (const [kind, seed] of [
          ['expert', 1],
          ['noisy', 2],
          ['noisy', 3],
        ] as const) {
          const ep = await playEpisode(createAgent(kind, family, { seed }), { family, split: 'train', seed });
          const dialogue: Message[] = [
            { role: 'user', content: ep.task.prompt },
            ...ep.turns.flatMap((t): Message[] => [
              { role: 'assistant', content: t.action },
              ...(t.observation ? [{ role: 'user' as const, content: t.observation }] : []),
            ]),
          ];
          // every prefix the engine prompts with; the critic's chat carries the hidden information
          for (let end = 1; end <= dialogue.length; end++) {
            const chat: ChatMessage[] = toChat(dialogue.slice(0, end), model === 'critic' ? ep.task.hidden : undefined);
            for (const addGenerationPrompt of [true, false]) {
              const rendered = applyChatTemplate(
                config.chat_template as string,
                chat.map((m) => ({ role: hfRole(m.role), content: m.content })),
                addGenerationPrompt,
              );
              expect(rendered, `${model} ${family} ${kind} ${seed}, ${end} messages`).toBe(renderChat(chat, { addGenerationPrompt }));
              const want = encodeChat(ours, chat, { addGenerationPrompt }).ids;
              expect(theirs.encode(rendered, { add_special_tokens: false }).ids, `${model} ${family} ${kind} ${seed}, ${end} messages`).toEqual(want);
              chats++;
            }
          }
        }
      }
      expect(chats).toBeGreaterThanOrEqual(600); // 664: 6 families × 3 episodes, every prefix, both generation-prompt settings
    }
  });
});
