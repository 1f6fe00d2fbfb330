// The forge's configuration (issue #4 point 5, docs/design.md "The default models are ours"): which task
// families the default policy imitates and how much of each, the model's size, the SFT budget, and
// the held-out check. Validated once where it enters (docs/style.md point 3); presets for the shipped
// forge and for a seconds-long smoke run.
import type { JsonObject } from '../envs/types.ts';
import { isPlainObject } from '../util/json.ts';
import { FAMILY_NAMES, type FamilyName } from '../envs/registry.ts';
import type { SweetCriticConfig } from './criticConfig.ts';

/** One family in the training mixture. */
export interface FamilyMix {
  family: FamilyName;
  /** Share of training episodes drawn from this family (normalised over the mixture). */
  weight: number;
  /** TaskSpec options for this family (training and held-out evaluation alike). */
  options?: JsonObject;
  /**
   * Options laid over `options` for the forge's own episodes only (the tokenizer's sample, teacher
   * dialogues, DAgger plays), never for the held-out check or the model's metadata: data
   * augmentation, e.g. backend's `{"freeValues": 0.5}` (numbers the policy must copy, not recall).
   */
  augment?: JsonObject;
}

/** The options of the forge's own episodes of a family: its task options with the augmentation laid over them. */
export function dataOptions(m: FamilyMix): JsonObject | undefined {
  return m.augment ? { ...m.options, ...m.augment } : m.options;
}

/**
 * A later policy stage: the SFT continued, with a fresh AdamW state, on new shares of the mixture's
 * families (their options unchanged). The shipped forge first learns every family, then leans on the
 * ones whose replies are long or whose decision is one token (backend, bandit), which the first stage
 * under-trains (docs/experiments/2026-11-30-forge-first-generation.md).
 */
export interface RefineStage {
  steps: number;
  /** Peak learning rate of this stage (its own warm-up and cosine decay). */
  lr: number;
  /** Episode shares by family; every family must be in `mix`. */
  weights: Partial<Record<FamilyName, number>>;
  /** Loss weight of the task prompt's tokens (default 0; see `segments`). */
  promptWeight?: number;
  /** Factor on the reply tokens the prompt or the collaborator's turns hold (default 1; see `segments`). */
  copyWeight?: number;
  /** This stage's augmentation by family, in place of the mixture's (see `StageAugment`). */
  augment?: StageAugment;
  /**
   * Mistake rate of this stage's noisy experts by family (default: the config's `noise`). The
   * shipped stage 5 imitates a cleaner bandit teacher: at 0.3 the teacher itself succeeds 70% of
   * the time, so a sampled imitator sat within 7 points of random (51%;
   * docs/experiments/2026-11-30-forge-first-generation.md).
   */
  noise?: Partial<Record<FamilyName, number>>;
  /** Share of this stage's teacher episodes played by the noise-free expert (default: the config's `expertShare`). */
  expertShare?: number;
  /**
   * Tokens per packed row in this stage (default: the config's `seqLen`, the context the policy ships
   * with). A curriculum stage on the short families can train on 256-token rows, a third cheaper per
   * token than 512 (`npx turnwise bench forge-context`); dialogues are then windowed at this length.
   */
  seqLen?: number;
}

/** The first policy stage's departures from the mixture: its own family shares and row length (both optional). */
export interface FirstStage {
  /** Episode shares by family (default: the mixture's weights); every family must be in `mix`. */
  weights?: Partial<Record<FamilyName, number>>;
  /** Tokens per packed row (default: `seqLen`). */
  seqLen?: number;
  /** This stage's augmentation by family, in place of the mixture's (see `StageAugment`). */
  augment?: StageAugment;
}

/**
 * DAgger rounds after the refine stages (dagger.ts): the policy plays train-split tasks, the scripted
 * expert labels every state it visited, and an SFT round trains on all rounds' labels so far mixed
 * with fresh teacher dialogues.
 */
