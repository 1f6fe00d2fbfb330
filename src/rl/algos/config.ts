// Configuration of the training loop: the algorithm's settings (algoSettings.ts), LoRA, rollback and
// Echo Trap guards, budgets, and overrides from JSON, validated once where it enters (docs/style.md point 3).
import { ALL_LORA_TARGETS, type LoraSpec } from '../model/llama/weights.ts';
import { taskOptions, type ModelMeta } from '../model/meta.ts';
import type { LessonStart } from '../envs/family.ts';
import type { JsonObject, TaskSpec } from '../envs/types.ts';
import { isPlainObject } from '../util/json.ts';
import { FAMILY_NAMES, type FamilyName } from '../envs/registry.ts';
import { hashString } from '../util/rng.ts';
import { AlgoError } from './types.ts';
import { CRITIC_LR, type AlgoSettings } from './algoSettings.ts';
import { algoSections, algoSpec, defaultLr, defaultSettings, type AlgoName } from './registry.ts';
import { firstIssue } from './spec.ts';

/**
 * Rollback guards: on NaN/inf or a loss spike (losses), and on outcomes — an update that moves the
 * policy too far on its own rollouts, or rollouts whose success collapsed — so that an adapter
 * failing a guard is never published (issues 19 and 22: lr 1e6 gave held-out 0% with losses that
 * looked fine).
 */
export interface RollbackConfig {
  /** A loss above this multiple of the recent median |loss| (and above minLoss) counts as a spike. */
  spikeFactor: number;
  /** Spikes need |loss| above this too (tiny losses fluctuate by large factors). */
  minLoss: number;
  /** Losses remembered for the median. */
  window: number;
  /** The learning rate is multiplied by this after a rollback. */
  lrDecay: number;
  /**
   * Largest accepted k3 KL (nats per sampled token) from the rollouts' recorded log-probs to the
   * updated policy on the same tokens; a larger move is undone before the adapter is published.
   * GRPO on guess at lr 1e-3 measured 0.013, 0.013, 0.22 over its first three iterations; lr 0.9 on
   * a small run far above 0.5. 0 turns the check off.
   */
  maxUpdateKl: number;
  /**
   * Rollout success falling more than this (absolute) below the mean of the last `window`
   * iterations, and more than 3 × their noise (guards.ts successCollapse), rolls back to the adapters
   * before it, if those win the same tasks clearly more often (guards.ts collapseConfirmed). 1 turns it off.
   */
  successDrop: number;
  /**
   * The validation guard: every `validateEvery` iterations, and at the end of a run that completes
   * at least that many (TrainingLoop.run), the policy plays `validateTasks` fixed train-split tasks, one sampled
   * episode each with fixed seeds and one greedy; the best-scoring adapters so far are kept, and a score more than
   * `validateDrop` (absolute) and 2.5 paired standard errors below the best returns the learners to
   * them (guards.ts validationDrop). Rollout success alone cannot see a fall of 18 points over the last
   * iterations of a run (SWEET-RL on guess, 2026-12-02): each iteration's 8 new tasks swing it ±10
   * points. A run ends on the best validated adapters, those it began with unless an update beat them
   * by 2 paired standard errors, on a second draw of the sampled episodes too (guards.ts validationGain,
   * validation.ts ValidationGuard.confirm). validateEvery 0 turns
   * the guard off; validateDrop 1 only its rollbacks. 128 tasks, not 64: a rise of 4–5 points is short of
   * 2 standard errors of 64 tasks (GRPO on backend, six-g, seed 1: 0.906 → 0.95 and the run ended
   * on its start, 72.5% held-out; with 128 it kept iteration 48's adapters, 81.5%;
   * docs/experiments/2026-12-04-validation-128-tasks.md).
   */
  validateEvery: number;
  validateTasks: number;
  validateDrop: number;
  /**
   * Whom a new best must beat by 2 paired standard errors: 'best', every best so far (a ratchet),
   * or 'start', only the adapters the run began with; once beaten, later adapters take the best's
   * place on a higher mean over both draws. With 'best' a lucky early draw keeps early adapters: on
   * guess's lesson a run ended on iteration 16's (79%) with its final ones at 84%
   * (docs/experiments/2026-12-06-turn-credit-lesson.md). The start stays guarded either way. Measured
   * there with 'start' (train split, seed 1): the run ended on iteration 128's adapters instead of 48's,
   * and on the same held-out result, −1.5 / +0.5 points (docs/experiments/2026-12-06-validation-bar-start.md).
   */
  validateBar: 'best' | 'start';
}

