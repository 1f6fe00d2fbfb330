// A rollout listener that persists every episode into the trajectory store as it is played (one
// EpisodeRecorder per episode): the task at 'start', each turn committed before the rollout's next
// agent step (the loop awaits the listener), the outcome with the episode's last turn. An episode
// stopped by the rollout's turn limit, not by its environment, is closed as aborted with that reason.
import type { ModelRef, TrajectoryStore } from '../store/index.ts';
import { EpisodeRecorder } from './recorder.ts';
import { isCollaborative, type RolloutEvent } from './rollout.ts';

/** A listener for runSlots/rollout that writes to `store`; `ids` maps slot → stored episode id. */
export function storeSink(store: TrajectoryStore, model: ModelRef, opts: { runId?: string | null } = {}): { onEvent: (e: RolloutEvent) => Promise<void>; ids: Map<number, string> } {
  const recorders = new Map<number, EpisodeRecorder>();
  const ids = new Map<number, string>();
  const onEvent = async (e: RolloutEvent): Promise<void> => {
    if (e.kind === 'start') {
      const rec = await EpisodeRecorder.begin(store, e.task, model, { collaborative: isCollaborative(e.task.spec.family), runId: opts.runId ?? null });
      recorders.set(e.slot, rec);
      ids.set(e.slot, rec.episodeId);
    } else if (e.kind === 'turn') {
      await recorders.get(e.slot)?.turn(e.turn);
    } else {
      const rec = recorders.get(e.slot);
      recorders.delete(e.slot);
      if (rec && !rec.finished) await rec.abort(e.episode.truncated ? 'stopped at the rollout turn limit' : 'ended without a final turn');
    }
  };
  return { onEvent, ids };
}
