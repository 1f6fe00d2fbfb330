// DAgger on the policy's own states as an algorithm (Ross, Gordon & Bagnell 2011, "A reduction of
// imitation learning and structured prediction to no-regret online learning", Algorithm 3.1 with
// β = 0 after the first round): the policy plays its rollouts, and every state it visited is
// labelled with the family's scripted expert's move (envs/agent.ts FamilyAgents.expert, which reads
// only the visible dialogue); the policy is trained by SFT on those labels, each as the policy saw
// the state (the window generate() built). It is the best-signal learner of issue #45: the same loop,
// the same LoRA adapter and the same episodes as the RL algorithms, but told *which* move was right
// at every state instead of how the episode ended, so its gain bounds what a reward-driven learner can
// take from that many episodes. Rewards and returns are not read. The aggregate of DAgger is this
// iteration's states only (`replay` keeps earlier iterations' labelled states, as the paper's D).
import * as v from 'valibot';
import { dialogueOf } from '../../envs/episode.ts';
import { FAMILIES } from '../../envs/registry.ts';
import type { RolloutEpisode } from '../../rollout/rollout.ts';
import { POLICY_LR } from '../algoSettings.ts';
import { makeLearner, prefixed, type Algorithm, type UpdateInput, type UpdateResult } from '../algorithm.ts';
import type { AlgoContext } from '../context.ts';
import type { Learner } from '../learner.ts';
import { turnRow, type Row } from '../rows.ts';
import { positive, sectionField, type AlgoSpec } from '../spec.ts';
import type { LearnerTarget } from '../types.ts';

/** DAgger: SFT on the expert's move at every state the policy visited. */
export interface DaggerSettings {
  /** Passes over the labelled states per iteration. */
  epochs: number;
  /** Rows per graph run. */
  batch: number;
  /**
   * Iterations whose labelled states are trained on (1: this iteration's only). DAgger's dataset D
   * aggregates every round's; a longer replay spends more steps per iteration on older states.
   */
  replay: number;
}

export const DAGGER_DEFAULTS: DaggerSettings = { epochs: 1, batch: 8, replay: 1 };

/** One labelled state: the policy's prompt before a turn it took, and the expert's reply there. */
export interface ExpertLabel {
  /** Index of the episode in the iteration's list, and of the turn. */
  episode: number;
  turn: number;
  /** The expert's message at that state. */
  expert: string;
  /** Whether the policy sent the same message. */
  agreed: boolean;
}

/** The expert's move at every agent turn the policy took (after any replayed prefix), in order. */
export function expertLabels(episodes: readonly RolloutEpisode[]): ExpertLabel[] {
  const out: ExpertLabel[] = [];
  episodes.forEach((e, ei) => {
    const agents = FAMILIES[e.task.spec.family].agents;
    e.turns.forEach((t, ti) => {
      if (ti < e.prefixTurns) return;
      const expert = agents.expert(dialogueOf(e.task.prompt, e.turns.slice(0, ti)));
      out.push({ episode: ei, turn: ti, expert, agreed: expert.trim() === t.action.trim() });
    });
  });
  return out;
}

export class Dagger implements Algorithm {
  readonly name = 'dagger' as const;
  /** Labelled rows of the last `replay` iterations, oldest first. */
  private readonly past: Row[][] = [];

  private constructor(
    readonly cfg: DaggerSettings,
    readonly learners: Partial<Record<LearnerTarget, Learner>>,
  ) {}

  static async create(ctx: AlgoContext, cfg: DaggerSettings): Promise<Dagger> {
    return new Dagger(cfg, { policy: await makeLearner(ctx, 'policy', { kind: 'sft' }, cfg.batch, 1) });
  }

  async update(ctx: AlgoContext, input: UpdateInput): Promise<UpdateResult> {
    const labels = expertLabels(input.episodes);
    const end = ctx.tok.special.end;
    const rows = labels.map((l) => {
      const e = input.episodes[l.episode];
      const prompt = ctx.policyPrompt(dialogueOf(e.task.prompt, e.turns.slice(0, l.turn)));
      return turnRow(prompt, [...ctx.tok.encode(l.expert), end], ctx.windows.policyBudget);
    });
    this.past.push(rows);
    while (this.past.length > this.cfg.replay) this.past.shift();
    const all = this.past.flat();
    const stats: Record<string, number> = {
      labelled_states: labels.length,
      expert_agreement: labels.length ? labels.filter((l) => l.agreed).length / labels.length : 0,
      train_rows: all.length,
    };
    if (all.length === 0) return { stats, losses: {}, gradNorm: 0, skipped: 'no agent turn to label' };
    const p = await (this.learners.policy as Learner).train(all, this.cfg.epochs, ctx.order());
    Object.assign(stats, prefixed('policy', { loss: p.loss, ...p.stats }));
    return { stats, losses: { policy: p.losses }, gradNorm: p.maxGradNorm };
  }
}

export const daggerSpec: AlgoSpec<'dagger', 'dagger', DaggerSettings> = {
  name: 'dagger',
  label: 'DAgger',
  summary: "DAgger: SFT on the scripted expert's move at every state the policy visits (best-signal reference; Ross et al. 2011)",
  section: 'dagger',
  defaults: DAGGER_DEFAULTS,
  schema: v.looseObject({
    epochs: positive('dagger.epochs', true),
    batch: positive('dagger.batch', true),
    replay: positive('dagger.replay', true),
  }),
  lr: POLICY_LR,
  needsCritic: () => false,
  fields: [
    sectionField('replay', {
      kind: 'number',
      key: 'daggerReplay',
      label: 'Iterations of labelled states',
      testid: 'credit-dagger-replay',
      min: 1,
      step: 1,
      help: "the expert's labels of this many iterations' states are trained on each iteration (DAgger's aggregate; default 1, this iteration's)",
    }),
  ],
  describe: (c) => ["the expert's move on the policy's states", ...(c.replay > 1 ? [`${c.replay} iterations of labels`] : [])],
  create: (ctx, c) => Dagger.create(ctx, c),
};