/** Echo Trap (RAGEN): spread collapse, grad-norm spikes, repeated-template replies. */
export interface EchoConfig {
  /** Warn when the within-group reward spread falls below this share of its best so far. */
  spreadDrop: number;
  /** Warn when the grad norm exceeds this multiple of its recent median. */
  gradSpike: number;
  /**
   * Warn when distinct replies / agent turns falls below this share of the first iteration's (the
   * base policy's own diversity: small action spaces such as bandit arms or guess questions repeat
   * replies by nature, so an absolute floor would fire from the start).
   */
  distinctDrop: number;
  /**
   * Also roll back (to the last adapter before any warning sign) when an iteration's update shows a
   * gradient-norm spike, RAGEN's mark of an unrecoverable collapse. Default false: a spike alone also
   * comes with a policy that got much better (all groups solved, spread 0).
   */
  rollbackOnSpike: boolean;
}

/** The training loop. */
export interface LoopConfig {
  settings: AlgoSettings;
  /** Task family trained and evaluated. */
  family: FamilyName;
  /** Family option overrides (train and held-out alike). */
  options?: JsonObject;
  /**
   * The manifest model the policy starts from when not the shipped one: 'student', a lesson's earlier
   * checkpoint of the same forge (envs/family.ts LessonStart). The run's adapters adapt it and record it
   * as their base, so Play and Evaluate apply them to it.
   */
  start?: 'student';
  /** Seeds task draws, rollouts, adapter initialisation and shuffles. */
  seed: number;
  /** Task groups per iteration. */
  tasksPerIteration: number;
  /**
   * The overfit check (issue #45): when N > 0 the iterations draw their tasks from one fixed set of N
   * train tasks instead of new ones each time (iterationTasks), so a loop that learns at all must
   * master them; a loop that cannot overfit a handful of tasks cannot generalise. 0 = off; at least
   * tasksPerIteration, so no task plays twice in one iteration.
   */
  fixedTasks: number;
  /** K: episodes per task (the group). */
  k: number;
  /** Turn limit T (default: the task's own). */
  turnLimit?: number;
  /** Reply budget per turn (default: the model's turnwise.maxReplyTokens, else 64). */
  maxNewTokens?: number;
  /**
   * Sampling temperature of the training rollouts (default 1; validation and held-out play keep
   * theirs). Above 1 the rollouts try the moves the policy rarely makes; their recorded log-probs stay
   * the model's at temperature 1 (runtime/engine/sampling.ts), so the update treats them as the
   * policy's own samples, a bias traded for exploration. kl_ref and the update guard's KL (k3 over
   * the rollouts' tokens) then read tokens the policy would rarely sample and run high: at 1.5 the
   * guard rolled the first update back (KL 1.71) and kl_ref reached 86 late in one run.
   */
  rolloutTemperature?: number;
  /** The LoRA shape of both adapters; must fit the engine's adapter slot (default rank 8, α 16, all projections). */
  lora: LoraSpec;
  /**
   * Standard deviation of the LoRA A matrices at initialisation (B starts at zero). Default
   * 1/√d_model, the order of PEFT's Kaiming-uniform A. AdamW moves every entry by about lr per step
   * whatever the gradient's size, so A's scale sets how fast A is rewritten relative to itself: at
   * 0.02 (initLora's default) and lr 3e-3 the shipped policy's A changed by several times its own
   * size in one iteration and the policy collapsed
   * (docs/experiments/2026-11-30-grpo-first-runs-and-step-size.md).
   */
  loraInitStd?: number;
  /** Policy learning rate (AdamW). */
  lr: number;
  /** Critic learning rate. */
  criticLr: number;
  /** Global gradient-norm clip. */
  maxGradNorm: number;
  /** Weight of a person's thumbs (±1 per turn) added to the environment's per-turn reward. */
  feedbackWeight: number;
  /**
   * Turn rewards from information (in the spirit of IGPO and ECHO, arXiv 2606.29745): each question's
   * expected information gain over the remaining candidates, in bits (guess's info.informationGain),
   * times this weight is added to its turn reward for the update only (metrics and stored episodes
   * keep the environment's reward). Small, so guessing stays worth it: at 0.05 a perfect question of
   * a 4-candidate game earns +0.05 against 1 for the win. 0 = off; families without the field are unchanged.
   */
  infoGainReward: number;
  rollback: RollbackConfig;
  echo: EchoConfig;
}

