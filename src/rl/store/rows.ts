// What the store writes when an episode begins and as each turn is committed, built from the API's
// inputs (api.ts): defaults filled in, token arrays typed for IndexedDB, and the one check an input
// can fail before any transaction opens (tokens and log-probs of different lengths).
import type { EpisodeRow, MessageRow } from './db.ts';
import { StoreError } from './errors.ts';
import type { BeginEpisodeInput, MessageInput } from './api.ts';

/** A new episode's row: in progress in session `sessionId`, no turns yet (beginEpisode counts its opening records). */
export function newEpisodeRow(input: BeginEpisodeInput, id: string, taskKey: string, sessionId: string, now: number): EpisodeRow {
  return {
    id,
    runId: input.runId ?? '',
    taskKey,
    family: input.task.family,
    split: input.task.split,
    seed: input.task.seed,
    status: 'in-progress',
    outcome: null,
    outcomeKey: 'none',
    model: { policy: input.model.policy, adapter: input.model.adapter, critic: input.model.critic },
    sessionId,
    turnCount: 0,
    agentTurns: 0,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
    abortReason: null,
    imported: null,
    live: 1,
    deletedAt: null,
  };
}

/** A message record as stored, less its index (given inside the transaction that writes it). */
export function messageRow(episodeId: string, turn: MessageInput, at: number): Omit<MessageRow, 'index'> {
  const tokens = turn.tokens ? Int32Array.from(turn.tokens) : null;
  const logprobs = turn.logprobs ? Float32Array.from(turn.logprobs) : null;
  if (tokens && logprobs && tokens.length !== logprobs.length) {
    throw new StoreError('invalid', `turn has ${tokens.length} tokens but ${logprobs.length} log-probs`);
  }
  return {
    episodeId,
    role: turn.role,
    text: turn.text,
    tokens,
    logprobs,
    promptTokens: turn.promptTokens ?? 0,
    completionTokens: turn.completionTokens ?? 0,
    reward: turn.reward ?? 0,
    done: turn.done ?? false,
    latencyMs: turn.latencyMs ?? 0,
    backend: turn.backend ?? '',
    info: turn.info ?? {},
    at,
  };
}

/** How many of `records` are the agent's messages (the turns they add). */
export const agentCount = (records: readonly { role: string }[]): number => records.filter((r) => r.role === 'agent').length;
