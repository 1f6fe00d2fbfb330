// SWEET-RL (Zhou et al. 2025, arXiv 2503.15478), one iteration:
//  1. Critic: pairs of trajectories of the same task (the paper's i-th best vs i-th worst by return,
//     or by default pairs drawn ∝ their return gap, our deviation for stochastic rewards: groups.ts,
//     algoSettings.ts SweetConfig.pairing); the critic (an LM that sees the hidden information) scores each
//     agent turn with A_t = β · mean_tokens log(π_critic(a_t|o_t,c) / π_ref(a_t|o_t,c)), π_ref the
//     critic's base model (credit/sweetAdvantage.ts sweetTurnAdvantage, also what the lab's
//     credit views show); trained with Bradley–Terry, L = −log σ(Σ_t A(chosen_t) − Σ_t A(rejected_t))
//     (the 'bradley-terry' loss with source 'log-ratio'; turn_weights = 1/len(turn) gives the mean).
//     One row per episode (rows.ts episodeRow): the critic's chat, head + the latest turns fitting T.
//     With criticEpochs 0 the critic is not trained here: a forged one (forge --critic-only, with its
//     SWEET-RL adapter) ranks the candidates as loaded, the paper's order (critic offline, then actor).
//  2. Policy: for sampled agent turns, N candidate replies from the current policy; each is ranked by
//     its critic advantage (the updated critic vs its base), rank i is paired with rank N−1−i for
//     i < pairsPerTurn (top half vs bottom half), and the policy trains with DPO on these per-turn
//     pairs (β 0.1, NLL 0.01 on the chosen reply; reference = the policy's base model).
import { sweetTurnAdvantage } from '../credit/sweetAdvantage.ts';
import { dialogueOf } from '../envs/episode.ts';
import type { Message } from '../envs/types.ts';
import { toChat } from '../model/tokenizer/dialogue.ts';
import type { SweetConfig } from './algoSettings.ts';
import type { AlgoContext } from './context.ts';
import { feedbackRows, makeLearner, prefixed, type Algorithm, type UpdateInput, type UpdateResult } from './algorithm.ts';
import { trajectoryPairsOf } from './groups.ts';
import type { Learner } from './learner.ts';
import { episodeRow, turnRow, type Row } from './rows.ts';
import { AlgoError, type LearnerTarget } from './types.ts';
import { leavesBase } from './accounting.ts';
import { turnSeed } from '../rollout/agents.ts';
import type { Task } from '../envs/types.ts';

export class Sweet implements Algorithm {
  readonly name = 'sweet' as const;
  /** The critic's trajectory pairs of the last `criticReplay` iterations, newest last (rows with ref_logp filled). */
  private readonly replay: [Row, Row][][] = [];

  private constructor(
    readonly cfg: SweetConfig,
    readonly learners: Partial<Record<LearnerTarget, Learner>>,
  ) {}

  static async create(ctx: AlgoContext, cfg: SweetConfig): Promise<Sweet> {
    const critic = await makeLearner(
      ctx,
      'critic',
      { kind: 'bradley-terry', source: 'log-ratio', beta: cfg.criticBeta, pairs: cfg.pairBatch },
      2 * cfg.pairBatch,
      2,
    );
    if (cfg.criticEpochs === 0 && leavesBase(critic)) {
      await critic.dispose();
      throw new AlgoError(
        'bad-config',
        'sweet.criticEpochs 0 keeps the loaded critic, but this critic has no SWEET-RL adapter (forge one: npx turnwise forge --critic-only): its advantages would be 0 everywhere and the actor would never move',
      );
    }
    const policy = await makeLearner(ctx, 'policy', { kind: 'dpo', beta: cfg.beta, nllCoef: cfg.nllCoef, pairs: cfg.pairBatch }, 2 * cfg.pairBatch, 1);
    return new Sweet(cfg, { policy, critic });
  }