/** Default LoRA: rank 8, α 16 over every projection (the engine's default adapter slot). */
export const DEFAULT_LORA: LoraSpec = { rank: 8, alpha: 16, targets: ALL_LORA_TARGETS };

/** A loop configuration with defaults for everything but the algorithm and family. */
export function defaultLoopConfig(algo: AlgoName, family: FamilyName, over: Partial<Omit<LoopConfig, 'settings'>> = {}): LoopConfig {
  return {
    settings: defaultSettings(algo),
    family,
    seed: 1,
    tasksPerIteration: 8,
    fixedTasks: 0,
    k: 8,
    lora: DEFAULT_LORA,
    lr: defaultLr(algo),
    criticLr: CRITIC_LR,
    maxGradNorm: 1,
    feedbackWeight: 1,
    infoGainReward: 0,
    rollback: {
      spikeFactor: 10,
      minLoss: 1,
      window: 8,
      lrDecay: 0.5,
      maxUpdateKl: 0.5,
      successDrop: 0.3,
      validateEvery: 8,
      validateTasks: 128,
      validateDrop: 0.05,
      validateBar: 'best',
    },
    echo: { spreadDrop: 0.2, gradSpike: 5, distinctDrop: 0.25, rollbackOnSpike: false },
    ...over,
  };
}

/** What a person asks of a run: the Train view's form or the CLI's flags. */
export interface RunRequest {
  algo: AlgoName;
  family: FamilyName;
  seed: number;
  /** Policy learning rate; default defaultLr(algo). */
  lr?: number;
  tasksPerIteration: number;
  k: number;
  /** LoopConfig.fixedTasks (the CLI's --fixed-tasks); default 0, new tasks every iteration. */
  fixedTasks?: number;
  /** Task options; default: those the policy was forged on (its config.json turnwise.tasks). */
  options?: JsonObject;
  /** The policy it starts from (a lesson's start); default the shipped policy. */
  start?: LessonStart;
  /** Overrides of any config field (the CLI's --config, the form's overrides box), checked by overrideConfig. */
  overrides?: JsonObject;
}

/**
 * A run's LoopConfig, resolved in one place for the CLI and the Train view: the paper defaults, the
 * request, the policy's forged task options (`policy`: its model metadata), then the overrides; validated.
 */
export function resolveLoopConfig(req: RunRequest, policy: ModelMeta | undefined): LoopConfig {
  const options = req.options ?? taskOptions(policy, req.family);
  const config = defaultLoopConfig(req.algo, req.family, {
    seed: req.seed,
    tasksPerIteration: req.tasksPerIteration,
    k: req.k,
    ...(req.fixedTasks !== undefined ? { fixedTasks: req.fixedTasks } : {}),
    ...(req.lr !== undefined ? { lr: req.lr } : {}),
    ...(options ? { options } : {}),
    ...(req.start === 'student' ? { start: req.start } : {}),
  });
  return req.overrides ? overrideConfig(config, req.overrides) : validateLoopConfig(config);
}

/** Optional LoopConfig fields an override may set although the defaults leave them out. */
const OPTIONAL_FIELDS = new Set(['options', 'turnLimit', 'maxNewTokens', 'rolloutTemperature', 'loraInitStd']);

