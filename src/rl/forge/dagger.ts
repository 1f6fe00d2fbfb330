// The forge's DAgger stage (Ross, Gordon & Bagnell 2011, "A Reduction of Imitation Learning and
// Structured Prediction to No-Regret Online Learning", Algorithm 3.1, with β = 0 after the first
// round: the learner alone drives the rollouts). Imitating a teacher's dialogues only shows the
// policy the teacher's states; once the policy errs it is somewhere it has never been and errs again.
// Here the forged policy plays train-split tasks itself (sampled at T = 1, the way the lab measures
// it), the family's scripted expert — a function of the visible dialogue only (envs/agent.ts) — labels
// every state the policy visited, and the next SFT round trains on the aggregate of all rounds'
// labelled states mixed with fresh teacher dialogues (so the other families' skills are not forgotten).
//
// Two kinds of training chat come from one policy episode (model/tokenizer/dialogue.ts segments with
// per-agent-turn weights): the episode itself, training only the turns where the policy did what the
// expert would (weight 1; the others 0: they are mistakes), and, for each turn where it did not, the
// dialogue up to that state followed by the expert's move, the only trained tokens.
import { dialogueOf } from '../envs/episode.ts';
import type { Episode, Message } from '../envs/types.ts';
import { FAMILIES, type FamilyName } from '../envs/registry.ts';
import type { PhrasingSetting } from '../envs/phrasings.ts';
import { segments, toChat } from '../model/tokenizer/dialogue.ts';
import type { Tokenizer } from '../model/tokenizer/tokenizer.ts';
import type { GenerateApi } from '../runtime/engine/types.ts';
import { PolicyBatchAgent } from '../rollout/agents.ts';
import { judgeTurns } from '../rollout/agreement.ts';
import { rollout, taskSpecs } from '../rollout/rollout.ts';
import { Rng } from '../util/rng.ts';
import { dataOptions, type DaggerBlock, type FamilyMix } from './config.ts';
import { teacherMove, type PackSegment } from './data.ts';

/**
 * A block of rounds' seeds: its label pool, its teacher dialogues and its first round's tasks (round r
 * plays tasks of seed `play + r`). The first two blocks keep the seeds they had before the finish
 * could hold rounds, so earlier presets forge what they forged.
 */
export function daggerSeeds(seed: number, block: DaggerBlock): { pool: string; teacher: string; play: number } {
  if (block === 'dagger') return { pool: `${seed}`, teacher: `${seed}/policy/dagger`, play: seed * 1_000 };
  if (block === 'final') return { pool: `${seed}/final`, teacher: `${seed}/policy/final-dagger`, play: seed * 1_000 + 500 };
  const step = Number(block.slice('finish '.length));
  return { pool: `${seed}/${block}`, teacher: `${seed}/policy/finish-${step}-dagger`, play: seed * 1_000_000 + 1_000 * step };
}

/** One labelled chat: the dialogue and a weight per agent turn, in order. */
export interface LabelledChat {
  dialogue: Message[];
  agentWeights: number[];
  /** Weight of the collaborator's/environment's tokens (0 for a state's label: they were trained with the episode). */
  obsWeight: number;
}

/** What one round of policy play showed, per family. */
export interface DaggerRoundStats {
  family: FamilyName;
  episodes: number;
  /** The policy's own success on these train-split tasks (sampled). */
  successRate: number;
  /** Agent turns whose text equals the expert's move on the same state. */
  agreement: number;
  turns: number;
  /** Turns on states no moves could win from, left unlabelled (`DaggerPlay.skipLost`). */
  unlabelled: number;
}

/**
 * The labelled chats of one policy episode (see the file comment); `expert` reads a visible dialogue.
 * With `lost`, a state no moves can win from is neither trained nor labelled (`unlabelled` counts them):
 * the expert's move there is a placeholder. A sokoban policy at 47% spent 43% of its turns on such
 * boards, and rounds trained on their placeholder took its success on the rounds' tasks 42% → 18%
 * in one round (docs/experiments/2026-12-08-sokoban-dagger-lost-boards.md).
 */
export function labelEpisode(
  ep: Pick<Episode, 'task' | 'turns'>,
  expert: (dialogue: readonly Message[]) => string,
  obsWeight: number,
  lost?: (dialogue: readonly Message[]) => boolean,
): { chats: LabelledChat[]; agreed: number; unlabelled: number } {
  const { labels, agree } = judgeTurns(ep, expert);
  const live = ep.turns.map((_, t) => !lost?.(dialogueOf(ep.task.prompt, ep.turns.slice(0, t))));
  const chats: LabelledChat[] = [];
  const trained = agree.map((a, t) => a && live[t]);
  if (trained.some(Boolean)) chats.push({ dialogue: dialogueOf(ep.task.prompt, ep.turns), agentWeights: trained.map((a) => (a ? 1 : 0)), obsWeight });
  agree.forEach((a, t) => {
    if (a || !live[t]) return;
    const state = dialogueOf(ep.task.prompt, ep.turns.slice(0, t));
    chats.push({ dialogue: [...state, { role: 'assistant', content: labels[t] }], agentWeights: [...new Array<number>(t).fill(0), 1], obsWeight: 0 });
  });
  return { chats, agreed: trained.filter(Boolean).length, unlabelled: live.filter((l) => !l).length };
}

