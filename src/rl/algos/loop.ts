// The training loop (issue #8): per iteration, roll out K episodes of each of a few training tasks
// with the current policy adapter (batched through the engine), let a person's thumbs adjust the
// rewards, run the algorithm's update over the train-step graphs, check the update (NaN/inf or a
// loss spike → roll back to the last good adapters and lower the learning rate, saying so), watch for
// the Echo Trap, publish the new adapters to the engine (setAdapter: the next generate call uses
// them, no reload) and to any listener (the policy worker), and checkpoint adapters + AdamW state.
// With a trajectory store, every rollout episode is written as it is played (rollout/sink.ts), tagged
// with the run id and the policy adapter id that played it, under a run record of the loop's settings.
// The same class runs in-thread (Node, tests, the CLI) and inside the trainer worker. What the run
// carries between iterations and checkpoints is runState.ts; its cost and KL figures, accounting.ts.
import type { LoadedModel } from '../model/folder/folder.ts';
import { PolicyBatchAgent } from '../rollout/agents.ts';
import { rollout, type RolloutEpisode } from '../rollout/rollout.ts';
import { ensureRun, jsonSettings, storeSink, type StoreSink, type TrajectoryWriter } from '../rollout/sink.ts';
import type { OrtRuntime } from '../runtime/ort.ts';
import type { Adapter } from '../runtime/engine/types.ts';
import { TrainerError } from '../runtime/train/trainer.ts';
import { hashString, Rng } from '../util/rng.ts';
import type { Split } from '../envs/types.ts';
import type { ModelRef } from '../store/index.ts';
import { iterationTasks, validateLoopConfig, type LoopConfig } from './config.ts';
import { AlgoContext, MODEL_NAMES, type TrainEngine, type Windows } from './context.ts';
import { evaluateHeldOut, type HeldOutResult } from '../rollout/evaluate.ts';
import { applyThumbs, NO_FEEDBACK, withInfoGainRewards, type FeedbackSource } from './feedback.ts';
import { echoTrapSigns, isLossSpike } from './metrics.ts';
import { rolloutMetrics } from '../rollout/metrics.ts';
import { createAlgorithm, needsCritic } from './registry.ts';
import type { Algorithm, UpdateResult } from './algorithm.ts';
import { AlgoError, type CheckpointStore, type IterationReport, type LoopEvent, type LearnerState, type LearnerTarget, type TrainCheckpoint } from './types.ts';
import { contextTokens, keepsAnswered, replyTokens } from '../model/meta.ts';
import { collapseConfirmed, describeFall, successCollapse } from './guards.ts';
import { perTaskSuccess } from '../rollout/successStats.ts';
import { playValidation, unconfirmed, ValidationGuard, type ValidationPlay } from './validation.ts';
import { meanOf } from '../util/stats.ts';
import { costSince, costSoFar, leavesBase, rolloutKl, type IterationCost } from './accounting.ts';
import { RunState } from './runState.ts';

/** Everything a loop needs. */
export interface TrainingLoopOptions {
  /** Rollouts, scoring and live adapters; models loaded as 'policy' (and 'critic'). */
  engine: TrainEngine;
  /** Runs the train-step sessions (wasm or onnxruntime-node in Node, WebGPU/wasm in the worker). */
  runtime: OrtRuntime;
  /** The base models as read from their folders (the learners' frozen weights). */
  models: { policy: LoadedModel; critic?: LoadedModel | null };
  config: LoopConfig;
  /**
   * The run to continue (its checkpoint, metrics and episodes); omitted: a new run with a fresh id
   * (newRunId), so two Starts of one config never share metrics or a checkpoint (issue 22 point 4).
   */
  runId?: string;
  /** Where checkpoints go; with one, create() resumes from the run's latest. */
  checkpoints?: CheckpointStore;
  /** Where every rollout episode is stored as it is played (tagged with runId and the policy adapter id); omitted: rollouts stay in memory. */
  trajectories?: TrajectoryWriter;
  /** A person's stored feedback (drained each iteration). */
  feedback?: FeedbackSource;
  /** A person rating this iteration's rollouts: per episode, thumbs per agent turn (NaN = none) or null. */
  rateRollouts?: (episodes: readonly RolloutEpisode[]) => Promise<(ArrayLike<number> | null)[]>;
  /** Receives every adapter after each iteration (e.g. forwards it to the policy worker's setAdapter). */
  /** `iteration`: whose adapters these are (the update that made them; 0: the run's start). */
  publish?: (target: LearnerTarget, id: string, adapter: Adapter, iteration: number) => void | Promise<void>;
}