export interface DaggerConfig {
  rounds: number;
  /** Policy episodes played per round, over the mixture's families by weight. */
  episodes: number;
  /** SFT steps per round (fresh AdamW state, warm-up and cosine decay per round). */
  steps: number;
  lr: number;
  /** Share of each round's training segments drawn from the labelled states (the rest: teacher dialogues). */
  share: number;
  /** Share of those teacher dialogues played by the noise-free expert (default: the config's `expertShare`). */
  expertShare?: number;
  /**
   * Episode shares of the families the policy plays (and the expert labels) in these rounds (default:
   * the mixture's weights); the teacher dialogues mixed in stay on the whole mixture (or `teacherWeights`),
   * so the other families are not forgotten.
   */
  weights?: Partial<Record<FamilyName, number>>;
  /**
   * Episode shares of the teacher dialogues mixed into these rounds (default: the mixture's weights).
   * A family trained in a stage before the rounds but absent from their `weights` keeps only its
   * mixture share here. Sokoban's stage took it 10% → 47%, rounds at its 0.1 share back to 26%, and
   * rounds at 0.5 here to 23.5%: the share did not hold it (docs/experiments/2026-12-08-sokoban-dagger-lost-boards.md).
   */
  teacherWeights?: Partial<Record<FamilyName, number>>;
  /**
   * Leave unlabelled the states the policy reached from which no moves can win (a sokoban box stuck):
   * the expert's move there is a placeholder. Off in the presets before the fourth, so they forge what
   * they forged. Rounds playing sokoban took its success on their tasks 42% → 18% in one round without
   * it, 42% → 28% with it (docs/experiments/2026-12-08-sokoban-dagger-lost-boards.md).
   */
  skipLost?: boolean;
  /** These rounds' augmentation by family, in place of the mixture's, for the policy's plays and the teacher dialogues alike (see `StageAugment`). */
  augment?: StageAugment;
}

/**
 * A stage's own augmentation: for each family named, the options laid over its task options in this
 * stage's episodes, replacing the mixture's `augment` (`{}`: none); families not named keep the
 * mixture's. Free values from the first stage cost backend 14 points after stage 2 against the same
 * stages without them (docs/experiments/2026-12-06-forge-from-scratch.md); the chain of runs that
 * made the shipped policy brought them in only at its seventh stage.
 */
export type StageAugment = Partial<Record<FamilyName, JsonObject>>;

/** DAgger rounds among the finish stages: `{"dagger": {...}}` in `--finish`, in `--dagger`'s form plus `weights`. */
export interface FinishDagger {
  dagger: DaggerConfig;
}

/** A step of the finish: an SFT stage or a block of DAgger rounds. */
export type FinishStep = RefineStage | FinishDagger;

export function isFinishDagger(step: FinishStep): step is FinishDagger {
  return isPlainObject(step) && 'dagger' in step;
}