function mergeKnown(base: Record<string, unknown>, over: JsonObject, path: string, optional: ReadonlySet<string> = new Set()): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const at = path ? `${path}.${k}` : k;
    if (!(k in base) && !optional.has(k))
      throw new AlgoError('bad-config', `unknown config field "${at}" (known: ${[...Object.keys(base), ...optional].join(', ')})`);
    const cur = base[k];
    if (isPlainObject(cur) && isPlainObject(v) && k !== 'options') out[k] = mergeKnown(cur, v, at);
    else if (cur !== undefined && typeof cur !== typeof v)
      throw new AlgoError('bad-config', `config field "${at}" must be a ${typeof cur}, got ${JSON.stringify(v)}`);
    else out[k] = v;
  }
  return out;
}

/**
 * A loop configuration with fields overridden from JSON (the CLI's and the benchmark's `--config`):
 * loop fields by name (`{"lr": 1e-3, "rollback": {"lrDecay": 0.5}}`) and the algorithm's own section
 * under its key (`{"starpo": {"divideByStd": false}}`, `{"sweet": {"candidates": 8}}`). Unknown
 * fields and type changes throw AlgoError('bad-config'); the result is validated.
 */
export function overrideConfig(config: LoopConfig, over: JsonObject): LoopConfig {
  const { settings, ...loop } = config;
  const section = algoSpec(settings.algo).section;
  const { [section]: algoOver, ...loopOver } = over;
  for (const k of [...algoSections(), 'settings']) {
    if (k in loopOver) throw new AlgoError('bad-config', `config section "${k}" does not belong to --algo ${settings.algo} (its section is "${section}")`);
  }
  const merged = mergeKnown(loop as unknown as Record<string, unknown>, loopOver, '', OPTIONAL_FIELDS) as unknown as Omit<LoopConfig, 'settings'>;
  let s: AlgoSettings = settings;
  if (algoOver !== undefined) {
    if (!isPlainObject(algoOver)) throw new AlgoError('bad-config', `config section "${section}" must be an object`);
    const cur = (settings as unknown as Record<string, Record<string, unknown>>)[section];
    s = { ...settings, [section]: mergeKnown(cur, algoOver as JsonObject, section) } as AlgoSettings;
  }
  return validateLoopConfig({ ...merged, settings: s });
}

function positive(field: string, v: number, integer = false): void {
  if (!(v > 0) || !Number.isFinite(v) || (integer && !Number.isInteger(v)))
    throw new AlgoError('bad-config', `${field} must be a positive ${integer ? 'integer' : 'number'}, got ${v}`);
}