export function windowsOf(infos: Awaited<ReturnType<TrainEngine['models']>>, maxNewTokens: number | undefined): Windows {
  const budget = (name: string): number => {
    const info = infos.find((m) => m.name === name);
    return info ? contextTokens(info.turnwise, info.config.maxSeq) : 256;
  };
  const meta = (name: string) => infos.find((m) => m.name === name)?.turnwise;
  return {
    policyBudget: budget('policy'),
    criticBudget: budget('critic'),
    policyReserve: maxNewTokens ?? replyTokens(meta('policy')),
    policyKeepsAnswered: keepsAnswered(meta('policy')),
    criticKeepsAnswered: keepsAnswered(meta('critic')),
  };
}

/**
 * A new run's id: `train-<algo>-<family>-<seed>-<UTC time>-<4 hex>` — readable in the Data view's run
 * filter, and unique per Start (the time to the second plus a random tail, for two tabs in one second).
 */
export function newRunId(algo: string, family: string, seed: number, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').slice(0, 15);
  return `train-${algo}-${family}-${seed}-${stamp}-${globalThis.crypto.randomUUID().slice(0, 4)}`;
}

export class TrainingLoop {
  /** Iterations, rollbacks, whose adapters these are, and the guards' windows: what a checkpoint saves beside the learners. */
  private readonly runState = new RunState();
  /**
   * The adapters (and AdamW state) that produced the rollouts of the latest iteration without any
   * warning sign, and that iteration's index: where a rollback returns. The adapters right before a
   * failing update may already have collapsed (spread gone, templates) without a loss spike.
   */
  private lastClean: { iteration: number; states: LearnerState[] } | null = null;
  /** The best validated adapters, every `validateEvery` iterations and at the run's end (validation.ts). */
  private readonly validation: ValidationGuard;
  private stopping = false;
  /** Aborted by stop(): a validation in progress is abandoned (its 128–256 episodes would hold the Stop up). */
  private stopSignal = new AbortController();
  /** The store sink of the rollouts in progress, if any: dispose() closes its open episodes as aborted. */
  private rolloutSink: StoreSink | null = null;

  private constructor(
    private readonly o: TrainingLoopOptions,
    private readonly ctx: AlgoContext,
    private readonly algo: Algorithm,
    readonly runId: string,
  ) {
    this.validation = new ValidationGuard(
      { states: () => this.states(), load: (s) => this.load(s), play: (draw) => this.playValidation(draw) },
      ctx.config.rollback,
    );
  }

  /** Builds the algorithm's learners, resumes from the run's checkpoint when there is one, and publishes the adapters. */
  static async create(o: TrainingLoopOptions): Promise<TrainingLoop> {
    const config = validateLoopConfig(o.config);
    const critic = o.models.critic ?? null;
    if (needsCritic(config.settings) && !critic)
      throw new AlgoError('no-critic', `--algo ${config.settings.algo} needs the critic model (public/models/critic)`);
    const runId = o.runId ?? newRunId(config.settings.algo, config.family, config.seed);
    const windows = windowsOf(await o.engine.models(), config.maxNewTokens);
    const ids = { policy: `${runId}/policy`, critic: `${runId}/critic` };
    const ctx = new AlgoContext(o.engine, o.runtime, { policy: o.models.policy, critic }, windows, config, ids);
    const loop = new TrainingLoop(o, ctx, await createAlgorithm(ctx, config.settings), runId);
    if (o.trajectories) {
      await ensureRun(o.trajectories, {
        id: runId,
        name: runId,
        models: { policy: MODEL_NAMES.policy, critic: critic ? MODEL_NAMES.critic : null },
        adapterId: ids.policy,
        algorithm: config.settings.algo,
        settings: jsonSettings(config),
        seed: config.seed,
      });
    }
    const saved = await o.checkpoints?.load(runId);
    if (saved) loop.restore(saved);
    await loop.publish();
    return loop;
  }

  /** Iterations completed. */
  get iteration(): number {
    return this.runState.iteration;
  }

  /** The engine adapter id of a role (pass it as `adapter` to generate/score). */
  adapterId(target: LearnerTarget): string {
    return this.ctx.adapterIds[target];
  }