/** Everything `runForge` needs. */
export interface ForgeConfig {
  /** Seeds data, initialisation and evaluation. */
  seed: number;
  /** Families the policy learns, with their shares and options. */
  mix: FamilyMix[];
  /** Mistake rate of the noisy experts whose dialogues are imitated. */
  noise: number;
  /** Share of teacher episodes played by the noise-free expert instead of the noisy one (0: noisy only). */
  expertShare: number;
  /**
   * How the simulated collaborators word their answers in every forge episode: 'canonical' (the
   * shipped first generation) or 'varied' (envs/phrasingsTraining.ts: hedges, slang, typos, extra
   * facts), so the policy and critic meet a person's words before the lab does (issue #18).
   */
  phrasings: 'canonical' | 'varied';
  /** Tokenizer: upper bound on the vocabulary (base tokens included). */
  maxVocab: number;
  /** Episodes per family used to fit the tokenizer. */
  tokenizerEpisodes: number;
  /** Residual width. */
  dModel: number;
  /** Decoder blocks. */
  nLayers: number;
  /** Attention heads. */
  nHeads: number;
  /** SwiGLU hidden width (a multiple of 32). */
  dFf: number;
  /** Sequence length of a training row and the policy's context window in tokens. */
  seqLen: number;
  /** Rows per step. */
  batch: number;
  /** Policy SFT steps (first stage). */
  steps: number;
  /** The first stage's shares and row length where they differ from the mixture's and `seqLen` (a curriculum). */
  firstStage?: FirstStage;
  /** Policy stages after the first, in order. */
  refine: RefineStage[];
  /** DAgger rounds after the refine stages (null: none). */
  dagger: DaggerConfig | null;
  /**
   * Policy stages after the DAgger rounds (default none). The shipped forge ends with a noise-free
   * one: SFT on the expert's dialogues alone narrows what the noisy teacher's 30% of random moves
   * spread (docs/experiments/2026-12-03-forge-six-e-noise-free-finish.md).
   */
  afterDagger?: RefineStage[];
  /**
   * DAgger rounds after the `afterDagger` stages (default none): the finished policy plays again and
   * the expert labels its states. The shipped forge ends with guess rounds: guess's errors are states
   * the teacher's dialogues never reach (docs/experiments/2026-12-03-forge-six-f-dagger-guess.md).
   */
  finalDagger?: DaggerConfig | null;
  /**
   * Policy stages after the final DAgger rounds (default none). The shipped forge ends with the long
   * games on the noise-free expert's dialogues: frozenlake and sokoban need far more of their own rows
   * than the six-family stages gave them (docs/experiments/2026-12-04-forge-six-h-long-games.md).
   * A step may also be a block of DAgger rounds (`FinishDagger`): the third generation's long-game
   * stages cost guess 5 points that DAgger rounds after them bring back
   * (docs/experiments/2026-12-07-frozenlake-describe.md).
   */
  finish?: FinishStep[];
  /**
   * A policy stage whose policy the forge also writes, as the model `student` beside `policy` and
   * `critic` (default none): a lesson may start from "a named earlier checkpoint of the same forge"
   * (issue #45), less trained and nothing else. It must be a stage the forge may resume after.
   */
  student?: number;
  /** Critic SFT steps (LM head with hidden information in the prompt), starting from the policy. */
  criticSteps: number;
  /** Critic value-head steps (MC-return regression over a frozen backbone). */
  valueSteps: number;
  /** The critic's SWEET-RL phase after its SFT: trajectory pairs, Bradley–Terry adapter (critic.ts). */
  sweetCritic: SweetCriticConfig | null;
  /** Peak learning rate (linear warm-up, cosine decay to 10%). */
  lr: number;
  /** Warm-up steps. */
  warmup: number;
  /** Loss weight of collaborator/environment tokens relative to agent tokens (0: agent tokens only). */
  obsWeight: number;
  /** Held-out (test split) episodes per family and agent in the final check; 0 skips it. */
  evalEpisodes: number;
  /** Longest agent reply in tokens when sampling. */
  maxReplyTokens: number;
  /**
   * The policy's windows also keep the agent turn their first reply answers, in training segments and
   * at play (dialogue.ts windowIds; recorded as config.json turnwise.keepAnswered). Default off, so the
   * presets write what they wrote. A frontend draft revises the previous one, which a 192-token reply
   * reserve pushed out of the window on 38% of the policy's later turns
   * (docs/experiments/2026-12-07-frontend-previous-draft.md).
   */
  keepAnswered?: boolean;
  /**
   * Frontend's teachers and DAgger labels write their CSS spaced (`background: red; width: 40px`;
   * frontend/agents.ts spacedDraft), so a value is the same token as in the collaborator's reply and a
   * copied value is a literal copy that `copyWeight` weighs. Default off (the presets' data unchanged).
   */
  spacedCss?: boolean;
  /** A progress line every this many steps. */
  logEvery: number;
  /** Optional wall-clock cap of the policy phase in seconds (breaks determinism across machines). */
  policySeconds?: number;
}

/** A forge configuration that cannot run. */
export class ForgeConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'ForgeConfigError';
  }
}

