// A rollout listener that persists every episode into the trajectory store as it is played (one
// EpisodeRecorder per episode): the task at 'start', each turn committed before the rollout's next
// agent step (the loop awaits the listener), the outcome with the episode's last turn. An episode
// stopped by the rollout's turn limit, not by its environment, is closed as aborted with that reason.
// Every rollout the lab runs goes through here when storing is on: Play (through its recorder),
// training (algos/loop.ts) and Evaluate (ui/state/evaluate.svelte.ts); each tags its episodes with a
// run id (the store lists them by run) and the model and adapter that played them.
import type { JsonObject } from '../envs/types.ts';
import type { ModelRef, RunInput, TrajectoryStore } from '../store/index.ts';
import { EpisodeRecorder, type EpisodeWriter } from './recorder.ts';
import { isCollaborative, type RolloutEvent } from './rollout.ts';
import type { Turn } from '../envs/turn.ts';

/** What the sink needs of a store: the episode writes and the run table. */
export type TrajectoryWriter = EpisodeWriter & Pick<TrajectoryStore, 'getRun' | 'createRun'>;

/** A stored episode a slot continues (its turns replayed as the slot's prefix) instead of beginning a new one. */
export interface ResumedEpisode {
  episodeId: string;
  /** The stored turns, as turn.ts turnsOf reads them. */
  turns: readonly Turn[];
}

/** A rollout listener and the stored episode id of each slot. */
export interface StoreSink {
  onEvent: (e: RolloutEvent) => Promise<void>;
  /** slot → stored episode id */
  ids: Map<number, string>;
  /** Closes every episode still open as aborted (the rollout was stopped before they ended). */
  abort: (reason: string) => Promise<void>;
  /** Turns the store refused (recorder.ts backlog), still to be written. */
  unsaved: () => number;
  /** Tries those turns again now, in order (each later turn also does); rejects with the store's error. */
  flush: () => Promise<void>;
}

/**
 * A listener for runSlots/rollout that writes to `store`; `ids` maps slot → stored episode id.
 * `resumed` names the slots that continue a stored episode (Play resuming an interrupted one).
 */
export function storeSink(
  store: TrajectoryWriter,
  model: ModelRef,
  opts: { runId?: string | null; resumed?: Readonly<Record<number, ResumedEpisode>> } = {},
): StoreSink {
  const recorders = new Map<number, EpisodeRecorder>();
  const ids = new Map<number, string>();
  /** Episodes the rollout is done with whose last writes the store refused: kept until a flush writes them. */
  const closing = new Set<EpisodeRecorder>();
  /** Writes what `rec` still owes (its turns, then the abort when `reason` is given); on refusal it stays in `closing`. */
  const close = async (rec: EpisodeRecorder, reason: string | null): Promise<void> => {
    closing.add(rec);
    await (reason !== null && !rec.finished ? rec.abort(reason) : rec.flush());
    closing.delete(rec);
  };
  const onEvent = async (e: RolloutEvent): Promise<void> => {
    if (e.kind === 'start') {
      const collaborative = isCollaborative(e.task.spec.family);
      const resumed = opts.resumed?.[e.slot];
      const rec = resumed
        ? EpisodeRecorder.resumed(store, resumed.episodeId, resumed.turns, { collaborative })
        : await EpisodeRecorder.begin(store, e.task, model, { collaborative, runId: opts.runId ?? null });
      recorders.set(e.slot, rec);
      ids.set(e.slot, rec.episodeId);
    } else if (e.kind === 'turn') {
      await recorders.get(e.slot)?.turn(e.turn);
    } else {
      const rec = recorders.get(e.slot);
      recorders.delete(e.slot);
      if (rec) await close(rec, e.episode.truncated ? 'stopped at the rollout turn limit' : 'ended without a final turn');
    }
  };
  const abort = async (reason: string): Promise<void> => {
    const open = [...recorders.values()];
    recorders.clear();
    for (const rec of open) closing.add(rec);
    for (const rec of open) await close(rec, reason);
  };
  const unsaved = () => [...recorders.values(), ...closing].reduce((n, r) => n + r.unsaved, 0);
  const flush = async (): Promise<void> => {
    for (const rec of recorders.values()) await rec.flush();
    for (const rec of [...closing]) {
      await rec.flush();
      closing.delete(rec);
    }
  };
  return { onEvent, ids, abort, unsaved, flush };
}

/** Creates the run record `run.id` unless the store has it (a resumed training run keeps its record). */
export async function ensureRun(store: TrajectoryWriter, run: RunInput & { id: string }): Promise<void> {
  if (!(await store.getRun(run.id))) await store.createRun(run);
}

/** Run settings as JSON: drops what JSON cannot hold (undefined fields), as the JSONL line will. */
export function jsonSettings(settings: object): JsonObject {
  return JSON.parse(JSON.stringify(settings)) as JsonObject;
}

/** A new run `run` in `store` and a sink that writes a rollout's episodes under it, tagged with `model`. */
export async function openRunSink(store: TrajectoryWriter, run: RunInput, model: ModelRef): Promise<StoreSink & { runId: string }> {
  const { id } = await store.createRun(run);
  return { ...storeSink(store, model, { runId: id }), runId: id };
}

/** Chains two rollout listeners: `first` sees each event before `second`. */
export function bothListeners(
  first: ((e: RolloutEvent) => void | Promise<void>) | undefined,
  second: ((e: RolloutEvent) => void | Promise<void>) | undefined,
): (e: RolloutEvent) => Promise<void> {
  return async (e) => {
    await first?.(e);
    await second?.(e);
  };
}
