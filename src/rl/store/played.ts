// A played episode (envs/types.ts Episode, as the rollout returns it) as the episode record the lab's
// store holds once rollout/sink.ts has recorded it live: the task prompt as a system record, then each
// turn as its two message records (turn.ts messagesOf, the one mapping), the outcome when the last turn
// ended the episode, else aborted with the sink's reason. Built without IndexedDB so that the CLI's
// `eval --out` and `passkt --out` write the same Turnwise JSONL the lab would export for the same
// rollout, and `credit`, `export` and `import` read it like any export.
import type { Episode } from '../envs/types.ts';
import { messagesOf } from './turn.ts';
import type { EpisodeRecord, JsonObject, ModelRef, RunRecord, MessageRecord } from './schema.ts';

/** Where a played episode belongs and when it was written. */
export interface PlayedMeta {
  /** Episode id (unique in the file). */
  id: string;
  runId: string | null;
  /** Who played it: the policy (and adapter) or the scripted agent's name. */
  model: ModelRef;
  /** True when the family's replies come from a collaborator (roles collaborator vs env; rollout.ts isCollaborative). */
  collaborative: boolean;
  /** Time stamped on every record, ms since the Unix epoch. */
  at: number;
  /** The rollout's turn limit stopped it before its environment did (RolloutEpisode.truncated). */
  truncated?: boolean;
}

/** The episode record of a played episode (what storeSink + exportRecords give, without a database). */
export function playedRecord(e: Episode, m: PlayedMeta): EpisodeRecord {
  const system: MessageRecord = {
    role: 'system',
    text: e.task.prompt,
    tokens: null,
    logprobs: null,
    promptTokens: 0,
    completionTokens: 0,
    reward: 0,
    done: false,
    latencyMs: 0,
    backend: 'env',
    info: {},
    at: m.at,
  };
  const turns: MessageRecord[] = [system];
  for (const t of e.turns) for (const msg of messagesOf(t, m.collaborative)) turns.push({ ...msg, at: m.at });
  const last = e.turns[e.turns.length - 1];
  const ended = last !== undefined && last.done;
  const totalReward = e.turns.reduce((s, t) => s + t.reward, 0);
  const s = e.task.spec;
  return {
    type: 'episode',
    id: m.id,
    runId: m.runId,
    status: ended ? 'complete' : 'aborted',
    task: { family: s.family, split: s.split, seed: s.seed, options: s.options ?? {}, hidden: e.task.hidden },
    model: { policy: m.model.policy, adapter: m.model.adapter, critic: m.model.critic },
    turns,
    // The sink's outcome: success from the ending step, the return summed over turns (recorder.ts).
    outcome: ended ? { success: last.info.success, totalReward, turns: e.turns.length } : null,
    credit: [],
    criticScores: null,
    createdAt: m.at,
    updatedAt: m.at,
    finishedAt: m.at,
    abortReason: ended ? null : m.truncated ? 'stopped at the rollout turn limit' : 'ended without a final turn',
  };
}

/** A run record for a CLI rollout (no training: algorithm names the command). */
export function cliRunRecord(r: { id: string; algorithm: string; policy: string; settings: JsonObject; seed: number; notes: string; at: number }): RunRecord {
  return {
    type: 'run',
    id: r.id,
    name: r.id,
    createdAt: r.at,
    models: { policy: r.policy, critic: null },
    adapterId: null,
    algorithm: r.algorithm,
    settings: r.settings,
    seed: r.seed,
    notes: r.notes,
  };
}