/** Checks a configuration and returns a frozen copy. */
export function validateForgeConfig(cfg: ForgeConfig): ForgeConfig {
  const ints: (keyof ForgeConfig)[] = [
    'maxVocab',
    'tokenizerEpisodes',
    'dModel',
    'nLayers',
    'nHeads',
    'dFf',
    'seqLen',
    'batch',
    'steps',
    'maxReplyTokens',
    'logEvery',
  ];
  for (const f of ints) {
    const v = cfg[f];
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) throw new ForgeConfigError(f, `forge: ${f} must be a positive integer, got ${String(v)}`);
  }
  for (const f of ['keepAnswered', 'spacedCss'] as const)
    if (cfg[f] !== undefined && typeof cfg[f] !== 'boolean') throw new ForgeConfigError(f, `forge: ${f} must be true or false, got ${String(cfg[f])}`);
  for (const f of ['criticSteps', 'valueSteps', 'warmup', 'evalEpisodes', 'seed'] as const) {
    const v = cfg[f];
    if (!Number.isInteger(v) || v < 0) throw new ForgeConfigError(f, `forge: ${f} must be a non-negative integer, got ${v}`);
  }
  if (!(cfg.lr > 0)) throw new ForgeConfigError('lr', `forge: lr must be > 0, got ${cfg.lr}`);
  if (!(cfg.noise >= 0 && cfg.noise <= 1)) throw new ForgeConfigError('noise', `forge: noise must lie in [0, 1], got ${cfg.noise}`);
  if (!(cfg.obsWeight >= 0)) throw new ForgeConfigError('obsWeight', `forge: obsWeight must be ≥ 0, got ${cfg.obsWeight}`);
  if (cfg.mix.length === 0) throw new ForgeConfigError('mix', 'forge: the family mixture is empty');
  for (const m of cfg.mix) {
    if (!FAMILY_NAMES.includes(m.family)) throw new ForgeConfigError('mix', `forge: unknown family "${m.family}"`);
    if (!(m.weight > 0)) throw new ForgeConfigError('mix', `forge: family ${m.family} needs a weight > 0, got ${m.weight}`);
    for (const [field, v] of [
      ['options', m.options],
      ['augment', m.augment],
    ] as const) {
      if (v !== undefined && !isPlainObject(v))
        throw new ForgeConfigError('mix', `forge: family ${m.family}: ${field} must be a JSON object, got ${JSON.stringify(v)}`);
    }
  }
  const families = new Set(cfg.mix.map((m) => m.family));
  const badRows = (n: number | undefined) => n !== undefined && !(Number.isInteger(n) && n >= 16 && n <= cfg.seqLen);
  // a stage's shares: at least one, each naming a family of the mixture with a share > 0
  const badShares = (weights: Partial<Record<FamilyName, number>>) => {
    const entries = Object.entries(weights);
    return entries.length === 0 || entries.some(([f, w]) => !families.has(f as FamilyName) || !(typeof w === 'number' && w > 0));
  };
  // a stage's augmentation: families of the mixture, each a JSON object of options
  const badAugment = (augment: StageAugment | undefined) =>
    augment !== undefined && (!isPlainObject(augment) || Object.entries(augment).some(([f, a]) => !families.has(f as FamilyName) || !isPlainObject(a)));
  const first = cfg.firstStage;
  if (badAugment(first?.augment))
    throw new ForgeConfigError('firstStage', `forge: firstStage.augment must map families of the mixture to JSON objects of options`);
  if (first?.weights && badShares(first.weights)) {
    throw new ForgeConfigError('firstStage', `forge: firstStage.weights must name families of the mixture (${[...families].join(', ')}) with shares > 0`);
  }
  const after = cfg.afterDagger ?? [];
  const finish = cfg.finish ?? [];
  const finishDaggers = finish.filter(isFinishDagger).map((step) => step.dagger);
  const later = [...cfg.refine, ...after, ...finish.filter((step): step is RefineStage => !isFinishDagger(step))];
  if (badRows(first?.seqLen) || later.some((st) => badRows(st.seqLen)))
    throw new ForgeConfigError('seqLen', `forge: a stage's seqLen must be a whole number in [16, ${cfg.seqLen}] (the context)`);
  const checkStages = (stages: readonly FinishStep[], field: 'refine' | 'afterDagger' | 'finish') => {
    for (const [i, st] of stages.entries()) {
      if (isFinishDagger(st)) continue;
      const name = `${field} stage ${i + 1}`;
      if (!Number.isInteger(st.steps) || st.steps <= 0 || !(st.lr > 0) || !((st.promptWeight ?? 0) >= 0) || !((st.copyWeight ?? 1) >= 1))
        throw new ForgeConfigError(field, `forge: ${name} needs steps > 0, lr > 0, promptWeight ≥ 0 and copyWeight ≥ 1`);
      if (badShares(st.weights))
        throw new ForgeConfigError(field, `forge: ${name} weights must name families of the mixture (${[...families].join(', ')}) with shares > 0`);
      if (badAugment(st.augment)) throw new ForgeConfigError(field, `forge: ${name} augment must map families of the mixture to JSON objects of options`);
      if (Object.entries(st.noise ?? {}).some(([f, n]) => !families.has(f as FamilyName) || !(typeof n === 'number' && n >= 0 && n <= 1))) {
        throw new ForgeConfigError(field, `forge: ${name} noise must name families of the mixture with rates in [0, 1]`);
      }
    }
  };
  checkStages(cfg.refine, 'refine');
  checkStages(after, 'afterDagger');
  checkStages(finish, 'finish');
  if (cfg.dFf % 32 !== 0 || cfg.dModel % 32 !== 0)
    throw new ForgeConfigError('dFf', `forge: dModel ${cfg.dModel} and dFf ${cfg.dFf} must be multiples of 32 (4-bit blocks)`);
  if (cfg.phrasings !== 'canonical' && cfg.phrasings !== 'varied')
    throw new ForgeConfigError('phrasings', `forge: phrasings must be "canonical" or "varied", got ${JSON.stringify(cfg.phrasings)}`);
  const badShare = (x: number | undefined) => !((x ?? 0) >= 0 && (x ?? 0) <= 1);
  const daggers = [cfg.dagger, cfg.finalDagger, ...finishDaggers];
  if (badShare(cfg.expertShare) || later.some((st) => badShare(st.expertShare)) || daggers.some((d) => badShare(d?.expertShare)))
    throw new ForgeConfigError('expertShare', 'forge: expertShare must lie in [0, 1]');
  const checkDagger = (d: DaggerConfig | null | undefined, field: 'dagger' | 'finalDagger' | 'finish') => {
    if (
      d &&
      !(
        Number.isInteger(d.rounds) &&
        d.rounds > 0 &&
        Number.isInteger(d.episodes) &&
        d.episodes > 0 &&
        Number.isInteger(d.steps) &&
        d.steps > 0 &&
        d.lr > 0 &&
        d.share >= 0 &&
        d.share <= 1
      )
    ) {
      throw new ForgeConfigError(field, `forge: ${field} needs whole rounds, episodes and steps > 0, lr > 0 and share in [0, 1]`);
    }
    if (d?.weights && badShares(d.weights))
      throw new ForgeConfigError(field, `forge: ${field} weights must name families of the mixture (${[...families].join(', ')}) with shares > 0`);
    if (d?.skipLost !== undefined && typeof d.skipLost !== 'boolean') throw new ForgeConfigError(field, `forge: ${field} skipLost must be true or false`);
    if (d?.teacherWeights && badShares(d.teacherWeights))
      throw new ForgeConfigError(field, `forge: ${field} teacherWeights must name families of the mixture (${[...families].join(', ')}) with shares > 0`);
    if (badAugment(d?.augment)) throw new ForgeConfigError(field, `forge: ${field} augment must map families of the mixture to JSON objects of options`);
  };
  checkDagger(cfg.dagger, 'dagger');
  checkDagger(cfg.finalDagger, 'finalDagger');
  if (finishDaggers.some((d) => !isPlainObject(d)))
    throw new ForgeConfigError('finish', 'forge: a finish step\'s "dagger" must be a JSON object of DAgger rounds');
  for (const d of finishDaggers) checkDagger(d, 'finish');
  if (cfg.student !== undefined) {
    const last = policyStageCount(cfg);
    if (!Number.isInteger(cfg.student) || cfg.student < 1 || cfg.student >= last)
      throw new ForgeConfigError('student', `forge: student must be a policy stage in [1, ${last - 1}] (before the last), got ${String(cfg.student)}`);
    const inside = resumeBlock(cfg, cfg.student);
    if (inside) throw new ForgeConfigError('student', `forge: student stage ${cfg.student} is inside a block of DAgger rounds (${inside.reason})`);
  }
  const copyDagger = (d: DaggerConfig) => ({
    ...d,
    ...(d.weights ? { weights: { ...d.weights } } : {}),
    ...(d.teacherWeights ? { teacherWeights: { ...d.teacherWeights } } : {}),
    ...copyAugment(d.augment),
  });
  const sc = cfg.sweetCritic;
  if (sc) validateSweetCritic(sc);
  return Object.freeze({
    ...cfg,
    dagger: cfg.dagger ? copyDagger(cfg.dagger) : null,
    ...(cfg.finalDagger ? { finalDagger: copyDagger(cfg.finalDagger) } : {}),
    sweetCritic: sc ? { ...sc, noises: [...sc.noises], swaps: [...sc.swaps] } : null,
    mix: cfg.mix.map((m) => ({ ...m })),
    ...(first ? { firstStage: { ...first, ...(first.weights ? { weights: { ...first.weights } } : {}), ...copyAugment(first.augment) } } : {}),
    refine: cfg.refine.map(copyStage),
    ...(cfg.afterDagger ? { afterDagger: cfg.afterDagger.map(copyStage) } : {}),
    ...(cfg.finish ? { finish: cfg.finish.map((step) => (isFinishDagger(step) ? { dagger: copyDagger(step.dagger) } : copyStage(step))) } : {}),
  });
}

