// Training rows and fixed-shape batches for the train-step graphs (docs/training-graphs.md): a graph
// has a fixed B × T, so rows are left-padded into T (each row's last token at T − 1, as the engine's
// scoring does) or, for the forge, packed several to a graph row; a short list of rows is padded with
// empty rows (mask 0) to B. One packing (packRows) for every loss the driver (driver.ts) runs.
// Row layout: ids[j] is a token; the per-position arrays (mask, advantages, old_logp, …) are indexed
// like ids, and position j is the prediction of ids[j + 1] (logits[b, t] predict targets[b, t]) or
// the value head's V after ids[j] (value rows train the last position).
// Two row kinds:
//  - a turn row: the window the policy saw before turn t (model/tokenizer/dialogue.ts windowIds, the engine's rule)
//    followed by the reply tokens, trained on the reply: exactly the sequence generate() scored;
//  - an episode row: a whole dialogue in the chat template (policy or critic view), head plus the
//    most recent turns that fit T, trained on every agent turn kept (multi-turn DPO, SWEET-RL's critic).
import { NEG_BIAS } from '../model/llama/emit.ts';
import { tokenFeeds } from '../model/llama/feeds.ts';
import type { ModelConfig } from '../model/llama/config.ts';
import { encodeChat, type ChatMessage } from '../model/tokenizer/chat.ts';
import type { Tokenizer } from '../model/tokenizer/tokenizer.ts';
import type { TensorData } from '../runtime/ort.ts';
import { AlgoError } from './types.ts';

/** Per-position float arrays a loss may read ([T] each, aligned with ids). */
export type RowFloatName = 'loss_mask' | 'weights' | 'advantages' | 'old_logp' | 'ref_logp' | 'turn_weights' | 'returns';

/** One training sequence. */
export interface Row {
  ids: number[];
  /** Per position: the named float arrays (absent = zeros). loss_mask marks trained predictions. */
  f: Partial<Record<RowFloatName, number[]>>;
}

/** A row's agent-turn spans in prediction positions: [from, to) predict that turn's tokens. */
export interface TurnSpan {
  /** Index of the agent turn in the episode. */
  turn: number;
  from: number;
  to: number;
}

/** The turn row: `prompt` (the policy's window) then `reply`; trained on the reply's tokens. */
export function turnRow(prompt: readonly number[], reply: readonly number[], maxLen: number): Row {
  let ids = [...prompt, ...reply];
  const cut = Math.max(0, ids.length - maxLen);
  if (reply.length === 0) throw new AlgoError('bad-row', 'a turn row needs at least one reply token');
  if (reply.length >= maxLen) throw new AlgoError('bad-row', `a reply of ${reply.length} tokens does not fit a row of ${maxLen}`);
  ids = ids.slice(cut);
  const mask = new Array<number>(ids.length).fill(0);
  for (let j = ids.length - reply.length - 1; j < ids.length - 1; j++) mask[j] = 1;
  return { ids, f: { loss_mask: mask } };
}

/**
 * Extends `row` with the next agent turn of the same episode when the policy's prompt for that turn
 * starts with the whole row (the window did not cut and the reply re-encodes to its sampled tokens):
 * the new observation goes in untrained, the reply trained. Returns the reply's prediction span, or
 * null (then the turn needs its own row). One row then carries every turn the policy saw as one
 * growing context, so training costs each prefix token once instead of once per turn.
 */
export function appendTurn(row: Row, prompt: readonly number[], reply: readonly number[], maxLen: number): { from: number; to: number } | null {
  if (prompt.length < row.ids.length || prompt.length + reply.length > maxLen) return null;
  for (let j = 0; j < row.ids.length; j++) if (prompt[j] !== row.ids[j]) return null;
  const from = prompt.length - 1;
  row.ids = [...prompt, ...reply];
  for (const [name, arr] of Object.entries(row.f) as [RowFloatName, number[]][]) {
    while (arr.length < row.ids.length) arr.push(0);
    row.f[name] = arr;
  }
  const mask = row.f.loss_mask ?? [];
  for (let p = from; p < from + reply.length; p++) mask[p] = 1;
  return { from, to: from + reply.length };
}

/** The prediction span of a fresh turn row's reply (the one turnRow made). */
export function replySpan(row: Row, replyLength: number): { from: number; to: number } {
  return { from: row.ids.length - replyLength - 1, to: row.ids.length - 1 };
}

/** Sets a per-position array on positions [from, to) (values[j] for the span's token j). */
export function setSpan(row: Row, span: { from: number; to: number }, name: RowFloatName, values: ArrayLike<number> | number): void {
  const arr = row.f[name] ?? new Array<number>(row.ids.length).fill(0);
  while (arr.length < row.ids.length) arr.push(0);
  for (let p = span.from; p < span.to; p++) arr[p] = typeof values === 'number' ? values : values[p - span.from];
  row.f[name] = arr;
}

/** Sets a per-position array on the reply positions of a turn row (values[j] for reply token j). */
export function setReply(row: Row, name: RowFloatName, values: ArrayLike<number> | number): void {
  const mask = row.f.loss_mask ?? [];
  const arr = row.f[name] ?? new Array<number>(row.ids.length).fill(0);
  let j = 0;
  for (let p = 0; p < mask.length; p++) {
    if (!mask[p]) continue;
    arr[p] = typeof values === 'number' ? values : values[j];
    j++;
  }
  row.f[name] = arr;
}

/** An episode row and where its agent turns sit. */
export interface EpisodeTrainRow {
  row: Row;
  spans: TurnSpan[];
  /** Agent turns dropped from the front because the dialogue is longer than T. */
  droppedTurns: number;
}

/**
 * A whole chat as one row: the head (system, and hidden for a critic) and the latest messages that
 * fit `maxLen`; loss_mask on every kept agent message's content and <|end|>, turn_weights 1/len there.
 */
