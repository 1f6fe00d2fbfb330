// StarPO (RAGEN, arXiv 2504.20073): trajectory-level optimisation of multi-turn rollouts with the
// clipped policy-gradient objective, in two variants:
//  - PPO: the critic's value head gives V(s_t) at each turn (the critic's chat with the hidden
//    information, as rollout/criticInputs.ts reads it), turn-level GAE (credit/gae.ts) gives A_t,
//    every token of turn t gets A_t, and the critic learns V(s_t) → A_t + V(s_t) by value MSE;
//  - GRPO: A_i = (R_i − mean_group)/std_group (credit/groupAdvantage.ts; zero-spread groups get 0)
//    for every token of episode i; no critic. With turnCredit 'igpo' or 'toGo' each turn's base
//    advantage comes from its own rewards onwards instead (credit/turnReturns.ts). With stepWeight ω > 0, each turn adds ω × its
//    step-level advantage among the turns that acted in the same state (GiGPO, credit/stepGroups.ts);
//    with rerollWeight ω > 0, ω × its Monte-Carlo re-roll advantage A*_t (rollout/counterfactual.ts;
//    pooled by state with rerollPool, rollout/pooledReroll.ts).
// StarPO-S options: keep only the top `keepFraction` of groups by reward spread (groups.ts
// varianceFilter), asymmetric clipping (ε_low 0.2, ε_high 0.28), no KL term. PPO practice on top:
// whitened advantages (`whiten`) and an early stop of the epochs on a target KL (`targetKl`).
import { gaeAdvantages } from '../credit/gae.ts';
import { groupAdvantages } from '../credit/groupAdvantage.ts';
import { turnReturnAdvantages } from '../credit/turnReturns.ts';
import { dialogueOf } from '../envs/episode.ts';
import { anchorState, stepGroupAdvantages } from '../credit/stepGroups.ts';
import type { StarpoConfig } from './algoSettings.ts';
import type { AlgoContext } from './context.ts';
import { feedbackRows, makeLearner, prefixed, type Algorithm, type UpdateInput, type UpdateResult } from './algorithm.ts';
import { varianceFilter } from './groups.ts';
import { PolicyBatchAgent } from '../rollout/agents.ts';
import { counterfactualTruth } from '../rollout/counterfactual.ts';
import { pooledRerollCredit } from '../rollout/pooledReroll.ts';
import { groupSpreads } from '../rollout/metrics.ts';
import type { Learner } from './learner.ts';
import { setReply, setSpan, type Row } from './rows.ts';
import type { AlgoName, LearnerTarget } from './types.ts';
import { meanOf } from '../util/stats.ts';

export class Starpo implements Algorithm {
  private constructor(
    readonly name: AlgoName,
    readonly cfg: StarpoConfig,
    readonly learners: Partial<Record<LearnerTarget, Learner>>,
  ) {}

  static async create(ctx: AlgoContext, name: AlgoName, cfg: StarpoConfig): Promise<Starpo> {
    const policy = await makeLearner(
      ctx,
      'policy',
      { kind: 'policy-gradient', clipLow: cfg.clipLow, clipHigh: cfg.clipHigh, klCoef: cfg.klCoef },
      cfg.batch,
      1,
    );
    const critic = cfg.advantage === 'gae' ? await makeLearner(ctx, 'critic', { kind: 'value-mse' }, cfg.batch, 2) : undefined;
    return new Starpo(name, cfg, critic ? { policy, critic } : { policy });
  }

