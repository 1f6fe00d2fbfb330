// State of the Train view: the algorithm and its settings (paper defaults from src/rl/algos), a run
// in the trainer worker with start / pause / resume / stop, per-iteration metrics for the live
// charts, Echo Trap and rollback warnings, and the adapters it produced. Each new adapter goes to
// the policy worker at once, so Play and Evaluate use it without a reload.
import { proxy } from 'comlink';
import { iterationTasks, resolveLoopConfig, type LoopConfig } from '../../rl/algos/config.ts';
import { ALGO_NAMES, ALGO_SPECS, defaultLr } from '../../rl/algos/registry.ts';
import { policyFitOf } from '../../rl/rollout/policyFit.ts';
import { sentence } from './agentChoice.ts';
import {
  creditFields,
  creditFormFields,
  creditOverrides,
  creditSummary,
  defaultCreditChoice,
  mergeOverrides,
  type CreditChoice,
  type CreditField,
} from './turnCredit.ts';
import type { FormField } from '../../rl/algos/spec.ts';
import type { AlgoName, IterationReport, LearnerTarget, LoopEvent } from '../../rl/algos/types.ts';
import type { JsonObject } from '../../rl/envs/types.ts';
import type { FamilyName } from '../../rl/envs/registry.ts';
import type { Adapter, ModelConfig } from '../../rl/runtime/api.ts';
import { spawnTrainerWorker, type TrainerClient } from '../engine/trainerClient.ts';
import { modelsUrl, type PolicyClient } from '../engine/policyClient.ts';
import { backendPreference } from '../engine/backendPreference.ts';
import { exportPeftAdapter } from '../../rl/bridge/peft.ts';
import type { RunRecord, TrajectoryStore } from '../../rl/store/index.ts';
import { chosenLesson } from './lessonChoice.ts';
import type { LessonStart } from '../../rl/envs/family.ts';
import { runSentence } from './runStory.ts';

export type TrainPhase = 'idle' | 'starting' | 'running' | 'paused' | 'stopped' | 'error';

/** A loop event (algos/types.ts LoopEvent) with the iteration that reported it. */
export type TrainEvent = LoopEvent & { iteration: number };

/** A filter for the events of one kind, typed by it. */
function ofKind<K extends LoopEvent['kind']>(kind: K): (e: TrainEvent) => e is Extract<TrainEvent, { kind: K }> {
  return (e): e is Extract<TrainEvent, { kind: K }> => e.kind === kind;
}

/** One line of the algorithm picker per algorithm: what it does and the paper behind it (its spec's summary). */
export const ALGORITHMS = Object.fromEntries(ALGO_SPECS.map((s) => [s.name, s.summary])) as Record<AlgoName, string>;

/** An adapter a run produced, with its lineage. */
export interface AdapterEntry {
  id: string;
  target: LearnerTarget;
  runId: string;
  algo: AlgoName;
  iteration: number;
}