export function episodeRow(tok: Tokenizer, chat: readonly ChatMessage[], maxLen: number): EpisodeTrainRow {
  const enc = encodeChat(tok, chat);
  const headLen = chat.length > 1 && chat[1].role === 'hidden' ? 2 : 1;
  const headEnd = enc.spans[headLen - 1].end;
  const body = enc.spans.slice(headLen);
  let from = 0;
  while (from < body.length && headEnd + (enc.ids.length - body[from].roleAt) > maxLen) from++;
  if (from >= body.length) throw new AlgoError('bad-row', `the chat's head and last message do not fit a row of ${maxLen} tokens`);
  const ids = [...enc.ids.slice(0, headEnd), ...enc.ids.slice(body[from].roleAt)];
  const shift = body[from].roleAt - headEnd;
  const mask = new Array<number>(ids.length).fill(0);
  const tw = new Array<number>(ids.length).fill(0);
  const spans: TurnSpan[] = [];
  let agentIndex = 0;
  let dropped = 0;
  body.forEach((s, i) => {
    if (s.role !== 'agent') return;
    const turn = agentIndex++;
    if (i < from) {
      dropped++;
      return;
    }
    const a = s.start - 1 - shift;
    const b = s.end - 1 - shift;
    for (let p = a; p < b; p++) {
      mask[p] = 1;
      tw[p] = 1 / (b - a);
    }
    spans.push({ turn, from: a, to: b });
  });
  return { row: { ids, f: { loss_mask: mask, turn_weights: tw } }, spans, droppedTurns: dropped };
}

/**
 * Where a graph row's sequences sit: 'end' — one sequence per graph row, left-padded so its last
 * token is at T − 1 (the engine's scoring layout, so a turn row's log-probs are the rollout's);
 * 'start' — several sequences packed from position 0 (the forge's segments), padding after them.
 */
export type RowAlign = 'start' | 'end';

/**
 * The batch inputs of one graph run: token feeds, targets and the requested float arrays. Each entry
 * of `rows` fills one graph row: one Row, or several packed one after another. Every sequence's
 * positions restart at 0 and it attends causally to itself only (a block-diagonal bias), so a packed
 * sequence looks exactly like a prompt at play time; a padding position attends to itself only
 * (every softmax row stays finite). targets[t] is the next token where loss_mask[t] > 0, else the
 * pad id; float arrays are copied at every position, the last included (a value head's V after the
 * last token is trained there).
 */
export function packRows(
  cfg: ModelConfig,
  rows: readonly (Row | readonly Row[])[],
  batch: number,
  seqLen: number,
  floats: readonly RowFloatName[],
  padId: number,
  align: RowAlign = 'end',
): Record<string, TensorData> {
  if (rows.length > batch) throw new AlgoError('bad-row', `${rows.length} rows do not fit a batch of ${batch}`);
  const ids = new Int32Array(batch * seqLen).fill(padId);
  const positions = new Int32Array(batch * seqLen);
  const bias = new Float32Array(batch * seqLen * seqLen).fill(NEG_BIAS);
  const targets = new Int32Array(batch * seqLen).fill(padId);
  const arrays = Object.fromEntries(floats.map((n) => [n, new Float32Array(batch * seqLen)])) as Record<RowFloatName, Float32Array>;
  for (let b = 0; b < batch; b++) {
    const entry = rows[b];
    const seqs: readonly Row[] = entry === undefined ? [] : isRowList(entry) ? entry : [entry];
    const length = seqs.reduce((a, r) => a + r.ids.length, 0);
    if (length > seqLen) throw new AlgoError('bad-row', `row ${b} has ${length} tokens, the graph takes ${seqLen}`);
    const first = align === 'end' ? seqLen - length : 0;
    let at = first;
    for (const r of seqs) {
      const n = r.ids.length;
      const mask = r.f.loss_mask;
      for (let t = 0; t < n; t++) {
        const i = b * seqLen + at + t;
        ids[i] = r.ids[t];
        positions[i] = t;
        bias.fill(0, i * seqLen + at, i * seqLen + at + t + 1);
        if (t + 1 < n && mask && mask[t] > 0) targets[i] = r.ids[t + 1];
        for (const name of floats) {
          const src = r.f[name];
          if (src) arrays[name][i] = src[t];
        }
      }
      at += n;
    }
    for (let t = 0; t < seqLen; t++) {
      if (t >= first && t < first + length) continue;
      const i = b * seqLen + t;
      bias[i * seqLen + t] = 0;
    }
  }
  const feeds: Record<string, TensorData> = {
    ...tokenFeeds(cfg, ids, positions, bias, batch, seqLen),
    targets: { type: 'int32', data: targets, dims: [batch, seqLen] },
  };
  for (const n of floats) feeds[n] = { type: 'float32', data: arrays[n], dims: [batch, seqLen] };
  return feeds;
}

function isRowList(entry: Row | readonly Row[]): entry is readonly Row[] {
  return Array.isArray(entry);
}

/** Row-index feeds of P pairs (int32 [P]); missing pairs point at an empty padding row (zero gradient). */
export function pairFeeds(pairs: readonly [number, number][], P: number, padRow: number): Record<string, TensorData> {
  const chosen = new Int32Array(P).fill(padRow);
  const rejected = new Int32Array(P).fill(padRow);
  pairs.forEach(([c, r], i) => {
    chosen[i] = c;
    rejected[i] = r;
  });
  return { chosen: { type: 'int32', data: chosen, dims: [P] }, rejected: { type: 'int32', data: rejected, dims: [P] } };
}

/** Splits items into chunks of n (the last may be shorter). */
export function chunks<T>(items: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
  return out;
}
