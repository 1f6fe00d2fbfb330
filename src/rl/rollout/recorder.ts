// Writes an episode to the trajectory store as it happens: the task when it starts, then each agent
// turn and the reply it got, each committed before the next agent step (durability: a page closed
// mid-episode keeps every completed turn). Used by the Play view and by rollouts.
import type { EpisodeTurn, Task } from '../envs/types.ts';
import type { ModelRef, TrajectoryStore, TurnInput } from '../store/index.ts';

/** What the agent side of a turn adds beyond the environment's record (model turns only). */
export interface AgentTurnExtras {
  tokens?: ArrayLike<number> | null;
  logprobs?: ArrayLike<number> | null;
  promptTokens?: number;
  completionTokens?: number;
  latencyMs?: number;
  /** "wasm", "webgpu", "node", or "scripted" for scripted agents. */
  backend?: string;
}

/** The store records of one environment turn: the agent's message, then the reply it received. */
export function turnRecords(turn: EpisodeTurn, collaborative: boolean, extras: AgentTurnExtras = {}): [TurnInput, TurnInput] {
  const agent: TurnInput = {
    role: 'agent',
    text: turn.action,
    tokens: extras.tokens ?? null,
    logprobs: extras.logprobs ?? null,
    promptTokens: extras.promptTokens ?? 0,
    completionTokens: extras.completionTokens ?? 0,
    reward: turn.reward,
    done: turn.done,
    latencyMs: extras.latencyMs ?? 0,
    backend: extras.backend ?? 'scripted',
    info: turn.info,
  };
  const reply: TurnInput = {
    role: collaborative ? 'collaborator' : 'env',
    text: turn.observation,
    done: turn.done,
    backend: turn.replySource === 'person' ? 'human' : collaborative ? 'simulator' : 'env',
    info: turn.reply !== null && turn.reply !== turn.observation ? { reply: turn.reply } : {},
  };
  return [agent, reply];
}

/** One episode's writer. Methods resolve once the store has committed. */
export class EpisodeRecorder {
  private turns = 0;
  private totalReward = 0;
  /** True once a turn that ended the episode has been handed over. */
  finished = false;
  /** Writes run one after another even when callers do not await (e.g. from an onTurn callback). */
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly store: TrajectoryStore,
    readonly episodeId: string,
    private readonly collaborative: boolean,
  ) {}

  static async begin(store: TrajectoryStore, task: Task, model: ModelRef, opts: { collaborative: boolean; runId?: string | null }): Promise<EpisodeRecorder> {
    const summary = await store.beginEpisode({
      runId: opts.runId ?? null,
      task: { family: task.spec.family, split: task.spec.split, seed: task.spec.seed, options: task.spec.options ?? {}, hidden: task.hidden },
      model,
    });
    await store.appendTurn(summary.id, { role: 'system', text: task.prompt, backend: 'env' });
    return new EpisodeRecorder(store, summary.id, opts.collaborative);
  }

  /** Appends one turn (two records) and, when it ends the episode, the outcome. */
  turn(turn: EpisodeTurn, extras: AgentTurnExtras = {}): Promise<void> {
    if (turn.done) this.finished = true;
    this.queue = this.queue.then(() => this.write(turn, extras));
    return this.queue;
  }

  /** Resolves when every turn handed over so far is committed. */
  flushed(): Promise<void> {
    return this.queue;
  }

  private async write(turn: EpisodeTurn, extras: AgentTurnExtras): Promise<void> {
    const [agent, reply] = turnRecords(turn, this.collaborative, extras);
    await this.store.appendTurn(this.episodeId, agent);
    await this.store.appendTurn(this.episodeId, reply);
    this.turns++;
    this.totalReward += turn.reward;
    if (turn.done) await this.store.finishEpisode(this.episodeId, { success: turn.info.success, totalReward: this.totalReward, turns: this.turns });
  }

  /** Ends an unfinished episode (the person started another, or gave up). */
  async abort(reason: string): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.store.abortEpisode(this.episodeId, reason);
  }
}
