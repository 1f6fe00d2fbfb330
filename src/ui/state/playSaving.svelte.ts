// How Play saves an episode (docs/lab.md "Durability"): each loop event goes to the episode's store sink
// (rollout/sink.ts) before it is drawn. A store that cannot open, or refuses an episode's start, leaves
// the episode playing unsaved and says so; a turn the store refuses later (quota) stays on screen and
// in its sink's backlog (rollout/recorder.ts), and is written, in order, with the next turn or by
// Retry saving. Nothing is dropped, and the notice says how many turns wait.
import type { RolloutEvent } from '../../rl/rollout/rollout.ts';
import { storeSink, type StoreSink } from '../../rl/rollout/sink.ts';
import type { TrajectoryStore } from '../../rl/store/index.ts';
import type { ModelRef } from '../../rl/store/schema.ts';

export class PlaySaving {
  /** Set when saving failed; the episode goes on, unsaved (or with turns waiting). */
  error = $state<string | null>(null);
  /** Turns on screen the store refused (quota), kept for retry(). */
  unsaved = $state(0);
  /** Sinks (this episode's, or an earlier one's) holding turns the store refused. */
  private refused: StoreSink[] = [];

  constructor(private readonly openedStore: () => Promise<{ store: TrajectoryStore | null; error: string | null }>) {}

  /** Where an episode is saved, once the store has opened; null (and the reason shown) when it cannot be. */
  async open(model: ModelRef): Promise<StoreSink | null> {
    const { store, error } = await this.openedStore();
    if (!store) {
      this.error = error ?? 'This episode is not being saved: the trajectory store is not open';
      return null;
    }
    try {
      return storeSink(store, model);
    } catch (e) {
      this.error = `This episode is not being saved: ${(e as Error).message}`;
      return null;
    }
  }

  /**
   * Saves one loop event. False when the store refused the episode's start: the episode goes on
   * unsaved and its sink must be dropped. A later turn refused stays in the sink's backlog.
   */
  async save(sink: StoreSink, e: RolloutEvent): Promise<boolean> {
    try {
      await sink.onEvent(e);
      if (this.refused.includes(sink)) this.recount();
      return true;
    } catch (err) {
      if (e.kind === 'start') {
        this.error = `This episode is not being saved: ${(err as Error).message}`;
        return false;
      }
      if (!this.refused.includes(sink)) this.refused.push(sink);
      this.recount((err as Error).message);
      return true;
    }
  }

  /** Writes the turns the store refused, in order; the notice says how many are still unsaved. */
  async retry(): Promise<void> {
    let error: string | undefined;
    for (const sink of [...this.refused]) await sink.flush().catch((e: Error) => (error ??= e.message));
    this.recount(error);
  }

  /** Recounts the refused turns and words the notice: why (the store's message), how many, what to do. */
  private recount(error?: string): void {
    this.refused = this.refused.filter((sink) => sink.unsaved() > 0);
    this.unsaved = this.refused.reduce((n, sink) => n + sink.unsaved(), 0);
    if (this.unsaved === 0) {
      if (this.error?.includes('not saved yet')) this.error = null;
      return;
    }
    const turns = this.unsaved === 1 ? '1 turn is' : `${this.unsaved} turns are`;
    this.error = `${turns} not saved yet${error ? `: ${error}` : '.'} They stay on screen and are saved, in order, with the next turn or by Retry saving.`;
  }
}