  async update(ctx: AlgoContext, input: UpdateInput): Promise<UpdateResult> {
    const { episodes, k } = input;
    const returns = episodes.map((e) => e.totalReward);
    const { std } = groupSpreads(returns, k);
    const kept = varianceFilter(std, this.cfg.keepFraction, this.cfg.skipZeroSpread);
    const keptEpisodes = kept.flatMap((g) => episodes.slice(g * k, (g + 1) * k));
    // per kept episode, per turn: the advantage and (gae) the value target
    const adv: number[][] = [];
    const valueTargets: number[][] = [];
    const values: number[][] = [];
    let stepGrouped = 0;
    // re-rolls replay the environment's record and score the environment's rewards (not the added turn rewards)
    const played = input.played ?? episodes;
    const reroll =
      this.cfg.advantage === 'grpo' && this.cfg.rerollWeight > 0
        ? await this.rerollAdvantages(
            ctx,
            kept.map((g) => played.slice(g * k, (g + 1) * k)),
          )
        : null;
    if (this.cfg.advantage === 'grpo') {
      for (const [j, g] of kept.entries()) {
        const group = episodes.slice(g * k, (g + 1) * k);
        const base = baseAdvantages(group, returns.slice(g * k, (g + 1) * k), this.cfg);
        const step = this.cfg.stepWeight > 0 ? stepAdvantages(group, this.cfg) : null;
        stepGrouped += step?.grouped ?? 0;
        group.forEach((e, i) =>
          adv.push(
            e.turns.map(
              (_, t) =>
                base[i][t] + (step ? this.cfg.stepWeight * step.advantages[i][t] : 0) + (reroll ? this.cfg.rerollWeight * reroll.advantages[j * k + i][t] : 0),
            ),
          ),
        );
      }
    } else {
      const v = await this.turnValues(ctx, keptEpisodes);
      keptEpisodes.forEach((e, i) => {
        const terminal = e.turns.length > 0 && e.turns[e.turns.length - 1].done;
        const vals = Float32Array.from(v[i]);
        if (terminal) vals[e.turns.length] = 0;
        const a = gaeAdvantages(
          Float32Array.from(e.turns, (t) => t.reward),
          vals,
          this.cfg.gamma,
          this.cfg.lambda,
          terminal,
        );
        adv.push(Array.from(a));
        values.push(Array.from(vals));
        valueTargets.push(Array.from(a, (x, t) => x + vals[t]));
      });
    }
    if (this.cfg.whiten) whiten(adv);
    const { rows, spans } = ctx.turnRows(keptEpisodes);
    for (const s of spans) setSpan(rows[s.row], s, 'advantages', adv[s.episode][s.turn]);
    // Turns played without recorded log-probs (stored or scripted episodes) would otherwise get
    // old_logp = 0, a ratio π/1 far below 1 − ε whose clipped branch drops every negative advantage.
    const missing = rows.filter((r) => !r.f.old_logp);
    if (missing.length) await ctx.fillLogprobs('policy', ctx.adapterIds.policy, missing, 'old_logp');
    const fb = feedbackRows(ctx, input.feedback);
    const w = ctx.config.feedbackWeight;
    const extra: Row[] = [];
    for (const t of fb.turns) extra.push(withAdvantage(t.row, w * t.value));
    for (const [c, r] of fb.pairs) extra.push(withAdvantage(c, w), withAdvantage(r, -w));
    // feedback rows have no behaviour log-probs: the current policy's are the old ones (on-policy)
    if (extra.length) await ctx.fillLogprobs('policy', ctx.adapterIds.policy, extra, 'old_logp');
    const all = [...rows, ...extra];
    const stats: Record<string, number> = { kept_groups: kept.length, groups: std.length, train_rows: all.length };
    // the share of kept turns that shared their state with another episode: where step credit can act
    if (this.cfg.stepWeight > 0)
      stats.step_grouped_frac =
        stepGrouped /
        Math.max(
          1,
          adv.reduce((n, a) => n + a.length, 0),
        );
    if (reroll) Object.assign(stats, { reroll_episodes: reroll.episodes, reroll_seconds: reroll.seconds });
    if (this.cfg.klCoef > 0 && all.length) await ctx.fillLogprobs('policy', null, all, 'ref_logp');
    if (all.length === 0) return { stats, losses: {}, gradNorm: 0, skipped: 'no group with reward spread: nothing to train on' };
    const losses: UpdateResult['losses'] = {};
    let gradNorm = 0;
    // critic warm-up: the first iterations fit V(s) to the policy's returns before its advantages steer the policy
    const warmup = this.learners.critic && input.iteration < this.cfg.criticWarmup;
    if (!warmup) {
      // SB3's rule: stop once a minibatch's KL from the rollout policy passes 1.5 × target
      const policy = await (this.learners.policy as Learner).train(all, this.cfg.epochs, ctx.order(), 1.5 * this.cfg.targetKl);
      Object.assign(stats, prefixed('policy', { loss: policy.loss, ...policy.stats }));
      losses.policy = policy.losses;
      gradNorm = policy.maxGradNorm;
    }
    const critic = this.learners.critic;
    if (critic && keptEpisodes.length) {
      const vrows = this.valueRows(ctx, keptEpisodes, valueTargets);
      const c = await critic.train(vrows, this.cfg.valueEpochs, ctx.order());
      Object.assign(stats, prefixed('critic', { loss: c.loss, ...c.stats }));
      stats.value_mean = meanOf(values.flat());
      losses.critic = c.losses;
      gradNorm = Math.max(gradNorm, c.maxGradNorm);
    }
    if (warmup) return { stats, losses, gradNorm, skipped: `critic warm-up (${input.iteration + 1} of ${this.cfg.criticWarmup}): the policy is not updated` };
    return { stats, losses, gradNorm };
  }