export class TrainState {
  #algo = $state<AlgoName>('grpo');
  /** The algorithm; choosing one resets the learning rate to its default (defaultLr). */
  get algo(): AlgoName {
    return this.#algo;
  }
  set algo(a: AlgoName) {
    this.#algo = a;
    this.lr = defaultLr(a);
    // the algorithm's own credit options go back to its defaults (whiten differs between GRPO and PPO); the info-gain weight is the family's and stays
    this.credit = { ...defaultCreditChoice(a), infoGain: this.credit.infoGain };
  }
  family = $state<FamilyName>('guess');
  /** The family's lesson chosen in the menu (lessonChoice.ts): its options train and evaluate; null for those the policy was forged on. */
  lesson = $state<string | null>(null);
  iterations = $state(10);
  tasksPerIteration = $state(8);
  k = $state(8);
  /** The policy adapter's AdamW learning rate (the critic's stays criticLr's default). */
  lr = $state(defaultLr(this.algo));
  seed = $state(1);
  /** Store every rollout episode in the trajectory store, tagged with the run and adapter (Data view lists them by run). */
  storeRollouts = $state(true);
  /** Episodes a run stores with storeRollouts: every rollout, iterations × tasks × K (validation plays are not stored). */
  readonly rolloutsStored = $derived(this.iterations * this.tasksPerIteration * this.k);
  /** The "Turn-level credit" group's choice (turnCredit.ts); only the fields `creditFields` lists reach the config. */
  credit = $state<CreditChoice>(defaultCreditChoice(this.algo));
  /** The credit fields that apply to the chosen algorithm and family. */
  readonly creditFields: CreditField[] = $derived(creditFields(this.algo, this.family));
  /** Those fields and the ones they reveal, as the form draws them (the algorithm's spec, specs/*.ts). */
  readonly creditForm: FormField<never>[] = $derived(creditFormFields(this.algo, this.family));
  /** The started run's summary line: its algorithm and turn-level credit, from the config it was given. */
  summary = $state<string | null>(null);
  /** The started run's own words (runStory.ts): its algorithm, what it trained on and its validation period, fixed at Start. */
  private ran = $state<{ algo: string; on: string; validateEvery: number } | null>(null);
  /** Wall seconds the run's iterations took (every run() call of this Start, Pauses left out). */
  private runSeconds = $state(0);
  /** Advanced: JSON overrides of any loop or algorithm field (src/rl/algos/config.ts overrideConfig); '' for none. */
  overrides = $state('');
  phase = $state<TrainPhase>('idle');
  error = $state<string | null>(null);
  reports = $state.raw<IterationReport[]>([]);
  /** The loop's events, in order (the Warnings list; the banners switch on their kinds). */
  warnings = $state.raw<TrainEvent[]>([]);
  adapters = $state.raw<AdapterEntry[]>([]);
  liveAdapter = $state<string | null>(null);
  /** Iterations planned in the current run; done = reports.length. */
  planned = $state(0);
  startedAt = $state(0);
  runId = $state<string | null>(null);
  /** '' starts a new run (a fresh id per Start); a stored training run's id continues that run from its checkpoint. */
  continueRun = $state('');
  /** The store's training runs, newest last, for the "continue" choice. */
  runs = $state.raw<RunRecord[]>([]);
  /** The backend the trainer worker trains on ('webgpu' or 'wasm'). */
  trainerBackend = $state<string | null>(null);
  /** The adapter the policy worker reports active after the latest publish (null: the base policy). */
  workerActive = $state<string | null>(null);
  /** The policy the current run adapts: the shipped one, or the forge's student a lesson starts from (its adapters go live on it). */
  runStart = $state<LessonStart>('policy');

  private trainer: TrainerClient | null = null;
  /** The trainer call under way (settles, never rejects); Resume waits for it. */
  private inFlight: Promise<void> = Promise.resolve();
  /** The last policy adapter published, its id and whose it is: what is live, and what "Export latest as PEFT" writes, also after Stop. */
  private latest: { adapter: Adapter; id: string; iteration: number } | null = null;
  private worker: Worker | null = null;
  /** Counts run() calls: only the latest one moves the phase when its iterations end. */
  private runCall = 0;

  /**
   * `liveChanged`: called after this view changes the policy worker's live adapter (a publish, "use as
   * live"), so the lab's adapter shelf, which Play's and Evaluate's menus read, learns it at once
   * (the store's checkpoint events come later, and not at all without a store).
   */
  constructor(
    private readonly policy: () => PolicyClient | null,
    private readonly store: () => TrajectoryStore | null = () => null,
    private readonly liveChanged: () => void = () => undefined,
  ) {}

  /** Reads the training runs the store holds (those an algorithm of src/rl/algos made). */
  async loadRuns(): Promise<void> {
    const runs = (await this.store()?.listRuns()) ?? [];
    this.runs = runs.filter((r) => (ALGO_NAMES as readonly string[]).includes(r.algorithm));
  }

  readonly algorithms = ALGO_NAMES;
  readonly echoTrap = $derived(this.warnings.filter(ofKind('echo-trap')));
  /** Iterations whose update the loop's guards undid (loop.ts step, and at a run's end finish): the live adapter stayed the last good one. */
  readonly rollbacks = $derived(this.warnings.filter(ofKind('rolled-back')));
  /** A run that ended on earlier adapters because the final ones did not clearly beat them on the validation tasks (algos/validation.ts ValidationGuard.finish). */
  readonly kept = $derived(this.warnings.findLast(ofKind('kept-best')) ?? null);
  /** What the run did, in words, once it has ended (null while it runs, is paused or failed). */
  readonly story = $derived(
    this.phase === 'stopped' && this.ran
      ? runSentence({ ...this.ran, planned: this.planned || this.iterations, reports: this.reports, seconds: this.runSeconds })
      : null,
  );
  /** The iteration whose adapter the run ended on (its last report's adapter_iteration), for the story's element. */
  readonly keptIteration = $derived(this.reports.at(-1)?.metrics.adapter_iteration ?? null);
  /** Seconds per iteration so far, for the ETA. */
  readonly secondsPerIteration = $derived(this.reports.length ? (performance.now() - this.startedAt) / 1000 / this.reports.length : null);

