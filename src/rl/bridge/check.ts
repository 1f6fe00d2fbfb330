// The logits check shipped inside an export folder (turnwise_check.json): one sample episode in the
// chat template, its token ids, and the model's logits computed here by the float64 reference forward
// (model/llama/reference.ts, a loop implementation independent of the ONNX graphs) from exactly the
// weights written beside it, without and with the adapter. recipes/check_export.py renders the same
// messages with transformers' apply_chat_template, tokenizes them, runs LlamaForCausalLM (+ PEFT) and
// compares: text, ids, last-position logits and every next-token log-probability.
import type { ModelConfig } from '../model/llama/config.ts';
import { logSoftmaxRows, referenceForward } from '../model/llama/reference.ts';
import type { ModelWeights } from '../model/llama/weights.ts';
import { encodeChat, renderChat, type ChatMessage } from '../model/tokenizer/chat.ts';
import type { Tokenizer } from '../model/tokenizer/tokenizer.ts';
import type { LoraAdapter } from './peft.ts';

export const CHECK_FILE = 'turnwise_check.json';
export const CHECK_FORMAT = 'turnwise.logits-check/1';

/** A `guess` episode in the engine's layout: system = task prompt, then agent/user turns. */
export const SAMPLE_EPISODE: readonly ChatMessage[] = [
  {
    role: 'system',
    content:
      'Guess the animal I am thinking of. Candidates: cat, cow, eagle, shark. Each turn ask one yes or no question, like: does it have fur? Or guess, like: guess: cat. A wrong guess ends the game. You have 4 turns.',
  },
  { role: 'agent', content: 'is it a mammal?' },
  { role: 'user', content: 'Yes. Remaining: cat, cow. Turns left: 3.' },
];

/** Hugging Face role names for the chat template (assistant is rendered as <|agent|>). */
export const hfRole = (role: ChatMessage['role']): string => (role === 'agent' ? 'assistant' : role);

/** Logits of one forward pass over the check's ids. */
export interface CheckLogits {
  /** Logits at the last position (what the next token is sampled from), float32 precision. */
  last_logits: number[];
  /** log p(ids[t+1] | ids[..t]) for t = 0 … S−2. */
  token_logprobs: number[];
  /** Critic exports: the value head at every position (v_head on the final-norm hidden state), for recipes/critic_value.py. */
  values?: number[];
}

export interface LogitsCheck {
  format: typeof CHECK_FORMAT;
  /** The episode in Hugging Face roles, for apply_chat_template(messages, add_generation_prompt=True). */
  messages: { role: string; content: string }[];
  add_generation_prompt: true;
  /** The rendered template (special tokens spelled out); ids are its tokens, cut to the context window. */
  text: string;
  input_ids: number[];
  /** Which weights model.safetensors holds ('master' fp32, or 'engine': the 4-bit values the ONNX graphs compute with). */
  weights: 'master' | 'engine';
  base: CheckLogits;
  adapter?: CheckLogits;
  /** Largest absolute logit difference a float32 implementation should stay within. */
  tolerance: number;
  computed_by: string;
}

function logits(cfg: ModelConfig, w: ModelWeights, ids: number[], adapter?: LoraAdapter): CheckLogits {
  const value = 'v_head.summary.weight' in w;
  const out = referenceForward(cfg, w, ids, {
    ...(adapter ? { lora: adapter.spec, loraWeights: adapter.weights } : {}),
    ...(value ? { heads: { value: true } } : {}),
  });
  const V = cfg.vocabSize;
  const S = ids.length;
  const lp = logSoftmaxRows(out.logits, S, V);
  return {
    last_logits: Array.from(out.logits.subarray((S - 1) * V, S * V), (x) => Math.fround(x)),
    token_logprobs: Array.from({ length: S - 1 }, (_, t) => Math.fround(lp[t * V + ids[t + 1]])),
    ...(out.values ? { values: Array.from(out.values, (x) => Math.fround(x)) } : {}),
  };
}

/** Builds the check for `weights` (and `adapter`) on the sample episode. */
export function buildLogitsCheck(
  cfg: ModelConfig,
  tok: Tokenizer,
  weights: ModelWeights,
  kind: 'master' | 'engine',
  adapter?: LoraAdapter,
  messages: readonly ChatMessage[] = SAMPLE_EPISODE,
): LogitsCheck {
  const ids = encodeChat(tok, messages, { addGenerationPrompt: true }).ids.slice(0, cfg.maxSeq);
  return {
    format: CHECK_FORMAT,
    messages: messages.map((m) => ({ role: hfRole(m.role), content: m.content })),
    add_generation_prompt: true,
    text: renderChat(messages, { addGenerationPrompt: true }),
    input_ids: ids,
    weights: kind,
    base: logits(cfg, weights, ids),
    ...(adapter ? { adapter: logits(cfg, weights, ids, adapter) } : {}),
    tolerance: 1e-3,
    computed_by: 'Turnwise float64 reference forward (src/rl/model/llama/reference.ts), rounded to float32',
  };
}
