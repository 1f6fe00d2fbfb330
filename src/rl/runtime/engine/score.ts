// Scoring without sampling: log π(x_j | x_<j) of every token of whole sequences in one run of the
// scoring graph (targets = the next token), and the critic's value head V(x_≤j) where the model has
// one. Continuation log-probs, reference log-probs (adapter off) and SWEET-RL's per-turn
// log π_critic(a_t | o_t, c) (arXiv 2503.15478) are ranges of these.
import { encodeChat, type ChatMessage } from '../../model/tokenizer/chat.ts';
import { leftPad, prefillFeeds, targetFeed } from '../../model/llama/feeds.ts';
import type { AdapterFeeds } from './adapters.ts';
import { EngineInputError } from './errors.ts';
import type { LoadedLm } from './lm.ts';
import { keepsAnswered } from '../../model/meta.ts';
import { checkSequenceFits, encodePrompt } from './prompts.ts';
import type { Ticket } from './requests.ts';
import type { ScoredItem, ScoreItem, TurnScore } from './types.ts';

/** Rows per scoring run: bounds the [rows, seq, vocab] logits ONNX Runtime holds internally. */
export const SCORE_ROWS = 8;

/** Per sequence: lp[j] = log π(ids[j] | ids[<j]) (lp[0] = 0) and, for a critic, values[j] = V after ids[j]. */
export interface SequenceScores {
  logprobs: Float32Array;
  values?: Float32Array;
}

export async function scoreSequences(lm: LoadedLm, feeds: AdapterFeeds, ticket: Ticket, seqs: number[][]): Promise<SequenceScores[]> {
  const out: SequenceScores[] = new Array(seqs.length);
  const session = await lm.score();
  // Runs take sequences in length order, so each run is left-padded only to its neighbours' length
  // (a training iteration's rows range from ~60 to ~250 tokens); results go back in input order.
  const order = seqs.map((_, i) => i).sort((a, b) => seqs[a].length - seqs[b].length);
  for (let c = 0; c < seqs.length; c += SCORE_ROWS) {
    ticket.check();
    const members = order.slice(c, c + SCORE_ROWS);
    const chunk = members.map((i) => seqs[i]);
    const batch = leftPad(chunk, lm.tokenizer.special.pad);
    const targets = new Int32Array(batch.batch * batch.seq).fill(-1);
    chunk.forEach((ids, b) => {
      const off = b * batch.seq + batch.seq - ids.length;
      for (let j = 0; j + 1 < ids.length; j++) targets[off + j] = ids[j + 1];
    });
    const res = await session.run({ ...prefillFeeds(lm.cfg, batch), ...targetFeed(lm.cfg, targets, batch.batch, batch.seq), ...feeds });
    const lp = res.logprobs.data as Float32Array;
    const v = res.values?.data as Float32Array | undefined;
    chunk.forEach((ids, b) => {
      const off = b * batch.seq + batch.seq - ids.length;
      const logprobs = new Float32Array(ids.length);
      for (let j = 1; j < ids.length; j++) logprobs[j] = lp[off + j - 1];
      out[members[b]] = { logprobs, ...(v ? { values: v.slice(off, off + ids.length) } : {}) };
    });
  }
  return out;
}

function summarise(lp: ArrayLike<number>): { sum: number; mean: number } {
  let sum = 0;
  for (let i = 0; i < lp.length; i++) sum += lp[i];
  return { sum, mean: lp.length ? sum / lp.length : 0 };
}

/** log-probs of each item's continuation after its context. */
export async function scoreItems(lm: LoadedLm, feeds: AdapterFeeds, ticket: Ticket, items: readonly ScoreItem[]): Promise<ScoredItem[]> {
  if (!Array.isArray(items) || items.length === 0) throw new EngineInputError('score: items must be a non-empty list');
  const tok = lm.tokenizer;
  // a windowed context names its budget and reserve; the window rule is the model's own
  const window = { reserve: 0, keepAnswered: keepsAnswered(lm.info.turnwise) };
  const parts = items.map((item, i) => {
    const context = encodePrompt(tok, item.context, `score item ${i} context`, window);
    const cont = typeof item.continuation === 'string' ? tok.encode(item.continuation) : item.continuation;
    if (!Array.isArray(cont)) throw new EngineInputError(`score item ${i}: continuation must be text or token ids`);
    cont.forEach((id, j) => {
      if (!Number.isInteger(id) || id < 0 || id >= tok.vocabSize)
        throw new EngineInputError(`score item ${i}: continuation[${j}] = ${id} is outside the vocabulary [0, ${tok.vocabSize})`);
    });
    checkSequenceFits(context.length + cont.length, lm.cfg.maxSeq, `score item ${i}`);
    return { context, cont };
  });
  const scores = await scoreSequences(
    lm,
    feeds,
    ticket,
    parts.map((p) => [...p.context, ...p.cont]),
  );
  return parts.map((p, i) => {
    const logprobs = Array.from(scores[i].logprobs.subarray(p.context.length));
    const v = scores[i].values;
    const values = v ? { contextValue: v[p.context.length - 1], values: Array.from(v.subarray(p.context.length)) } : {};
    return { tokens: p.cont, logprobs, ...summarise(logprobs), ...values };
  });
}

/** Per turn of `role`: log-probs of its content and <|end|>, and the value at its role token. */
export async function scoreTurns(
  lm: LoadedLm,
  feeds: AdapterFeeds,
  ticket: Ticket,
  episodes: readonly ChatMessage[][],
  role: ChatMessage['role'],
): Promise<TurnScore[][]> {
  if (!Array.isArray(episodes) || episodes.length === 0) throw new EngineInputError('scoreTurns: episodes must be a non-empty list');
  const encoded = episodes.map((messages, e) => {
    encodePrompt(lm.tokenizer, { messages }, `episode ${e}`); // validates the messages
    const enc = encodeChat(lm.tokenizer, messages);
    checkSequenceFits(enc.ids.length, lm.cfg.maxSeq, `episode ${e}`);
    return enc;
  });
  const scores = await scoreSequences(
    lm,
    feeds,
    ticket,
    encoded.map((e) => e.ids),
  );
  return encoded.map((enc, e) =>
    enc.spans
      .filter((s) => s.role === role)
      .map((s): TurnScore => {
        const logprobs = Array.from(scores[e].logprobs.subarray(s.start, s.end));
        const value = scores[e].values?.[s.roleAt];
        return { message: s.message, tokens: s.end - s.start, logprobs, ...summarise(logprobs), ...(value !== undefined ? { value } : {}) };
      }),
  );
}
