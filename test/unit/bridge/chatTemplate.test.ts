import { describe, expect, it } from 'vitest';
import { JinjaError, renderJinja } from '../../../src/rl/bridge/jinja.ts';
import { hfRole } from '../../../src/rl/bridge/check.ts';
import { tokenizerConfigJson } from '../../../src/rl/model/tokenizer/hfJson.ts';
import { CHAT_TEMPLATE_JINJA, encodeChat, renderChat } from '../../../src/rl/model/tokenizer/chat.ts';
import { fitTokenizer } from '../../../src/rl/model/tokenizer/fit.ts';
import { playEpisode } from '../../../src/rl/rollout/rollout.ts';
import { createAgent } from '../../../src/rl/envs/registry.ts';
import { toChat } from '../../../src/rl/model/tokenizer/dialogue.ts';
import { toChatRecord } from '../../../src/rl/store/formats/chat.ts';
import type { EpisodeRecord, MessageRecord } from '../../../src/rl/store/schema.ts';

describe('tiny Jinja renderer', () => {
  it('renders a hand-checked template', () => {
    const t = "{{ bos }}{% for m in xs %}{% if m['r'] == 'a' %}{% set k = 'A' %}{% elif m.r == 'b' %}{% set k = 'B' %}{% else %}{% set k = '?' %}{% endif %}[{{ k + m['c'] }}]{% endfor %}{%- if not flag %} end{% endif %}";
    expect(renderJinja(t, { bos: '^', xs: [{ r: 'a', c: '1' }, { r: 'b', c: '2' }, { r: 'z', c: '3' }], flag: false })).toBe('^[A1][B2][?3] end');
    expect(renderJinja('{{ missing }}|{% if missing %}x{% endif %}', {})).toBe('|');
    expect(() => renderJinja('{{ xs | length }}', { xs: [] })).toThrow(JinjaError);
    expect(() => renderJinja('{% for x in xs %}', { xs: [] })).toThrow('missing {% endfor %}');
  });
});

/** A store episode the way the recorder writes it: the task prompt as a system turn, then agent and collaborator turns. */
function storeEpisode(prompt: string, turns: { action: string; observation: string }[]): EpisodeRecord {
  const turn = (role: MessageRecord['role'], text: string): MessageRecord => ({ role, text, tokens: null, logprobs: null, promptTokens: 0, completionTokens: 0, reward: 0, done: false, latencyMs: 0, backend: 'test', info: {}, at: 0 });
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
    const dialogue = [{ role: 'user' as const, content: ep.task.prompt }, ...turns.flatMap((t) => [{ role: 'assistant' as const, content: t.action }, { role: 'user' as const, content: t.observation }])];
    const engineChat = toChat(dialogue);
    // the path a dataset takes: store episode → TRL chat JSONL messages → transformers' chat template
    const messages = toChatRecord(storeEpisode(ep.task.prompt, turns)).messages;
    expect(messages.map((m) => m.role)).toEqual(engineChat.map((m) => hfRole(m.role)));
    const template = tokenizerConfigJson(512).chat_template as string;
    expect(template).toBe(CHAT_TEMPLATE_JINJA);
    for (const addGenerationPrompt of [true, false]) {
      const rendered = renderJinja(template, { messages, bos_token: '<|bos|>', eos_token: '<|end|>', add_generation_prompt: addGenerationPrompt });
      expect(rendered).toBe(renderChat(engineChat, { addGenerationPrompt }));
      // tokenizers split special tokens out of the rendered text, then pre-tokenize the pieces: the same ids
      const tok = fitTokenizer([rendered], { minCount: 1 });
      expect(tok.encode(rendered, { parseSpecial: true })).toEqual(encodeChat(tok, engineChat, { addGenerationPrompt }).ids);
    }
  });
});