/** Training segments of labelled chats, cut the way the policy's context window shows them. */
export function labelledSegments(tok: Tokenizer, chats: readonly LabelledChat[], seqLen: number, keepAnswered = false): PackSegment[] {
  return chats.flatMap((c) => segments(tok, toChat(c.dialogue), seqLen, c.obsWeight, { agentWeights: c.agentWeights, keepAnswered }));
}

/** Settings of one round's play. */
export interface DaggerPlay {
  mix: readonly FamilyMix[];
  /** Episodes in all, shared over the mixture's families by weight (at least one each). */
  episodes: number;
  /** Task and sampling seed of this round. */
  seed: number;
  maxReplyTokens: number;
  obsWeight: number;
  /** The collaborators' wording (the forge's `phrasings`). */
  phrasings?: PhrasingSetting;
  /** The expert's frontend drafts with their CSS spaced, as the teachers' (the forge's `spacedCss`). */
  spacedCss?: boolean;
  /** Leave states no moves can win from unlabelled (the family's `lost`; `DaggerConfig.skipLost`). */
  skipLost?: boolean;
}

/** Plays the engine's 'policy' on train-split tasks and labels what it visited. */
export async function playAndLabel(engine: GenerateApi, o: DaggerPlay): Promise<{ chats: LabelledChat[]; stats: DaggerRoundStats[] }> {
  const total = o.mix.reduce((a, m) => a + m.weight, 0);
  const agent = await PolicyBatchAgent.create(engine, { sampling: { temperature: 1, maxNewTokens: o.maxReplyTokens } });
  const chats: LabelledChat[] = [];
  const stats: DaggerRoundStats[] = [];
  for (const [i, m] of o.mix.entries()) {
    const n = Math.max(1, Math.round((o.episodes * m.weight) / total));
    // task seeds far from the teacher streams' and the held-out check's, one block per round and family
    const tasks = taskSpecs(m.family, 'train', n, 900_000_000 + o.seed * 10_000 + i * 1_000, dataOptions(m));
    let episodes;
    try {
      ({ episodes } = await rollout({ tasks, k: 1, seed: o.seed }, agent, { phrasings: o.phrasings ?? 'canonical' }));
    } catch (e) {
      // a family whose prompts do not fit the context (a small smoke model) has no states to label
      if ((e as Error).name !== 'PromptTooLongError') throw e;
      stats.push({ family: m.family, episodes: 0, successRate: 0, agreement: 0, turns: 0, unlabelled: 0 });
      continue;
    }
    const { expert: scripted, lost } = FAMILIES[m.family].agents;
    const expert = o.spacedCss ? (d: readonly Message[]) => teacherMove(m.family, scripted(d)) : scripted;
    let agreed = 0;
    let turns = 0;
    let unlabelled = 0;
    for (const ep of episodes) {
      const l = labelEpisode(ep, expert, o.obsWeight, o.skipLost ? lost : undefined);
      chats.push(...l.chats);
      agreed += l.agreed;
      turns += ep.turns.length;
      unlabelled += l.unlabelled;
    }
    stats.push({
      family: m.family,
      episodes: episodes.length,
      successRate: episodes.filter((e) => e.success).length / episodes.length,
      agreement: turns ? agreed / turns : 0,
      turns,
      unlabelled,
    });
  }
  return { chats, stats };
}

/**
 * The aggregate data set of all rounds so far (DAgger's D ← D ∪ D_i) as a segment source: with
 * probability `share` a uniformly drawn labelled segment, else the teacher stream's next segment.
 */
export class DaggerPool {
  private readonly pool: PackSegment[] = [];
  private readonly rng: Rng;

  constructor(seed: string) {
    this.rng = new Rng(`forge/dagger/${seed}`);
  }

  add(segs: readonly PackSegment[]): void {
    this.pool.push(...segs);
  }

  get size(): number {
    return this.pool.length;
  }

  source(share: number, teacher: () => Promise<PackSegment>): () => Promise<PackSegment> {
    return async () => (this.pool.length > 0 && this.rng.chance(share) ? this.pool[this.rng.int(this.pool.length)] : teacher());
  }
}