  /** The run's configuration from the form (algos/config.ts resolveLoopConfig); throws AlgoError on bad values. */
  async config(): Promise<LoopConfig> {
    let overrides: unknown;
    if (this.overrides.trim()) {
      try {
        overrides = JSON.parse(this.overrides);
      } catch {
        throw new Error('the config overrides are not valid JSON');
      }
      if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) throw new Error('the config overrides must be a JSON object');
    }
    // The tasks: the chosen lesson's options, else those the loaded policy learned (its model metadata).
    const policy = (await this.policy()?.models())?.find((m) => m.name === 'policy')?.turnwise;
    const lesson = chosenLesson(this.family, this.lesson);
    const request = {
      algo: this.algo,
      family: this.family,
      seed: this.seed,
      tasksPerIteration: this.tasksPerIteration,
      k: this.k,
      lr: this.lr,
      ...(lesson ? { options: lesson.options, start: lesson.start } : {}),
    };
    // the credit group's fields are overrides too; the JSON box is merged over them and wins a field both set
    const merged = mergeOverrides(creditOverrides(this.credit, this.algo, this.family), (overrides ?? {}) as JsonObject);
    return resolveLoopConfig({ ...request, overrides: merged }, policy);
  }

  /**
   * Refuses, before any work, a run whose tasks the loaded policy cannot take: the first iteration's
   * prompts plus the run's reply reserve must fit the policy's context (rl/rollout/policyFit.ts, from
   * its metadata), else the rollouts would fail in the trainer with an engine error.
   */
  private async checkFit(config: LoopConfig): Promise<void> {
    const engine = this.policy();
    if (!engine) return;
    const fit = await policyFitOf(engine, iterationTasks(config, 0), config.maxNewTokens === undefined ? {} : { replyTokens: config.maxNewTokens });
    if (fit.kind === 'too-long') throw new Error(`${sentence(fit.reason)}; choose another family, or load a policy forged with a longer context.`);
  }

  /** Starts a new run in a fresh trainer worker. */
  async start(): Promise<void> {
    this.error = null;
    let config: LoopConfig;
    try {
      config = await this.config();
      await this.checkFit(config);
    } catch (e) {
      this.fail(e);
      return;
    }
    this.phase = 'starting';
    this.runStart = config.start ?? 'policy';
    this.summary = creditSummary(config);
    const lesson = chosenLesson(this.family, this.lesson);
    this.ran = {
      algo: ALGO_SPECS.find((s) => s.name === config.settings.algo)?.label ?? config.settings.algo,
      on: lesson ? `${lesson.family}'s lesson ${lesson.name}${lesson.start === 'student' ? " from the forge's student" : ''}` : config.family,
      validateEvery: config.rollback.validateEvery,
    };
    this.runSeconds = 0;
    this.reports = [];
    this.warnings = [];
    this.worker?.terminate();
    this.inFlight = Promise.resolve(); // a terminated worker's call never settles
    const { trainer, worker } = spawnTrainerWorker();
    this.trainer = trainer;
    this.worker = worker;
    worker.addEventListener('error', (e) => this.fail(new Error(`the trainer worker crashed: ${e.message}`)));
    try {
      await trainer.onAdapter(proxy((target: LearnerTarget, id: string, adapter: Adapter, iteration: number) => this.publish(target, id, adapter, iteration)));
      // Continuing is explicit: without a chosen run the trainer makes a new run id (loop.ts newRunId).
      // the lab's backend setting (Settings, ?backend=), so Auto passes over a software WebGPU adapter here too
      const status = await trainer.init({
        models: { baseUrl: modelsUrl() },
        config,
        backend: backendPreference(),
        storeRollouts: this.storeRollouts,
        ...(this.continueRun ? { runId: this.continueRun } : {}),
      });
      this.runId = status.runId;
      this.trainerBackend = status.backend;
      await this.run();
    } catch (e) {
      this.fail(e);
    }
  }

  /**
   * Runs the remaining planned iterations (resume after pause). Pressed while the paused call is still
   * finishing its iteration, it waits for that call first and only then counts what remains, so a
   * Pause that lands in the last iteration ends the run instead of training one iteration too many.
   */
  async run(): Promise<void> {
    if (!this.trainer) return;
    const call = ++this.runCall;
    this.phase = 'running';
    await this.inFlight;
    if (call !== this.runCall || !this.trainer) return;
    this.planned = this.iterations;
    const remaining = this.iterations - this.reports.length;
    if (remaining <= 0) {
      this.phase = 'stopped';
      return;
    }
    this.startedAt = performance.now() - (this.secondsPerIteration ?? 0) * 1000 * this.reports.length;
    const began = performance.now();
    const flight = this.trainer.train(
      remaining,
      proxy((r: IterationReport) => {
        this.reports = [...this.reports, r];
        this.warnings = [...this.warnings, ...r.events.map((e) => ({ ...e, iteration: r.iteration }))];
      }),
    );
    this.inFlight = flight.then(
      () => undefined,
      () => undefined,
    );
    try {
      await flight;
      // the run's last iteration ends it, whether or not a Pause came during it
      if (call === this.runCall && (this.phase === 'running' || this.phase === 'paused'))
        this.phase = this.reports.length >= this.iterations ? 'stopped' : 'paused';
    } catch (e) {
      // Stop disposes the trainer under a running call: that call's error is the stop, not a failure
      if (call === this.runCall && this.phase !== 'stopped') this.fail(e);
    } finally {
      this.runSeconds += (performance.now() - began) / 1000;
    }
  }

  /** Pauses after the current iteration; resume with run(). */
  async pause(): Promise<void> {
    this.phase = 'paused';
    await this.trainer?.stop();
  }

  /** Stops and releases the trainer worker; its adapters stay listed and stored. */
  async stop(): Promise<void> {
    await this.trainer?.stop();
    this.phase = 'stopped';
    await this.trainer?.dispose().catch(() => undefined);
    this.worker?.terminate();
    this.inFlight = Promise.resolve();
    this.trainer = null;
    this.worker = null;
  }

  /** Makes an adapter (or the base policy, null) the live policy in Play. */
  async useAsLive(id: string | null): Promise<void> {
    const engine = this.policy();
    if (!engine) return;
    await engine.activateAdapter(id, this.runStart);
    this.liveAdapter = id;
    this.liveChanged();
  }

  /** Downloads the run's latest policy adapter as PEFT files (adapter_model.safetensors, adapter_config.json); works after Stop too. */
  exportPeft(cfg: ModelConfig): void {
    const latest = this.latest;
    if (!latest) return;
    // the file says whose adapter it is: a run that kept its start exports iteration 0 (all lora_B zero), named so
    const files = exportPeftAdapter(cfg, latest.adapter, {
      baseModel: `turnwise/${this.runStart}`,
      metadata: { adapter: latest.id, run: this.runId ?? '', algorithm: this.algo, iteration: String(latest.iteration) },
    });
    for (const [name, bytes] of Object.entries(files)) {
      const url = URL.createObjectURL(new Blob([bytes as BlobPart]));
      const a = document.createElement('a');
      a.href = url;
      a.download = name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    }
  }

  private async publish(target: LearnerTarget, id: string, adapter: Adapter, iteration: number): Promise<void> {
    const engine = this.policy();
    if (target === 'critic') {
      // Play's live credit scores with the critic's active adapter against its base (SWEET-RL's
      // π_ref), so a trained critic shows its advantages there; without one they are 0 by definition.
      if (engine && (await engine.models()).some((m) => m.name === 'critic')) await engine.setAdapter(id, adapter, { model: 'critic', activate: true });
      return;
    }
    this.latest = { adapter, id, iteration };
    await engine?.setAdapter(id, adapter, { model: this.runStart, activate: true });
    this.liveAdapter = id;
    this.liveChanged();
    this.workerActive = engine ? (await engine.adapters(this.runStart)).active : null;
    this.adapters = [...this.adapters.filter((a) => a.id !== id), { id, target, runId: this.runId ?? '', algo: this.algo, iteration }];
  }

  private fail(e: unknown): void {
    this.error = (e as Error).message;
    this.phase = 'error';
  }
}