  /** The current adapter of a role (a copy). */
  adapter(target: LearnerTarget): Adapter {
    const l = this.algo.learners[target];
    if (!l) throw new AlgoError('no-critic', `${this.algo.name} trains no ${target} adapter`);
    return l.adapter();
  }

  /** Which roles this run trains. */
  targets(): LearnerTarget[] {
    return (['policy', 'critic'] as const).filter((t) => this.algo.learners[t]);
  }

  /** Asks run() to stop after the iteration in progress. */
  stop(): void {
    this.stopping = true;
    this.stopSignal.abort(new AlgoError('stopped', 'the run was stopped'));
  }

  /**
   * Runs up to `iterations` more iterations (fewer after stop()). A run that completes them ends with
   * the validation guard's final check (finish), reported with the last iteration.
   */
  async run(iterations: number, onReport?: (r: IterationReport) => void | Promise<void>): Promise<IterationReport[]> {
    this.stopping = false;
    this.stopSignal = new AbortController();
    const out: IterationReport[] = [];
    for (let i = 0; i < iterations && !this.stopping; i++) {
      const r = await this.step();
      if (i === iterations - 1 && !this.stopping) {
        const event = await this.finish();
        if (event) {
          r.events.push(event);
          r.warnings.push(event.text);
          Object.assign(r.metrics, { rolled_back: 1, rollbacks: this.runState.rollbacks, lr: this.lr(), adapter_iteration: this.runState.weightsIteration });
        }
      }
      out.push(r);
      await onReport?.(r);
    }
    return out;
  }