function copyStage(st: RefineStage): RefineStage {
  return { ...st, weights: { ...st.weights }, ...(st.noise ? { noise: { ...st.noise } } : {}), ...copyAugment(st.augment) };
}

function copyAugment(augment: StageAugment | undefined): { augment?: StageAugment } {
  return augment ? { augment: Object.fromEntries(Object.entries(augment).map(([f, a]) => [f, { ...a }])) } : {};
}

function validateSweetCritic(sc: SweetCriticConfig): void {
  for (const f of ['tasks', 'epochs', 'pairBatch', 'maxRejected'] as const) {
    if (!Number.isInteger(sc[f]) || sc[f] <= 0) throw new ForgeConfigError('sweetCritic', `forge: sweetCritic.${f} must be a positive integer, got ${sc[f]}`);
  }
  if ([sc.policyEpisodes, sc.heldOutEvery, sc.branches].some((n) => !Number.isInteger(n) || n < 0))
    throw new ForgeConfigError('sweetCritic', 'forge: sweetCritic.policyEpisodes, branches and heldOutEvery must be non-negative integers');
  if (!Array.isArray(sc.swaps) || sc.swaps.some((k) => k !== 'expert' && k !== 'random'))
    throw new ForgeConfigError('sweetCritic', `forge: sweetCritic.swaps lists players among "expert" and "random", got ${JSON.stringify(sc.swaps)}`);
  if (typeof sc.trajectoryPairs !== 'boolean')
    throw new ForgeConfigError('sweetCritic', `forge: sweetCritic.trajectoryPairs must be true or false, got ${JSON.stringify(sc.trajectoryPairs)}`);
  if (sc.branchRows !== 'trajectory' && sc.branchRows !== 'turn')
    throw new ForgeConfigError('sweetCritic', `forge: sweetCritic.branchRows must be "trajectory" or "turn", got ${JSON.stringify(sc.branchRows)}`);
  if (!Number.isInteger(sc.candidateRerolls) || sc.candidateRerolls < 1)
    throw new ForgeConfigError('sweetCritic', `forge: sweetCritic.candidateRerolls must be a positive integer, got ${sc.candidateRerolls}`);
  if (sc.candidateRerolls > 1 && sc.branchRows !== 'turn')
    throw new ForgeConfigError('sweetCritic', 'forge: sweetCritic.candidateRerolls labels candidate turns, so it needs branchRows "turn"');
  if (!sc.trajectoryPairs && sc.branches === 0 && sc.swaps.length === 0)
    throw new ForgeConfigError('sweetCritic', 'forge: sweetCritic.trajectoryPairs false leaves only branch pairs, so it needs branches > 0 or swaps');
  if (!(sc.ridge >= 0)) throw new ForgeConfigError('sweetCritic', `forge: sweetCritic.ridge must be ≥ 0, got ${sc.ridge}`);
  if (!(sc.lr > 0) || !(sc.beta > 0) || sc.noises.length === 0 || sc.noises.some((n) => !(n >= 0 && n <= 1)))
    throw new ForgeConfigError('sweetCritic', 'forge: sweetCritic needs lr > 0, beta > 0 and at least one noise level in [0, 1]');
}

