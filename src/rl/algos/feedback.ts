// A person's feedback as training signal (issue #8 point 3):
//  - thumbs up/down (or a score) on an agent turn — the Play view stores them as the 'human-feedback'
//    credit row, +1 / −1 on each agent turn's record, NaN elsewhere (store/turn.ts perRecord) — become a per-turn reward: on the
//    iteration's own rollouts `applyThumbs` adds weight·value to that turn's environment reward, so
//    every algorithm sees it through returns; stored episodes enter as rated turns (FeedbackTurn);
//  - a choice between two alternative replies at the same point of a dialogue becomes a preference
//    pair (FeedbackPair).
// How each algorithm uses them (docs/training.md): SWEET-RL and multi-turn DPO add each pair to the
// policy's DPO pairs; GRPO/PPO/StarPO train rated turns with advantage weight·value and pairs as
// +weight (chosen) / −weight (rejected); rejection fine-tuning adds thumbs-up turns and chosen replies
// to its SFT rows and ignores the rest.
import type { EpisodeTurn, Task } from '../envs/types.ts';
import type { RolloutEpisode } from '../rollout/rollout.ts';

/** A rated agent turn: the dialogue before it (task + turns) and the reply that was rated. */
export interface FeedbackTurn {
  task: Task;
  /** Turns before the rated one. */
  before: EpisodeTurn[];
  action: string;
  /** The reply's sampled token ids, when recorded. */
  tokens?: number[] | null;
  /** +1 thumbs up, −1 thumbs down, or any score. */
  value: number;
}

/** Two alternative replies at the same point; the person chose `chosen`. */
export interface FeedbackPair {
  task: Task;
  before: EpisodeTurn[];
  chosen: string;
  rejected: string;
}

export interface Feedback {
  turns: FeedbackTurn[];
  pairs: FeedbackPair[];
}

/** Where feedback comes from; `take` hands over what arrived since the last call. */
export interface FeedbackSource {
  take(): Promise<Feedback>;
}

export const NO_FEEDBACK: Feedback = { turns: [], pairs: [] };

/** A copy of a rollout episode with weight·values[t] added to turn t's reward (NaN = none). */
export function applyThumbs(episode: RolloutEpisode, values: ArrayLike<number>, weight: number): RolloutEpisode {
  const turns = episode.turns.map((t, i) => {
    const v = values[i];
    return typeof v === 'number' && Number.isFinite(v) ? { ...t, reward: t.reward + weight * v } : t;
  });
  return { ...episode, turns, totalReward: turns.reduce((a, t) => a + t.reward, 0) };
}

/** Collects feedback in memory (the UI pushes into it; the loop drains it each iteration). */
export class MemoryFeedback implements FeedbackSource {
  private pending: Feedback = { turns: [], pairs: [] };

  addTurn(turn: FeedbackTurn): void {
    this.pending.turns.push(turn);
  }

  addPair(pair: FeedbackPair): void {
    this.pending.pairs.push(pair);
  }

  async take(): Promise<Feedback> {
    const out = this.pending;
    this.pending = { turns: [], pairs: [] };
    return out;
  }
}

/**
 * The episodes the update sees when LoopConfig.infoGainReward w > 0: each question's expected
 * information gain in bits (info.informationGain) times w added to its turn reward, through the same
 * per-turn addition as a person's thumbs. Episodes without the field come back unchanged.
 */
export function withInfoGainRewards(episodes: RolloutEpisode[], weight: number): RolloutEpisode[] {
  if (!(weight > 0)) return episodes;
  return episodes.map((e) => {
    const gains = e.turns.map((t) => (typeof t.info.informationGain === 'number' ? t.info.informationGain : 0));
    return gains.some((g) => g !== 0) ? applyThumbs(e, gains, weight) : e;
  });
}