  /** One iteration: rollouts → update (with rollback) → metrics → publish → checkpoint. */
  async step(): Promise<IterationReport> {
    const started = performance.now();
    const costBefore = this.cost();
    const cfg = this.ctx.config;
    const it = this.runState.iteration;
    this.ctx.rng = new Rng(`iteration/${cfg.seed}/${it}`);
    this.validation.begin(it);
    const sink = this.o.trajectories ? storeSink(this.o.trajectories, this.modelRef(), { runId: this.runId }) : null;
    this.rolloutSink = sink;
    const r = await this.play(this.ctx.adapterIds.policy, it, sink ? { onEvent: sink.onEvent } : {});
    this.rolloutSink = null;
    // what the environment recorded; the update's rewards may add a person's thumbs and turn rewards
    const played = r.episodes;
    let episodes = played;
    const rolloutSeconds = (performance.now() - started) / 1000;
    if (this.o.rateRollouts) {
      const thumbs = await this.o.rateRollouts(episodes);
      episodes = episodes.map((e, i) => (thumbs[i] ? applyThumbs(e, thumbs[i] as ArrayLike<number>, cfg.feedbackWeight) : e));
    }
    // the rollouts' sampled tokens with their recorded log-probs, read by kl_ref and the update guard
    const recorded = this.ctx.turnRows(episodes).rows.filter((r) => r.f.old_logp);
    const metrics: Record<string, number> = {
      iteration: it + 1,
      ...rolloutMetrics(episodes, cfg.k),
      // the adapter that played (every step ends by publishing the learners') is the base on a run's first iteration: 0 without scoring
      kl_ref: leavesBase(this.algo.learners.policy) ? 0 : await rolloutKl(this.ctx, recorded, null),
      rollout_seconds: rolloutSeconds,
    };
    const feedback = (await this.o.feedback?.take()) ?? NO_FEEDBACK;
    metrics.feedback_turns = feedback.turns.length;
    metrics.feedback_pairs = feedback.pairs.length;
    const events: LoopEvent[] = [];
    const good = this.states();
    let update: UpdateResult | null = null;
    // The adapters that played these rollouts collapsed: training on their rollouts from the adapters
    // a rollback restores would be off-policy, so this iteration only rolls back.
    const fall = successCollapse(metrics.success, cfg.tasksPerIteration, this.runState.successHistory, cfg.rollback.successDrop);
    let failure: string | null = fall ? describeFall(fall, 'collapsed') : null;
    if (fall && this.lastClean) {
      // hard tasks or bad adapters? those a rollback would return to play the same tasks
      const reference = await this.perTaskSuccessOf(this.lastClean.states, it);
      if (!collapseConfirmed(perTaskSuccess(episodes, cfg.k), reference, cfg.rollback.successDrop)) {
        events.push({
          kind: 'not-rolled-back',
          text: `not rolled back: ${describeFall(fall, 'fell')}, but the adapters of iteration ${this.lastClean.iteration} won ${(100 * meanOf(reference)).toFixed(0)}% of the same tasks: hard tasks, not a collapse`,
        });
        failure = null;
      }
    }
    const collapsed = failure !== null;
    if (!failure) {
      try {
        update = await this.algo.update(this.ctx, { episodes: withInfoGainRewards(episodes, cfg.infoGainReward), played, k: cfg.k, feedback, iteration: it });
      } catch (e) {
        if ((e as Error).name !== 'TrainerError' || (e as TrainerError).code !== 'non-finite') throw e;
        failure = (e as Error).message;
      }
    }
    if (update && !failure) {
      for (const [target, losses] of Object.entries(update.losses)) {
        const mean = meanOf(losses);
        if (losses.length && isLossSpike(mean, this.runState.lossHistory[target] ?? [], cfg.rollback.spikeFactor, cfg.rollback.minLoss)) {
          failure = `${target} loss ${mean.toPrecision(4)} spiked above ${cfg.rollback.spikeFactor}× its recent median`;
        }
      }
    }
    if (update && !failure && !update.skipped && cfg.rollback.maxUpdateKl > 0 && this.algo.learners.policy) {
      // Judge the update by what it did to the policy, not by its loss: the candidate adapter scores
      // the rollouts' own tokens before it may be published.
      const candidate = `${this.ctx.adapterIds.policy}#candidate`;
      await this.o.engine.setAdapter(candidate, this.algo.learners.policy.adapter(), { model: MODEL_NAMES.policy, activate: false });
      const kl = await rolloutKl(this.ctx, recorded, candidate);
      metrics.update_kl = kl;
      if (!(kl <= cfg.rollback.maxUpdateKl))
        failure = `the update moved the policy by KL ${kl.toPrecision(3)} per token on its own rollouts (limit ${cfg.rollback.maxUpdateKl})`;
    }
    const gradNormNow = update && !failure ? update.gradNorm : 0;
    const distinct = metrics.distinct_replies ?? 0;
    this.runState.firstDistinct ??= distinct;
    const echo = echoTrapSigns(
      cfg.echo,
      { spread: metrics.reward_spread ?? 0, gradNorm: gradNormNow, distinct },
      { spreads: this.runState.spreadHistory, gradNorms: this.runState.gradNormHistory, firstDistinct: this.runState.firstDistinct },
    );
    if (!failure && cfg.echo.rollbackOnSpike && echo.some((e) => e.sign === 'grad-spike')) failure = 'Echo Trap gradient-norm spike';
    // the adapters that played this iteration showed no sign in their rollouts: a safe return point
    if (!collapsed && echo.every((e) => e.sign === 'grad-spike')) this.lastClean = { iteration: it, states: good };
    if (failure) {
      events.push(this.rollBack(this.lastClean ?? { iteration: it, states: good }, failure));
    } else if (update) {
      if (!update.skipped) this.runState.weightsIteration = it + 1;
      for (const [target, losses] of Object.entries(update.losses)) {
        const h = (this.runState.lossHistory[target] ??= []);
        h.push(losses.reduce((a, b) => a + b, 0) / Math.max(1, losses.length));
        if (h.length > cfg.rollback.window) h.shift();
      }
      if (update.skipped) events.push({ kind: 'no-update', reason: update.skipped, text: `no update: ${update.skipped}` });
    }
    const gradNorm = update && !failure ? update.gradNorm : 0;
    events.push(...echo);
    this.runState.spreadHistory = [...this.runState.spreadHistory, metrics.reward_spread ?? 0].slice(-cfg.rollback.window);
    if (!collapsed) this.runState.successHistory = [...this.runState.successHistory, metrics.success].slice(-cfg.rollback.window);
    if (gradNorm > 0) this.runState.gradNormHistory = [...this.runState.gradNormHistory, gradNorm].slice(-cfg.rollback.window);
    if (!failure && this.validation.due(it + 1)) {
      const v = await this.validation.check(it + 1);
      if (!v) events.push({ kind: 'validation-skipped', text: 'validation skipped: the run was stopped during it' });
      else
        Object.assign(
          metrics,
          { validation_success: v.score, validation_sampled: v.sampled, validation_greedy: v.greedy },
          v.start === undefined ? {} : { validation_start: v.start },
        );
      if (v?.confirmation) {
        const c = v.confirmation;
        Object.assign(metrics, { validation_confirmed: c.held ? 1 : 0, validation_pooled: c.candidate, validation_pooled_best: c.reference });
        if (!c.held) events.push({ kind: 'validation-unconfirmed', text: `validation: ${unconfirmed(c)}; those stay the best` });
      }
      if (v?.fell) {
        const back = this.rollBack(v.fell.to, v.fell.why);
        failure = back.text;
        this.lastClean = null;
        events.push(back);
      }
    }
    Object.assign(metrics, failure ? {} : (update?.stats ?? {}), {
      grad_norm: gradNorm,
      clip_frac: failure ? 0 : (update?.stats.policy_clip_frac ?? 0),
      lr: this.lr(),
      rolled_back: failure ? 1 : 0,
      rollbacks: this.runState.rollbacks,
      updated: update && !failure && !update.skipped ? 1 : 0,
      echo_trap: events.some((e) => e.kind === 'echo-trap') ? 1 : 0,
    });
    for (const [k, v] of Object.entries(metrics)) {
      if (!Number.isFinite(v)) {
        delete metrics[k];
        events.push({ kind: 'metric-dropped', metric: k, text: `metric ${k} was ${v} and is left out` });
      }
    }
    Object.assign(metrics, costSince(costBefore, this.cost()), { adapter_iteration: this.runState.weightsIteration });
    this.runState.iteration = it + 1;
    const adapters = await this.publish();
    await this.o.checkpoints?.save(this.checkpoint());
    metrics.seconds = (performance.now() - started) / 1000;
    return { iteration: it + 1, metrics, events, warnings: events.map((e) => e.text), adapters };
  }