  async update(ctx: AlgoContext, input: UpdateInput): Promise<UpdateResult> {
    const { episodes } = input;
    const stats: Record<string, number> = {};
    const losses: UpdateResult['losses'] = {};
    let gradNorm = 0;
    // 1. critic. criticEpochs 0 keeps it as loaded: the paper's order, a critic trained offline first
    // (forge --critic-only) and the actor after, which online trajectory pairs would pull away from it
    if (this.cfg.criticEpochs > 0) gradNorm = await this.trainCritic(ctx, input, stats, losses);
    if (input.iteration < this.cfg.criticWarmup) {
      stats.turn_pairs = 0;
      return { stats, losses, gradNorm, skipped: `critic warm-up (${input.iteration + 1} of ${this.cfg.criticWarmup}): the policy is not updated` };
    }
    // 2. policy: N candidates at sampled turns, ranked by critic advantage
    const turns = ctx.rng.shuffle(episodes.flatMap((e, ei) => e.turns.map((_, ti) => [ei, ti] as const))).slice(0, this.cfg.turnsPerIteration);
    const dpo: [Row, Row][] = [];
    let margin = 0;
    if (turns.length) {
      const points = turns.map(([ei, ti]) => ({
        task: episodes[ei].task,
        dialogue: dialogueOf(episodes[ei].task.prompt, episodes[ei].turns.slice(0, ti)),
        seed: turnSeed(episodes[ei].seed ^ 0x5eed, ti),
      }));
      const N = this.cfg.candidates;
      const gen = await ctx.engine.generate({
        model: 'policy',
        adapter: ctx.adapterIds.policy,
        prompts: points.map((p) => ({ messages: toChat(p.dialogue), window: {} })),
        n: N,
        seeds: points.map((p) => p.seed),
        sampling: { temperature: 1, maxNewTokens: ctx.windows.policyReserve },
      });
      const cands = gen.generations.map((g) => ({ point: points[g.prompt], ids: g.tokenIds, text: g.text }));
      const adv = await this.criticAdvantages(ctx, cands);
      points.forEach((p, pi) => {
        const order = Array.from({ length: N }, (_, j) => pi * N + j).sort((a, b) => adv[b] - adv[a] || a - b);
        const prompt = ctx.policyPrompt(p.dialogue);
        for (let i = 0; i < this.cfg.pairsPerTurn; i++) {
          const [hi, lo] = [order[i], order[N - 1 - i]];
          if (!(adv[hi] - adv[lo] > Math.max(1e-6, this.cfg.minMargin)) || cands[hi].text === cands[lo].text || !cands[hi].ids.length || !cands[lo].ids.length)
            continue;
          dpo.push([turnRow(prompt, cands[hi].ids, ctx.windows.policyBudget), turnRow(prompt, cands[lo].ids, ctx.windows.policyBudget)]);
          margin += adv[hi] - adv[lo];
        }
      });
    }
    dpo.push(...feedbackRows(ctx, input.feedback).pairs);
    stats.turn_pairs = dpo.length;
    stats.candidate_adv_margin = dpo.length ? margin / dpo.length : 0;
    if (dpo.length === 0) return { stats, losses, gradNorm, skipped: 'no candidate pair with distinct critic advantages' };
    await ctx.fillLogprobs('policy', null, dpo.flat(), 'ref_logp');
    const p = await (this.learners.policy as Learner).trainPairs(dpo, this.cfg.policyEpochs, ctx.order());
    Object.assign(stats, prefixed('policy', { loss: p.loss, ...p.stats }));
    losses.policy = p.losses;
    return { stats, losses, gradNorm: Math.max(gradNorm, p.maxGradNorm) };
  }

  /** Bradley–Terry on this iteration's trajectory pairs and the replayed ones; the critic's largest gradient norm. */
  private async trainCritic(ctx: AlgoContext, input: UpdateInput, stats: Record<string, number>, losses: UpdateResult['losses']): Promise<number> {
    const { episodes, k } = input;
    const pairs = trajectoryPairsOf(this.cfg.pairing, episodes, k, ctx.rng);
    stats.trajectory_pairs = pairs.length;
    const criticTok = ctx.critic().tokenizer;
    // the paper's critic learns from the whole offline set; online, a replay of the last iterations'
    // pairs (the reference, the critic's base, never changes, so their ref_logp stay valid), trained
    // on even in an iteration that formed no new pair
    const fresh: [Row, Row][] = [];
    if (pairs.length) {
      const used = [...new Set(pairs.flat())];
      const rowOf = new Map<number, Row>();
      let dropped = 0;
      for (const i of used) {
        const e = episodes[i];
        const r = episodeRow(criticTok, toChat(dialogueOf(e.task.prompt, e.turns), e.task.hidden), ctx.windows.criticBudget);
        dropped += r.droppedTurns;
        rowOf.set(i, r.row);
      }
      stats.critic_dropped_turns = dropped;
      await ctx.fillLogprobs('critic', null, [...rowOf.values()], 'ref_logp');
      fresh.push(...pairs.map(([a, b]): [Row, Row] => [rowOf.get(a) as Row, rowOf.get(b) as Row]));
    }
    this.replay.push(fresh);
    while (this.replay.length > this.cfg.criticReplay) this.replay.shift();
    const replayed = this.replay.flat();
    stats.critic_replay_pairs = replayed.length;
    if (replayed.length) {
      const c = await (this.learners.critic as Learner).trainPairs(replayed, this.cfg.criticEpochs, ctx.order());
      Object.assign(stats, prefixed('critic', { loss: c.loss, ...c.stats }));
      losses.critic = c.losses;
      // the policy's candidates are ranked by the critic as just updated
      await ctx.engine.setAdapter(ctx.adapterIds.critic, (this.learners.critic as Learner).adapter(), { model: 'critic', activate: false });
      return c.maxGradNorm;
    }
    return 0;
  }

  /** SWEET-RL's advantage of each candidate (credit/sweetAdvantage.ts, the one definition), the critic and its base both seeing the hidden information. */
  private async criticAdvantages(ctx: AlgoContext, cands: { point: { task: Task; dialogue: Message[] }; ids: number[] }[]): Promise<number[]> {
    const items = cands.map((c) => ({ context: { ids: ctx.criticPrompt(c.point.task, c.point.dialogue, c.ids.length) }, continuation: c.ids }));
    const live = items.filter((it) => it.continuation.length > 0);
    if (live.length === 0) return cands.map(() => 0);
    const [crit, ref] = await Promise.all([
      ctx.engine.score({ model: 'critic', adapter: ctx.adapterIds.critic, items: live }),
      ctx.engine.score({ model: 'critic', adapter: null, items: live }),
    ]);
    const out: number[] = [];
    let j = 0;
    for (const it of items) {
      if (it.continuation.length === 0) out.push(-Infinity);
      else {
        out.push(sweetTurnAdvantage(crit.items[j].logprobs, ref.items[j].logprobs, this.cfg.criticBeta));
        j++;
      }
    }
    return out;
  }
}
