// The shape every algorithm module has (one small orchestration module per algorithm over the
// train-step graphs), and the helpers they share: building a learner for a role with the engine's
// base precision, and turning a person's feedback (feedback.ts) into rows.
import { dialogueOf } from '../envs/episode.ts';
import type { LossSpec } from '../model/train/losses.ts';
import type { RolloutEpisode } from '../rollout/rollout.ts';
import { MODEL_NAMES, type AlgoContext } from './context.ts';
import type { Feedback } from './feedback.ts';
import { Learner } from './learner.ts';
import { shippedAdapter } from '../bridge/peft.ts';
import { turnRow, type Row } from './rows.ts';
import type { AlgoName, LearnerTarget } from './types.ts';

/** One iteration's data. */
export interface UpdateInput {
  /** Task-major groups of k episodes (rewards already include a person's thumbs and infoGainReward's turn rewards). */
  episodes: RolloutEpisode[];
  /**
   * The same episodes as the environment recorded them (no thumbs, no turn rewards): what a replay of
   * their turns reproduces, so re-roll credit starts from these. Default: `episodes` (nothing was added).
   */
  played?: RolloutEpisode[];
  k: number;
  feedback: Feedback;
  /** Iterations completed before this one (0 for the first). */
  iteration: number;
}

/** What an update did. */
export interface UpdateResult {
  /** Figures named `<learner>_<stat>` plus algorithm counts (pairs, kept groups, …). */
  stats: Record<string, number>;
  /** Step losses per learner, for the loss-spike check. */
  losses: Partial<Record<LearnerTarget, number[]>>;
  /** Largest grad norm of any step. */
  gradNorm: number;
  /** Why nothing was trained, when so. */
  skipped?: string;
}

export interface Algorithm {
  readonly name: AlgoName;
  /** The learners it trains, by role (checkpointed, rolled back and published by the loop). */
  readonly learners: Partial<Record<LearnerTarget, Learner>>;
  update(ctx: AlgoContext, input: UpdateInput): Promise<UpdateResult>;
}

/** A learner for a role over the loaded base model, in the precision the engine runs it at. */
export async function makeLearner(ctx: AlgoContext, target: LearnerTarget, loss: LossSpec, batch: number, seedSalt: number): Promise<Learner> {
  const model = target === 'policy' ? ctx.models.policy : ctx.critic();
  const info = (await ctx.engine.models()).find((m) => m.name === MODEL_NAMES[target]);
  const seqLen = target === 'policy' ? ctx.windows.policyBudget : ctx.windows.criticBudget;
  // A model that ships an adapter (the forged critic's SWEET-RL adapter) is trained on from it, so the
  // credit the lab showed before training and the critic the algorithm trains are one adapter over one
  // reference, the base; an adapter of another shape than the run's LoRA starts fresh.
  const shipped = shippedAdapter(model);
  const same =
    shipped &&
    shipped.spec.rank === ctx.config.lora.rank &&
    shipped.spec.alpha === ctx.config.lora.alpha &&
    shipped.spec.targets.join() === ctx.config.lora.targets.join();
  return Learner.create(ctx.runtime, {
    ...(same ? { init: shipped.weights } : {}),
    target,
    model,
    lora: ctx.config.lora,
    base: info?.precision ?? 'fp32',
    loss,
    batch,
    seqLen,
    adamw: { lr: target === 'policy' ? ctx.config.lr : ctx.config.criticLr, maxGradNorm: ctx.config.maxGradNorm, weightDecay: 0 },
    seed: ctx.config.seed * 1000 + seedSalt,
    initStd: ctx.config.loraInitStd ?? 1 / Math.sqrt(model.config.dModel),
  });
}

/** Feedback rows of the policy: rated turns (with their value) and pairs (chosen, rejected). */
export function feedbackRows(ctx: AlgoContext, feedback: Feedback): { turns: { row: Row; value: number }[]; pairs: [Row, Row][] } {
  const budget = ctx.windows.policyBudget;
  const turns = feedback.turns.map((f) => {
    const prompt = ctx.policyPrompt(dialogueOf(f.task.prompt, f.before));
    const reply = f.tokens && f.tokens.length ? f.tokens : [...ctx.tok.encode(f.action), ctx.tok.special.end];
    return { row: turnRow(prompt, reply, budget), value: f.value };
  });
  const pairs = feedback.pairs.map((p): [Row, Row] => {
    const prompt = ctx.policyPrompt(dialogueOf(p.task.prompt, p.before));
    const ids = (text: string) => [...ctx.tok.encode(text), ctx.tok.special.end];
    return [turnRow(prompt, ids(p.chosen), budget), turnRow(prompt, ids(p.rejected), budget)];
  });
  return { turns, pairs };
}

/** Prefixes a learner's statistics with its role. */
export function prefixed(target: LearnerTarget, stats: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(stats).map(([k, v]) => [`${target}_${k}`, v]));
}