  /**
   * The validation guard's end of the run (ValidationGuard.finish): a clear fall rolls back as mid-run
   * (and lowers the learning rate); adapters that did not clearly beat the best so far give way to it.
   * Publishes and checkpoints what it returns to. Returns the event ('kept-best' or an end-of-run 'rolled-back'), or null.
   */
  private async finish(): Promise<LoopEvent | null> {
    const end = await this.validation.finish(this.runState.iteration);
    if (!end) return null;
    if (end.kind === 'kept') this.runState.weightsIteration = end.iteration;
    const event: LoopEvent = end.kind === 'kept' ? { kind: 'kept-best', why: end.warning, text: end.warning } : this.rollBack(end.to, end.why, true);
    if (end.kind === 'fell') this.lastClean = null;
    await this.publish();
    await this.o.checkpoints?.save(this.checkpoint());
    return { ...event, text: `at the end of the run: ${event.text}` };
  }

  /** Held-out evaluation, sampled and greedy, of the trained policy adapter or (base) the base policy. */
  evaluate(which: 'trained' | 'base', opts: { tasks: number; seed: number; split?: Split }): Promise<HeldOutResult> {
    const cfg = this.ctx.config;
    return evaluateHeldOut(this.o.engine, which === 'trained' ? this.ctx.adapterIds.policy : null, {
      family: cfg.family,
      options: cfg.options,
      tasks: opts.tasks,
      seed: opts.seed,
      split: opts.split,
      turnLimit: cfg.turnLimit,
      maxNewTokens: this.ctx.windows.policyReserve,
    });
  }

  async dispose(): Promise<void> {
    // Stop in the Train view disposes the loop under its rollouts: their episodes end here as aborted
    // rather than stay in progress and read as "interrupted" (resumable) on the next load (issue 49).
    const sink = this.rolloutSink;
    this.rolloutSink = null;
    await sink?.abort('the training run was stopped during its rollouts').catch(() => undefined);
    for (const l of Object.values(this.algo.learners)) await l?.dispose();
  }

  /** The weights that play this run's rollouts, as stored episodes name them. */
  private modelRef(): ModelRef {
    return { policy: MODEL_NAMES.policy, adapter: this.ctx.adapterIds.policy, critic: this.algo.learners.critic ? this.ctx.adapterIds.critic : null };
  }

  private lr(): number {
    return this.algo.learners.policy?.lr ?? 0;
  }

  private states(): LearnerState[] {
    return this.targets().map((t) => (this.algo.learners[t] as NonNullable<Algorithm['learners'][LearnerTarget]>).state());
  }

  /** Returns the learners to saved states (a rollback's or the validation guard's adapters and AdamW state). */
  private load(states: readonly LearnerState[]): void {
    for (const s of states) this.algo.learners[s.target]?.load(s);
  }

