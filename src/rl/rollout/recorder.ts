// Writes an episode to the trajectory store as it happens: the task and its prompt when it starts,
// then each agent turn with the reply it got — and the outcome with the last one — in one transaction
// per turn, committed before the next agent step and before the turn is drawn (durability: a page
// killed at any moment keeps every completed turn whole, never an agent message without its reply). Used by the Play view and by rollouts (sink.ts). A turn
// becomes its two message records in store/turn.ts messagesOf, nowhere else.
import type { Task } from '../envs/types.ts';
import type { ModelRef, TrajectoryStore } from '../store/index.ts';
import type { Turn } from '../envs/turn.ts';
import { messagesOf } from '../store/turn.ts';

/** What a recorder needs of a store. */
export type EpisodeWriter = Pick<TrajectoryStore, 'beginEpisode' | 'commitTurn' | 'abortEpisode'>;

/**
 * One episode's writer. Methods resolve once the store has committed. A turn the store refuses
 * (quota exceeded, say) is kept, in order, and written before the next one: each later turn, and
 * flush(), try the backlog again, so a write that failed costs nothing once space is freed, and no
 * turn is ever stored out of order or skipped.
 */
export class EpisodeRecorder {
  private turns = 0;
  private totalReward = 0;
  /** True once a turn that ended the episode has been handed over. */
  finished = false;
  /** Turns handed over and not yet committed, oldest first. */
  private backlog: Turn[] = [];
  /** An abort asked for and not yet committed: it goes after the backlog, never before a turn. */
  private closeReason: string | null = null;
  /** Writes run one after another even when callers do not await (e.g. from an onTurn callback). */
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly store: EpisodeWriter,
    readonly episodeId: string,
    private readonly collaborative: boolean,
  ) {}

  static async begin(store: EpisodeWriter, task: Task, model: ModelRef, opts: { collaborative: boolean; runId?: string | null }): Promise<EpisodeRecorder> {
    const summary = await store.beginEpisode({
      runId: opts.runId ?? null,
      task: { family: task.spec.family, split: task.spec.split, seed: task.spec.seed, options: task.spec.options ?? {}, hidden: task.hidden },
      model,
      records: [{ role: 'system', text: task.prompt, backend: 'env' }],
    });
    return new EpisodeRecorder(store, summary.id, opts.collaborative);
  }

  /**
   * Goes on writing an episode the store already holds (an interrupted one this session took over
   * with resumeEpisode), whose stored records are `turns`: the outcome counts them too.
   */
  static resumed(store: EpisodeWriter, episodeId: string, turns: readonly Turn[], opts: { collaborative: boolean }): EpisodeRecorder {
    const rec = new EpisodeRecorder(store, episodeId, opts.collaborative);
    rec.turns = turns.length;
    rec.totalReward = turns.reduce((a, t) => a + t.reward, 0);
    return rec;
  }

  /** Appends one turn (two records) and, when it ends the episode, the outcome; rejects while any turn is unwritten. */
  turn(turn: Turn): Promise<void> {
    if (turn.done) this.finished = true;
    this.backlog.push(turn);
    return this.flush();
  }

  /** Writes every turn not yet committed, in order; resolves when none is left, rejects with the store's error. */
  flush(): Promise<void> {
    const run = this.queue.then(() => this.drain());
    this.queue = run.catch(() => undefined); // a refused write must not block the retries behind it
    return run;
  }

  /** Turns handed over that the store has not committed (they are retried by the next turn or flush). */
  get unsaved(): number {
    return this.backlog.length;
  }

  private async drain(): Promise<void> {
    while (this.backlog.length) {
      await this.write(this.backlog[0]);
      this.backlog.shift();
    }
    if (this.closeReason !== null) {
      await this.store.abortEpisode(this.episodeId, this.closeReason);
      this.closeReason = null;
    }
  }

  private async write(turn: Turn): Promise<void> {
    const [agent, reply] = messagesOf(turn, this.collaborative);
    const outcome = turn.done ? { success: turn.info.success, totalReward: this.totalReward + turn.reward, turns: this.turns + 1 } : null;
    await this.store.commitTurn(this.episodeId, [agent, reply], outcome);
    this.turns++;
    this.totalReward += turn.reward;
  }

  /**
   * Ends an unfinished episode (the person started another, or gave up), after its unwritten turns:
   * while the store refuses them it rejects, and flush() later writes both the turns and the abort.
   */
  abort(reason: string): Promise<void> {
    this.closeReason = reason;
    return this.flush();
  }
}
