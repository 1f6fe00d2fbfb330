// The forge's training data: an endless, seeded stream of task-suite episodes played by noisy experts
// through the rollout loop (playEpisode; docs/design.md "The default models are ours"), cut into
// context-window segments (chat.ts) and packed several to a row. Packed rows use a block-diagonal
// causal attention bias and positions that restart at 0 per segment, so no token sees another
// dialogue and each segment looks exactly like a prompt at play time.
import { DEFAULT_NOISE } from '../envs/agent.ts';
import { createAgent } from '../envs/registry.ts';
import type { Episode, FamilyName } from '../envs/types.ts';
import type { PhrasingSetting } from '../envs/phrasings.ts';
import { NEG_BIAS } from '../model/llama/emit.ts';
import type { TensorData } from '../runtime/ort.ts';
import { playEpisode } from '../rollout/rollout.ts';
import { Rng } from '../util/rng.ts';
import { dataOptions, type FamilyMix } from './config.ts';

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
    return playEpisode(agent, { family: m.family, split: 'train', seed, ...(options ? { options } : {}) }, { phrasings: this.phrasings });
  }
}

/** A training sequence with a per-position weight of predicting the next token (and optional value target). */
export interface PackSegment {
  ids: number[];
  /** weight[t] of the prediction at t (of ids[t + 1], or of the value target); 0 = not trained. */
  weight: number[];
  /** Value regression targets per position (critic value head), where weight > 0. */
  returns?: number[];
}

/** One packed batch: the train step's feeds and its token count. */
export interface PackedBatch {
  feeds: Record<string, TensorData>;
  /** Real (non-padding) tokens. */
  tokens: number;
  /** Positions with weight > 0. */
  trained: number;
}

/**
 * Packs segments into `batch` rows of `seqLen` tokens, taking them from `take()` in order; a segment
 * that does not fit the rest of a row starts the next row (`pending` keeps the one that did not fit
 * the last row for the next call). Feeds: input_ids, position_ids, attention_bias, targets,
 * loss_mask, and weights or returns.
 */
export class Packer {
  private pending: PackSegment | null = null;

  constructor(
    readonly batch: number,
    readonly seqLen: number,
    readonly padId: number,
    /** 'sft': targets/loss_mask/weights; 'value': loss_mask/returns. */
    readonly kind: 'sft' | 'value',
  ) {}

  async pack(take: () => Promise<PackSegment>): Promise<PackedBatch> {
    const { batch: B, seqLen: S } = this;
    const ids = new Int32Array(B * S).fill(this.padId);
    const pos = new Int32Array(B * S);
    const bias = new Float32Array(B * S * S).fill(NEG_BIAS);
    const targets = new Int32Array(B * S);
    const mask = new Float32Array(B * S);
    const weights = new Float32Array(B * S);
    const returns = new Float32Array(B * S);
    let tokens = 0;
    let trained = 0;
    for (let b = 0; b < B; b++) {
      let used = 0;
      for (;;) {
        const seg = this.pending ?? (await take());
        this.pending = null;
        if (seg.ids.length > S) continue; // never produced by segments(); dropped defensively
        if (used + seg.ids.length > S) {
          this.pending = seg;
          break;
        }
        const n = seg.ids.length;
        for (let t = 0; t < n; t++) {
          const at = b * S + used + t;
          ids[at] = seg.ids[t];
          pos[at] = t;
          // causal within the segment only
          const row = (b * S + used + t) * S;
          bias.fill(0, row + used, row + used + t + 1);
          const w = t + 1 < n || this.kind === 'value' ? seg.weight[t] : 0;
          if (w > 0) {
            mask[at] = 1;
            weights[at] = w;
            trained++;
            if (this.kind === 'sft') targets[at] = seg.ids[t + 1];
            else returns[at] = seg.returns?.[t] ?? 0;
          }
        }
        used += n;
        tokens += n;
      }
      // padding attends to itself only (keeps every softmax row finite)
      for (let t = used; t < S; t++) {
        bias[(b * S + t) * S + t] = 0;
        pos[b * S + t] = 0;
      }
    }
    const feeds: Record<string, TensorData> = {
      input_ids: { type: 'int32', data: ids, dims: [B, S] },
      position_ids: { type: 'int32', data: pos, dims: [B, S] },
      attention_bias: { type: 'float32', data: bias, dims: [B, S, S] },
      loss_mask: { type: 'float32', data: mask, dims: [B, S] },
    };
    if (this.kind === 'sft') {
      feeds.targets = { type: 'int32', data: targets, dims: [B, S] };
      feeds.weights = { type: 'float32', data: weights, dims: [B, S] };
    } else feeds.returns = { type: 'float32', data: returns, dims: [B, S] };
    return { feeds, tokens, trained };
  }
}
