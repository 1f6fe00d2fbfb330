// Rejection fine-tuning (rejection sampling + SFT; e.g. Dong et al. 2023 RAFT, Yuan et al. 2023):
// keep the better episodes and train the policy by SFT on their agent turns, each as the policy saw
// it (rows.ts turnRow). By default an episode is kept when its return is above its task group's
// mean (RAFT ranks the K samples of a prompt and keeps the best); `keep: 'success'` keeps every
// success. A person's thumbs-up turns and chosen replies join the rows.
import type { RftConfig } from './algoSettings.ts';
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
    const keep = keptEpisodes(input, this.cfg.keep);
    const { rows } = ctx.turnRows(input.episodes, (ref) => keep[ref.episode]);
    const fb = feedbackRows(ctx, input.feedback);
    const all = [...rows, ...fb.turns.filter((t) => t.value > 0).map((t) => t.row), ...fb.pairs.map(([c]) => c)];
    const stats: Record<string, number> = { kept_episodes: keep.filter(Boolean).length, train_rows: all.length };
    if (all.length === 0)
      return {
        stats,
        losses: {},
        gradNorm: 0,
        skipped: this.cfg.keep === 'success' ? 'no successful episode to imitate' : 'no episode above its group mean to imitate',
      };
    const p = await (this.learners.policy as Learner).train(all, this.cfg.epochs, ctx.order());
    Object.assign(stats, prefixed('policy', { loss: p.loss, ...p.stats }));
    return { stats, losses: { policy: p.losses }, gradNorm: p.maxGradNorm };
  }
}

/** Which episodes RFT imitates (episodes task-major in groups of k, as the rollout returns them). */
export function keptEpisodes(input: Pick<UpdateInput, 'episodes' | 'k'>, keep: RftConfig['keep']): boolean[] {
  const { episodes, k } = input;
  if (keep === 'success') return episodes.map((e) => e.success);
  return episodes.map((e, i) => {
    const g = Math.floor(i / k) * k;
    const group = episodes.slice(g, g + k);
    const mean = group.reduce((a, x) => a + x.totalReward, 0) / group.length;
    // strictly above: a group whose returns are all equal has nothing to prefer
    return e.totalReward > mean + 1e-9;
  });
}