  /** A guard's rollback: returns the learners to `to`'s adapters, lowers the learning rate and counts it; returns the event. */
  private rollBack(to: { iteration: number; states: readonly LearnerState[] }, why: string, atEnd = false): LoopEvent & { kind: 'rolled-back' } {
    this.load(to.states);
    for (const l of Object.values(this.algo.learners)) if (l) l.lr *= this.ctx.config.rollback.lrDecay;
    return this.runState.rolledBack(to.iteration, why, this.lr(), atEnd);
  }

  private checkpoint(): TrainCheckpoint {
    return this.runState.checkpoint({ runId: this.runId, algo: this.algo.name, lr: this.lr(), best: this.validation.best, learners: this.states() });
  }

  private restore(c: TrainCheckpoint): void {
    if (c.algo !== this.algo.name) throw new AlgoError('bad-checkpoint', `run ${this.runId} was checkpointed by ${c.algo}, not ${this.algo.name}`);
    const scale = c.lr / this.ctx.config.lr;
    for (const s of c.learners) {
      const l = this.algo.learners[s.target];
      if (!l) throw new AlgoError('bad-checkpoint', `checkpoint holds a ${s.target} adapter that ${this.algo.name} does not train`);
      l.load(s);
      l.lr = (s.target === 'policy' ? this.ctx.config.lr : this.ctx.config.criticLr) * scale;
    }
    this.runState.restore(c);
    this.validation.best = c.best ?? null;
  }

  /** Iteration `it`'s rollouts (its tasks, K each, its sampling seed) played by the policy adapter `adapterId`. */
  private async play(adapterId: string, it: number, opts: Parameters<typeof rollout>[2] = {}): Promise<Awaited<ReturnType<typeof rollout>>> {
    const cfg = this.ctx.config;
    const agent = await PolicyBatchAgent.create(this.o.engine, {
      adapter: adapterId,
      sampling: { temperature: cfg.rolloutTemperature ?? 1, maxNewTokens: this.ctx.windows.policyReserve },
    });
    return rollout(
      { tasks: iterationTasks(cfg, it), k: cfg.k, seed: hashString(`rollout/${cfg.seed}/${it}`), ...(cfg.turnLimit ? { turnLimit: cfg.turnLimit } : {}) },
      agent,
      opts,
    );
  }

  /** Per task of iteration `it`, the success share of the K episodes the policy adapters in `states` play on it. */
  private async perTaskSuccessOf(states: readonly LearnerState[], it: number): Promise<number[]> {
    const policy = this.algo.learners.policy;
    const saved = states.find((s) => s.target === 'policy');
    if (!policy || !saved) return [];
    const adapter = policy.adapterOf(saved);
    const id = `${this.ctx.adapterIds.policy}#reference`;
    await this.o.engine.setAdapter(id, adapter, { model: MODEL_NAMES.policy, activate: false });
    return perTaskSuccess((await this.play(id, it)).episodes, this.ctx.config.k);
  }

  /** The policy learner's current adapter on the validation tasks (validation.ts playValidation, draw as there); null when stop() came during it. */
  private async playValidation(draw: number): Promise<ValidationPlay | null> {
    const policy = this.algo.learners.policy;
    if (!policy) return { outcomes: [], sampled: [], greedy: [] };
    const id = `${this.ctx.adapterIds.policy}#validation`;
    await this.o.engine.setAdapter(id, policy.adapter(), { model: MODEL_NAMES.policy, activate: false });
    return playValidation(this.o.engine, id, this.ctx.config, this.ctx.windows.policyReserve, this.stopSignal.signal, draw);
  }

  /** Sends every adapter to the engine (not activated: requests name it) and to the publish listener. */
  private async publish(): Promise<Partial<Record<LearnerTarget, string>>> {
    const out: Partial<Record<LearnerTarget, string>> = {};
    for (const t of this.targets()) {
      const adapter = this.adapter(t);
      const id = this.ctx.adapterIds[t];
      await this.o.engine.setAdapter(id, adapter, { model: MODEL_NAMES[t], activate: false });
      await this.o.publish?.(t, id, adapter, this.runState.weightsIteration);
      out[t] = id;
    }
    return out;
  }

  /** Tokens and seconds spent so far in train steps (every learner) and in scoring. */
  private cost(): IterationCost {
    return costSoFar(
      Object.values(this.algo.learners).filter((l) => l !== undefined),
      this.ctx.scoreMeter,
    );
  }
}
