// Multi-turn DPO, SWEET-RL's trajectory-level baseline (arXiv 2503.15478 §5): pairs of episodes of
// the same task (by default drawn ∝ their return gap, our deviation for stochastic rewards; or the
// paper's i-th best vs i-th worst by return: groups.ts, algoSettings.ts MtdpoConfig.pairing), each episode
// one row in the policy's chat (rows.ts episodeRow: head + the latest turns that fit T), DPO over
// the log-ratio summed across all agent turns of the row (β 0.1, NLL 0.01 on the chosen episode).
// A person's preference pairs join as single-turn pairs.
import { dialogueOf } from '../envs/episode.ts';
import { toChat } from '../model/tokenizer/dialogue.ts';
import type { MtdpoConfig } from './algoSettings.ts';
import type { AlgoContext } from './context.ts';
import { feedbackRows, makeLearner, prefixed, type Algorithm, type UpdateInput, type UpdateResult } from './algorithm.ts';
import { trajectoryPairsOf } from './groups.ts';
import type { Learner } from './learner.ts';
import { episodeRow, type Row } from './rows.ts';
import type { LearnerTarget } from './types.ts';

export class Mtdpo implements Algorithm {
  readonly name = 'mtdpo' as const;

  private constructor(
    readonly cfg: MtdpoConfig,
    readonly learners: Partial<Record<LearnerTarget, Learner>>,
  ) {}

  static async create(ctx: AlgoContext, cfg: MtdpoConfig): Promise<Mtdpo> {
    return new Mtdpo(cfg, {
      policy: await makeLearner(ctx, 'policy', { kind: 'dpo', beta: cfg.beta, nllCoef: cfg.nllCoef, pairs: cfg.pairBatch }, 2 * cfg.pairBatch, 1),
    });
  }

  async update(ctx: AlgoContext, input: UpdateInput): Promise<UpdateResult> {
    const { episodes, k } = input;
    const pairs = trajectoryPairsOf(this.cfg.pairing, episodes, k, ctx.rng);
    const rowOf = new Map<number, Row>();
    let dropped = 0;
    for (const i of new Set(pairs.flat())) {
      const e = episodes[i];
      const r = episodeRow(ctx.tok, toChat(dialogueOf(e.task.prompt, e.turns)), ctx.windows.policyBudget);
      dropped += r.droppedTurns;
      rowOf.set(i, r.row);
    }
    const all: [Row, Row][] = [...pairs.map(([a, b]): [Row, Row] => [rowOf.get(a) as Row, rowOf.get(b) as Row]), ...feedbackRows(ctx, input.feedback).pairs];
    const stats: Record<string, number> = { trajectory_pairs: pairs.length, train_pairs: all.length, dropped_turns: dropped };
    if (all.length === 0) return { stats, losses: {}, gradNorm: 0, skipped: 'no pair of episodes with different returns' };
    await ctx.fillLogprobs('policy', null, all.flat(), 'ref_logp');
    const p = await (this.learners.policy as Learner).trainPairs(all, this.cfg.epochs, ctx.order());
    Object.assign(stats, prefixed('policy', { loss: p.loss, ...p.stats }));
    return { stats, losses: { policy: p.losses }, gradNorm: p.maxGradNorm };
  }
}
