// A small sampling agent over LlamaRunner (src/rl/model/llama/runner.ts) for the forge's held-out
// check and `turnwise eval --agent policy`: implements the envs' Agent interface. Each turn it
// prefills the context window (chat.ts windowIds: prompt + the most recent turns that fit), then
// decodes one token at a time until <|end|> or `maxReplyTokens`, sampling from softmax(logits / T)
// with a seeded Rng (temperature 0 = greedy). Role and padding tokens are never sampled: a reply is
// text. (The inference engine's batched policy agent supersedes this for the lab; this one is the
// reference the forge's figures were measured with.)
import type { Agent, Message } from '../envs/types.ts';
import type { LlamaRunner } from '../model/llama/runner.ts';
import type { Tokenizer } from '../model/tokenizer/tokenizer.ts';
import { Rng } from '../util/rng.ts';
import { toChat, windowIds } from '../model/tokenizer/dialogue.ts';

/** How the agent samples. */
export interface SamplingOptions {
  /** Softmax temperature; 0 = greedy (argmax). */
  temperature: number;
  /** Seeds the sampling Rng. */
  seed: number | string;
  /** Longest reply in tokens (the reply is cut there). */
  maxReplyTokens: number;
  /** Context window in tokens (prompt + recent turns + reply); the model's turnwise.contextTokens. */
  contextTokens: number;
}

/** Draws one token id from `logits` (length V) at `temperature`; `banned[id]` ids are never drawn. */
export function sampleToken(logits: Float32Array, temperature: number, rng: Rng, banned: Uint8Array): number {
  let best = -1;
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) {
    if (!banned[i] && logits[i] > max) {
      max = logits[i];
      best = i;
    }
  }
  if (temperature <= 0) return best;
  let total = 0;
  const p = new Float64Array(logits.length);
  for (let i = 0; i < logits.length; i++) {
    if (banned[i]) continue;
    p[i] = Math.exp((logits[i] - max) / temperature);
    total += p[i];
  }
  let u = rng.next() * total;
  for (let i = 0; i < p.length; i++) {
    u -= p[i];
    if (u < 0 && p[i] > 0) return i;
  }
  return best;
}

/** The special tokens a reply may not contain (all but <|end|>). */
export function bannedTokens(tok: Tokenizer): Uint8Array {
  const banned = new Uint8Array(tok.vocabSize);
  for (const [name, id] of Object.entries(tok.special)) if (name !== 'end') banned[id] = 1;
  return banned;
}

/** A policy agent over a runner (batch 1). The runner stays owned by the caller. */
export class SamplingAgent implements Agent {
  readonly name: string;
  private readonly rng: Rng;
  private readonly banned: Uint8Array;

  constructor(
    private readonly runner: LlamaRunner,
    private readonly tok: Tokenizer,
    private readonly opts: SamplingOptions,
    name?: string,
  ) {
    this.name = name ?? (opts.temperature > 0 ? `policy(T=${opts.temperature})` : 'policy(greedy)');
    this.rng = new Rng(`policy/${opts.seed}`);
    this.banned = bannedTokens(tok);
  }

  async act(dialogue: readonly Message[]): Promise<string> {
    const ids = windowIds(this.tok, toChat(dialogue), this.opts.contextTokens, this.opts.maxReplyTokens);
    const room = this.runner.cfg.maxSeq - ids.length;
    const limit = Math.min(this.opts.maxReplyTokens, room);
    if (limit <= 0) return '';
    let step = await this.runner.prefill([ids]);
    const out: number[] = [];
    for (;;) {
      const id = sampleToken(step.logits, this.opts.temperature, this.rng, this.banned);
      if (id === this.tok.special.end) break;
      out.push(id);
      if (out.length >= limit) break;
      step = await this.runner.decode(step.state, [id]);
    }
    return this.tok.decode(out);
  }
}