/** Checks a loop configuration; throws AlgoError('bad-config') naming the field. */
export function validateLoopConfig(c: LoopConfig): LoopConfig {
  const spec = algoSpec(c.settings.algo); // throws for an unknown algorithm, naming the known ones
  if (!FAMILY_NAMES.includes(c.family)) throw new AlgoError('bad-config', `unknown family "${c.family}"`);
  if (c.start !== undefined && c.start !== 'student')
    throw new AlgoError('bad-config', `start must be "student" or absent (the shipped policy), got ${JSON.stringify(c.start)}`);
  positive('tasksPerIteration', c.tasksPerIteration, true);
  positive('k', c.k, true);
  if (!(Number.isInteger(c.fixedTasks) && (c.fixedTasks === 0 || c.fixedTasks >= c.tasksPerIteration)))
    throw new AlgoError(
      'bad-config',
      `fixedTasks must be 0 (off) or a whole number ≥ tasksPerIteration (${c.tasksPerIteration}), so no task plays twice in one iteration; got ${c.fixedTasks}`,
    );
  if (c.k < 2) throw new AlgoError('bad-config', `k must be at least 2 (groups compare episodes of one task), got ${c.k}`);
  // the same range as the CLI's --lr, checked here so that --config and the form's overrides cannot pass it
  for (const [field, lr] of [
    ['lr', c.lr],
    ['criticLr', c.criticLr],
  ] as const) {
    if (!(lr > 0 && lr < 1)) throw new AlgoError('bad-config', `${field} must lie in (0, 1), got ${lr}`);
  }
  if (c.loraInitStd !== undefined) positive('loraInitStd', c.loraInitStd);
  positive('maxGradNorm', c.maxGradNorm);
  positive('lora.rank', c.lora.rank, true);
  positive('lora.alpha', c.lora.alpha);
  if (c.rolloutTemperature !== undefined && !(c.rolloutTemperature > 0 && c.rolloutTemperature <= 4))
    throw new AlgoError('bad-config', `rolloutTemperature must lie in (0, 4], got ${c.rolloutTemperature}`);
  if (!(c.infoGainReward >= 0 && Number.isFinite(c.infoGainReward)))
    throw new AlgoError('bad-config', `infoGainReward must be a finite number ≥ 0 (0 = off), got ${c.infoGainReward}`);
  if (!(c.feedbackWeight >= 0)) throw new AlgoError('bad-config', `feedbackWeight must be ≥ 0, got ${c.feedbackWeight}`);
  if (!(c.rollback.lrDecay > 0 && c.rollback.lrDecay < 1)) throw new AlgoError('bad-config', `rollback.lrDecay must lie in (0, 1), got ${c.rollback.lrDecay}`);
  if (!(c.rollback.maxUpdateKl >= 0)) throw new AlgoError('bad-config', `rollback.maxUpdateKl must be ≥ 0 (0 = off), got ${c.rollback.maxUpdateKl}`);
  if (!(c.rollback.successDrop > 0 && c.rollback.successDrop <= 1))
    throw new AlgoError('bad-config', `rollback.successDrop must lie in (0, 1] (1 = off), got ${c.rollback.successDrop}`);
  if (!(Number.isInteger(c.rollback.validateEvery) && c.rollback.validateEvery >= 0))
    throw new AlgoError('bad-config', `rollback.validateEvery must be a whole number ≥ 0 (0 = off), got ${c.rollback.validateEvery}`);
  if (!(Number.isInteger(c.rollback.validateTasks) && c.rollback.validateTasks >= 2))
    throw new AlgoError('bad-config', `rollback.validateTasks must be a whole number ≥ 2, got ${c.rollback.validateTasks}`);
  if (!(c.rollback.validateDrop >= 0 && c.rollback.validateDrop <= 1))
    throw new AlgoError('bad-config', `rollback.validateDrop must lie in [0, 1] (1 = no rollbacks), got ${c.rollback.validateDrop}`);
  if (c.rollback.validateBar !== 'best' && c.rollback.validateBar !== 'start')
    throw new AlgoError('bad-config', `rollback.validateBar must be 'best' or 'start', got ${JSON.stringify(c.rollback.validateBar)}`);
  // the algorithm's section, checked by its spec's schema (specs/*.ts)
  const issue = firstIssue(spec.schema, (c.settings as unknown as Record<string, unknown>)[spec.section]);
  if (issue) throw new AlgoError('bad-config', issue);
  return c;
}

/** The validation guard's tasks (RollbackConfig.validateTasks): train-split tasks drawn apart from every iteration's. */
export function validationTasks(cfg: Pick<LoopConfig, 'family' | 'seed' | 'options' | 'rollback'>): TaskSpec[] {
  return Array.from({ length: cfg.rollback.validateTasks }, (_, i) => ({
    family: cfg.family,
    split: 'train',
    seed: hashString(`validate/${cfg.seed}/${i}`) & 0x7fffffff,
    ...(cfg.options ? { options: cfg.options } : {}),
  }));
}

/**
 * The training tasks of iteration `it` (train split, seeds hashed from the run seed), so a caller can
 * check them before a run starts. With fixedTasks N the iterations walk one fixed set of N tasks in
 * turn (task j of the set has seed hash(fixed/seed/j)), tasksPerIteration at a time, so every task
 * comes back every N / tasksPerIteration iterations.
 */
export function iterationTasks(cfg: Pick<LoopConfig, 'family' | 'seed' | 'tasksPerIteration' | 'fixedTasks' | 'options'>, it: number): TaskSpec[] {
  return Array.from({ length: cfg.tasksPerIteration }, (_, i) => ({
    family: cfg.family,
    split: 'train',
    seed:
      hashString(cfg.fixedTasks > 0 ? `fixed/${cfg.seed}/${(it * cfg.tasksPerIteration + i) % cfg.fixedTasks}` : `train/${cfg.seed}/${it}/${i}`) & 0x7fffffff,
    ...(cfg.options ? { options: cfg.options } : {}),
  }));
}