  /**
   * A*_t of every turn of the kept groups' episodes (in order), with what it cost: the current policy (the adapter being
   * trained, as the rollout sampled it) re-plays each turn's rest M times keeping the turn and M times afresh, or,
   * pooled, only what the group's own visits to a state leave short (rollout/pooledReroll.ts); one batched
   * rollout, seeded from the iteration's rng.
   */
  private async rerollAdvantages(ctx: AlgoContext, groups: UpdateInput['episodes'][]): Promise<{ advantages: number[][]; episodes: number; seconds: number }> {
    const started = performance.now();
    const agent = await PolicyBatchAgent.create(ctx.engine, {
      adapter: ctx.adapterIds.policy,
      sampling: { temperature: 1, maxNewTokens: ctx.windows.policyReserve },
    });
    const opts = {
      m: this.cfg.rerolls,
      seed: ctx.rng.int(1_000_000_000),
      gamma: this.cfg.gamma,
      ...(ctx.config.turnLimit ? { turnLimit: ctx.config.turnLimit } : {}),
    };
    const seconds = () => (performance.now() - started) / 1000;
    if (this.cfg.rerollPool) {
      const pooled = await pooledRerollCredit(groups, agent, { ...opts, stateOf: (e, t) => anchorState(e.task.prompt, e.turns, t) });
      return { advantages: pooled.advantages, episodes: pooled.rerolls, seconds: seconds() };
    }
    const episodes = groups.flat();
    const truth = await counterfactualTruth(episodes, agent, opts);
    return {
      advantages: truth.map((t) => Array.from(t.perTurn)),
      // 2M partial episodes per turn: M keeping the turn, M afresh
      episodes: 2 * this.cfg.rerolls * episodes.reduce((n, e) => n + e.turns.length, 0),
      seconds: seconds(),
    };
  }

  /** V(s_0) … V(s_T) per episode from the critic (with its current adapter). */
  private async turnValues(ctx: AlgoContext, episodes: UpdateInput['episodes']): Promise<number[][]> {
    const items = episodes.flatMap((e) =>
      Array.from({ length: e.turns.length + 1 }, (_, t) => ({
        context: { ids: ctx.criticPrompt(e.task, dialogueOf(e.task.prompt, e.turns.slice(0, t)), 0) },
        continuation: [] as number[],
      })),
    );
    if (items.length === 0) return [];
    const r = await ctx.engine.score({ model: 'critic', adapter: ctx.adapterIds.critic, items });
    let at = 0;
    return episodes.map((e) => r.items.slice(at, (at += e.turns.length + 1)).map((it) => it.contextValue ?? 0));
  }

  /** One value row per turn: the critic's window before turn t, trained at its last token on the return target. */
  private valueRows(ctx: AlgoContext, episodes: UpdateInput['episodes'], targets: number[][]): Row[] {
    const rows: Row[] = [];
    episodes.forEach((e, i) => {
      e.turns.forEach((_, t) => {
        const ids = ctx.criticPrompt(e.task, dialogueOf(e.task.prompt, e.turns.slice(0, t)), 0);
        const mask = new Array<number>(ids.length).fill(0);
        const ret = new Array<number>(ids.length).fill(0);
        mask[ids.length - 1] = 1;
        ret[ids.length - 1] = targets[i][t];
        rows.push({ ids, f: { loss_mask: mask, returns: ret } });
      });
    });
    return rows;
  }
}

/** Each turn's base advantage in one task group: its episode's group advantage (GRPO), or its own from the turn on (turnCredit). */
function baseAdvantages(group: UpdateInput['episodes'], returns: readonly number[], cfg: StarpoConfig): number[][] {
  if (cfg.turnCredit !== 'episode')
    return turnReturnAdvantages(
      group.map((e) => e.turns.map((t) => t.reward)),
      cfg.turnCredit,
      { gamma: cfg.gamma, divideByStd: cfg.divideByStd },
    );
  const a = groupAdvantages(returns, { divideByStd: cfg.divideByStd });
  return group.map((e, i) => e.turns.map(() => a[i]));
}

/** GiGPO step advantages of one task group: each turn's state is its anchor state (the environment's, else the visible history). */
function stepAdvantages(group: UpdateInput['episodes'], cfg: StarpoConfig) {
  return stepGroupAdvantages(
    group.map((e) => e.turns.map((turn, t) => ({ state: anchorState(e.task.prompt, e.turns, t), reward: turn.reward }))),
    { gamma: cfg.gamma, divideByStd: cfg.stepDivideByStd },
  );
}

/** (A − mean)/std over every turn of every kept episode, in place (cleanrl's norm_adv; std + 1e-8). */
export function whiten(adv: number[][]): void {
  const all = adv.flat();
  if (all.length < 2) return;
  const m = meanOf(all);
  const sd = Math.sqrt(meanOf(all.map((x) => (x - m) ** 2)));
  for (const a of adv) for (let t = 0; t < a.length; t++) a[t] = (a[t] - m) / (sd + 1e-8);
}

function withAdvantage(row: Row, a: number): Row {
  setReply(row, 'advantages', a);
  return row;
}