type PolicyPlanFields = Pick<ForgeConfig, 'refine' | 'dagger' | 'afterDagger' | 'finalDagger' | 'finish'>;

/** Which block of DAgger rounds: it seeds the rounds' tasks and names them in the log ('finish K': the finish's step K). */
export type DaggerBlock = 'dagger' | 'final' | `finish ${number}`;

/** A block of the policy phase after its first stage, numbered as `--stages-done` counts policy stages. */
export type PolicyBlock =
  | { kind: 'stage'; stage: RefineStage; n: number }
  /** Rounds numbered from stage `first + 1`. */
  | { kind: 'dagger'; dagger: DaggerConfig; first: number; block: DaggerBlock };

/** The policy phase after its first stage, in order: the refine stages, the DAgger rounds, the stages after them, the final DAgger rounds, the finish. */
export function policyPlan(cfg: PolicyPlanFields): PolicyBlock[] {
  const blocks: PolicyBlock[] = [];
  let n = 1;
  const stage = (st: RefineStage) => blocks.push({ kind: 'stage', stage: st, n: ++n });
  const rounds = (d: DaggerConfig, block: DaggerBlock) => {
    blocks.push({ kind: 'dagger', dagger: d, first: n, block });
    n += d.rounds;
  };
  cfg.refine.forEach(stage);
  if (cfg.dagger) rounds(cfg.dagger, 'dagger');
  (cfg.afterDagger ?? []).forEach(stage);
  if (cfg.finalDagger) rounds(cfg.finalDagger, 'final');
  for (const [i, step] of (cfg.finish ?? []).entries()) {
    if (isFinishDagger(step)) rounds(step.dagger, `finish ${i + 1}`);
    else stage(step);
  }
  return blocks;
}

