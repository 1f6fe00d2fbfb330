// The forge's training data: an endless, seeded stream of task-suite episodes played by noisy experts
// through the rollout loop (playEpisode; docs/design.md "The default models are ours"), cut into
// context-window segments (chat.ts) and packed several to a row by the training driver
// (algos/driver.ts RowStream, rows.ts packRows): a block-diagonal causal attention bias and positions
// that restart at 0 per segment, so no token sees another dialogue and each segment looks exactly like
// a prompt at play time.
import { DEFAULT_NOISE } from '../envs/agent.ts';
import type { Episode } from '../envs/types.ts';
import { createAgent, type FamilyName } from '../envs/registry.ts';
import type { PhrasingSetting } from '../envs/phrasings.ts';
import { RowStream } from '../algos/driver.ts';
import type { Row } from '../algos/rows.ts';
import type { ModelConfig } from '../model/llama/config.ts';
import { playEpisode } from '../rollout/rollout.ts';
import { Rng } from '../util/rng.ts';
import { dataOptions, type FamilyMix } from './config.ts';
import { spacedDraft } from '../envs/frontend/agents.ts';

/** Which scripted agent plays an episode. */
export type Player = { kind: 'noisy'; noise: number } | { kind: 'expert' } | { kind: 'random' };

/** The forge's teacher: the noisy expert (mistake rate by family), or with probability expertShare the noise-free expert. */
export function teacher(noise: (family: FamilyName) => number, expertShare: number): (rng: Rng, family: FamilyName) => Player {
  return (rng, family) => (expertShare > 0 && rng.chance(expertShare) ? { kind: 'expert' } : { kind: 'noisy', noise: noise(family) });
}

/** Seeded episodes over a family mixture; episode i of family f uses task seed `base + i` of the train split. */
export class EpisodeStream {
  private readonly rng: Rng;
  private readonly counts = new Map<FamilyName, number>();
  private readonly total: number;

  constructor(
    private readonly mix: readonly FamilyMix[],
    seed: number | string,
    /** Chooses the player of each episode of a family (default: noisy expert at DEFAULT_NOISE). */
    private readonly player: (rng: Rng, family: FamilyName) => Player = () => ({ kind: 'noisy', noise: DEFAULT_NOISE }),
    /** How the simulated collaborators word their answers (envs/phrasings.ts; default canonical). */
    private readonly phrasings: PhrasingSetting = 'canonical',
    /** Frontend's drafts with their CSS spaced (the forge's `spacedCss`). */
    private readonly spacedCss = false,
  ) {
    this.rng = new Rng(`forge/episodes/${seed}`);
    this.total = mix.reduce((a, m) => a + m.weight, 0);
  }

  /** The next episode (families drawn by weight). */
  async next(): Promise<Episode> {
    let u = this.rng.next() * this.total;
    let m = this.mix[this.mix.length - 1];
    for (const x of this.mix) {
      if (u < x.weight) {
        m = x;
        break;
      }
      u -= x.weight;
    }
    return this.play(m);
  }

  /** The next episode of one family. */
  async play(m: FamilyMix): Promise<Episode> {
    const i = this.counts.get(m.family) ?? 0;
    this.counts.set(m.family, i + 1);
    const seed = this.rng.int(1_000_000_000);
    const p = this.player(this.rng, m.family);
    const agent = createAgent(p.kind, m.family, { seed, ...(p.kind === 'noisy' ? { noise: p.noise } : {}) });
    const options = dataOptions(m);
    const ep = await playEpisode(agent, { family: m.family, split: 'train', seed, ...(options ? { options } : {}) }, { phrasings: this.phrasings });
    return this.spacedCss ? teacherStyle(ep) : ep;
  }
}

/**
 * A scripted episode as the forge's `spacedCss` teaches it: frontend drafts with their CSS spaced
 * (envs/frontend/agents.ts spacedDraft), everything else as played. The page each draft describes is
 * the same, so the environment's replies stay true.
 */
export function teacherStyle(ep: Episode): Episode {
  if (ep.task.spec.family !== 'frontend') return ep;
  return { ...ep, turns: ep.turns.map((t) => ({ ...t, action: teacherMove('frontend', t.action) })) };
}

/** A scripted player's message as `spacedCss` writes it: frontend drafts spaced, other families' moves as they are. */
export function teacherMove(family: FamilyName, message: string): string {
  return family === 'frontend' ? spacedDraft(message) : message;
}

/** A training sequence with a per-position weight of predicting the next token (and optional value target). */
export interface PackSegment {
  ids: number[];
  /** weight[t] of the prediction at t (of ids[t + 1], or of the value target); 0 = not trained. */
  weight: number[];
  /** Value regression targets per position (critic value head), where weight > 0. */
  returns?: number[];
}

/** How a phase's segments become the driver's rows (algos/driver.ts): B graph rows of seqLen tokens, segments packed several to a row. */
export interface Packing {
  cfg: ModelConfig;
  batch: number;
  seqLen: number;
  padId: number;
  /** 'sft': next-token predictions weighted by `weight` (a segment's last token predicts nothing); 'value': the value head regressed on `returns`. */
  kind: 'sft' | 'value';
}

/** A segment as a training row (algos/rows.ts): loss_mask where it trains, with its weights or returns. */
export function segmentRow(seg: PackSegment, kind: Packing['kind']): Row {
  const n = seg.ids.length;
  const mask = new Array<number>(n).fill(0);
  const values = new Array<number>(n).fill(0);
  for (let t = 0; t < n; t++) {
    const w = t + 1 < n || kind === 'value' ? seg.weight[t] : 0;
    if (w <= 0) continue;
    mask[t] = 1;
    values[t] = kind === 'sft' ? w : (seg.returns?.[t] ?? 0);
  }
  return { ids: seg.ids, f: kind === 'sft' ? { loss_mask: mask, weights: values } : { loss_mask: mask, returns: values } };
}

/** The driver's row stream over a segment source: segments packed several to a graph row, in order. */
export function segmentStream(p: Packing, take: () => Promise<PackSegment>): RowStream {
  return new RowStream(p.batch, p.seqLen, async () => segmentRow(await take(), p.kind));
}
