// Rejection fine-tuning (rejection sampling + SFT; e.g. Dong et al. 2023 RAFT, Yuan et al. 2023):
// keep the episodes that succeeded and train the policy by SFT on their agent turns, each as the
// policy saw it (rows.ts turnRow). A person's thumbs-up turns and chosen replies join the rows.
import type { RftConfig } from './config.ts';
import type { AlgoContext } from './context.ts';
import { feedbackRows, makeLearner, prefixed, type Algorithm, type UpdateInput, type UpdateResult } from './algorithm.ts';
import type { Learner } from './learner.ts';
import type { LearnerTarget } from './types.ts';

export class Rft implements Algorithm {
  readonly name = 'rft' as const;

  private constructor(
    readonly cfg: RftConfig,
    readonly learners: Partial<Record<LearnerTarget, Learner>>,
  ) {}

  static async create(ctx: AlgoContext, cfg: RftConfig): Promise<Rft> {
    return new Rft(cfg, { policy: await makeLearner(ctx, 'policy', { kind: 'sft' }, cfg.batch, 1) });
  }

  async update(ctx: AlgoContext, input: UpdateInput): Promise<UpdateResult> {
    const { rows } = ctx.turnRows(input.episodes, (ref) => input.episodes[ref.episode].success);
    const fb = feedbackRows(ctx, input.feedback);
    const all = [...rows, ...fb.turns.filter((t) => t.value > 0).map((t) => t.row), ...fb.pairs.map(([c]) => c)];
    const stats: Record<string, number> = { kept_episodes: input.episodes.filter((e) => e.success).length, train_rows: all.length };
    if (all.length === 0) return { stats, losses: {}, gradNorm: 0, skipped: 'no successful episode to imitate' };
    const p = await (this.learners.policy as Learner).train(all, this.cfg.epochs, ctx.order());
    Object.assign(stats, prefixed('policy', { loss: p.loss, ...p.stats }));
    return { stats, losses: { policy: p.losses }, gradNorm: p.maxGradNorm };
  }
}