/** Policy stages in all, as `--stages-done` counts them: the first, then one per SFT stage and per DAgger round. */
export function policyStageCount(cfg: PolicyPlanFields): number {
  return policyPlan(cfg).reduce((n, b) => n + (b.kind === 'stage' ? 1 : b.dagger.rounds), 1);
}

/** How the log and the errors name a block of DAgger rounds. */
export function daggerBlockName(block: DaggerBlock): string {
  if (block === 'dagger') return 'DAgger rounds';
  return `${block === 'final' ? 'final' : block.replace('finish', 'finish step')} DAgger rounds`;
}

/**
 * Whether a forge may resume after `done` policy stages: not inside a block of DAgger rounds, whose
 * aggregated labels a resumed forge could not rebuild. Null when it may, else that block and the
 * reason, with the stage to resume from.
 */
export function resumeBlock(cfg: PolicyPlanFields, done: number): { block: DaggerBlock; reason: string } | null {
  for (const b of policyPlan(cfg)) {
    if (b.kind === 'dagger' && done > b.first && done < b.first + b.dagger.rounds) {
      const stages = `stages ${b.first + 1}–${b.first + b.dagger.rounds}`;
      return { block: b.block, reason: `cannot resume inside the ${daggerBlockName(b.block)} (${stages}); resume from stage ${b.first}` };
    }
  }
  return null;
}

/**
 * The mixture of a policy stage: the config's families and options with the stage's shares (none
 * given: the mixture's) and its augmentation where it names a family (none given: the mixture's).
 */
export function stageMix(cfg: ForgeConfig, weights: Partial<Record<FamilyName, number>> | undefined, augment?: StageAugment): FamilyMix[] {
  return cfg.mix.flatMap((m) => {
    const weight = weights ? weights[m.family] : m.weight;
    if (weight === undefined) return [];
    const own = augment?.[m.family];
    if (own === undefined) return [{ ...m, weight }];
    const { augment: _mixture, ...rest } = m;
    return [{ ...rest, weight, ...(Object.keys(own).length ? { augment: own } : {}) }];
  });
}
