// The trainer service: what the trainer worker exposes over comlink (docs/style.md point 4) and what runs
// in-thread under tests. It owns its own PolicyEngine (rollouts and scoring; the train-step sessions
// run on the engine's runtime, so the worker has one OrtRuntime and one run queue), a TrainingLoop,
// and optionally the IndexedDB store for checkpoints, metrics and the rollout episodes; every new
// adapter is handed to `onAdapter` (a comlink proxy in the UI, which forwards
// it to the policy worker's setAdapter so Play uses it live). Plain data crosses the boundary only.
// The CLI's `turnwise train` runs the same service in-thread (a model reader, a run request resolved
// against the loaded policy, and checks before the critic loads), so training is wired once.
import { fetchReader } from '../model/folder/io.ts';
import type { ReadBytes } from '../model/manifest.ts';
import { PolicyEngine } from '../runtime/policyEngine.ts';
import { OrtRuntime, type BackendPreference } from '../runtime/ort.ts';
import { checkTrainStep, type TrainStepCheck } from '../runtime/train/check.ts';
import type { Adapter } from '../runtime/engine/types.ts';
import { TrajectoryStore } from '../store/index.ts';
import { StoreCheckpoints } from './checkpoint.ts';
import { resolveLoopConfig, type LoopConfig, type RunRequest } from './config.ts';
import type { LoadedModel } from '../model/folder/folder.ts';
import type { Split } from '../envs/types.ts';
import type { HeldOutResult } from '../rollout/evaluate.ts';
import { MemoryFeedback, type FeedbackPair, type FeedbackTurn } from './feedback.ts';
import { newRunId, TrainingLoop } from './loop.ts';
import { acquireRunLock, type RunLock } from './runLock.ts';
import { needsCritic } from './registry.ts';
import { AlgoError, type IterationReport, type LearnerTarget } from './types.ts';

/** How to start a trainer: the run's config, or a request resolved against the loaded policy (resolveLoopConfig). */
export type TrainerInit = TrainerOptions & ({ config: LoopConfig } | { request: RunRequest });

/** What is checked before the critic loads and the loop is built: the engine, the run's config and the loaded policy. */
type TrainerPrepare = (p: { engine: PolicyEngine; config: LoopConfig; policy: LoadedModel }) => void | Promise<void>;

interface TrainerOptions {
  /** Models root with manifest.json (e.g. '/models/'), files in memory, or (in-thread: a function does not cross comlink) a reader. */
  models: { baseUrl: string } | { files: Record<string, Uint8Array> } | { read: ReadBytes };
  /** In-thread only: checks before the critic loads (the CLI's context fit and critic checks); throwing ends init. */
  prepare?: TrainerPrepare;
  /** 'auto': WebGPU on a hardware adapter, else wasm (ort.ts BackendPreference); the lab passes its backend setting (ui/engine/trainerClient.ts). */
  backend?: BackendPreference;
  /** The run to continue (its checkpoint, metrics and episodes); omitted: a new run with a fresh id (loop.ts newRunId). */
  runId?: string;
  /** IndexedDB database for checkpoints, metrics and rollouts (default: the lab's "turnwise"); null: in memory only. */
  storeName?: string | null;
  /** Store every rollout episode, tagged with the run and adapter ids (default true; needs the store). */
  storeRollouts?: boolean;
}

/** What init reports. */
export interface TrainerStatus {
  runId: string;
  /** The run's resolved configuration. */
  config: LoopConfig;
  iteration: number;
  backend: string;
  targets: LearnerTarget[];
  running: boolean;
}

export class TrainerService {
  private engine: PolicyEngine | null = null;
  private store: TrajectoryStore | null = null;
  private loop: TrainingLoop | null = null;
  /** This trainer's hold on its run (runLock.ts): one writer per run across tabs. */
  private lock: RunLock | null = null;
  private running = false;
  /** The latest train() call; the next one starts after it. */
  private current: Promise<unknown> | null = null;
  private readonly feedback = new MemoryFeedback();
  private config: LoopConfig | null = null;
  private adapterListener: ((target: LearnerTarget, id: string, adapter: Adapter, iteration: number) => void | Promise<void>) | null = null;

  /** Loads the models, builds the learners and resumes from the run's checkpoint when one exists. */
  async init(opts: TrainerInit): Promise<TrainerStatus> {
    await this.dispose();
    // The lock comes first: a run another tab trains is refused before its checkpoint is read.
    const named = 'config' in opts ? { algo: opts.config.settings.algo, family: opts.config.family, seed: opts.config.seed } : opts.request;
    const runId = opts.runId ?? newRunId(named.algo, named.family, named.seed);
    this.lock = await acquireRunLock(runId);
    try {
      const m = opts.models;
      const read: ReadBytes = 'baseUrl' in m ? fetchReader(m.baseUrl) : 'read' in m ? m.read : async (p) => m.files[p] ?? null;
      const engine = new PolicyEngine();
      this.engine = engine;
      await engine.init(opts.backend ?? 'auto');
      // Each folder is read once: the engine keeps what it loaded, and the train steps share its runtime.
      // the policy is the run's start: the shipped one, or a lesson's student loaded in its place
      const load = async (name: string, from = name) => {
        await engine.loadFrom(name, { kind: 'reader', read, manifest: true, name: from });
        return engine.loadedModel(name);
      };
      const start = 'config' in opts ? (opts.config.start ?? 'policy') : (opts.request.start ?? 'policy');
      const policy = await load('policy', start);
      const config = 'config' in opts ? opts.config : resolveLoopConfig(opts.request, policy.turnwise);
      await opts.prepare?.({ engine, config, policy });
      const models = { policy, critic: needsCritic(config.settings) ? await load('critic') : null };
      this.config = config;
      this.store = opts.storeName === null ? null : await TrajectoryStore.open(opts.storeName ? { name: opts.storeName } : {});
      this.loop = await TrainingLoop.create({
        engine,
        runtime: engine.sharedRuntime(),
        models,
        config,
        runId,
        ...(this.store ? { checkpoints: new StoreCheckpoints(this.store, { policy: start, critic: 'critic' }) } : {}),
        ...(this.store && opts.storeRollouts !== false ? { trajectories: this.store } : {}),
        feedback: this.feedback,
        publish: (t, id, a, iteration) => this.adapterListener?.(t, id, a, iteration),
      });
    } catch (e) {
      await this.dispose(); // gives the lock back
      throw e;
    }
    return this.status();
  }

  /** Receives every new adapter (pass a comlink proxy; forward it to the policy worker's setAdapter). */
  /** `iteration`: whose adapters they are (the update that made them; 0: the run's start). */
  onAdapter(listener: (target: LearnerTarget, id: string, adapter: Adapter, iteration: number) => void | Promise<void>): void {
    this.adapterListener = listener;
  }

  async status(): Promise<TrainerStatus> {
    const loop = this.requireLoop();
    return {
      runId: loop.runId,
      config: this.config as LoopConfig,
      iteration: loop.iteration,
      backend: (await this.engine?.backendInfo())?.kind ?? 'wasm',
      targets: loop.targets(),
      running: this.running,
    };
  }

  /**
   * Runs up to `iterations` iterations, reporting each (and storing its metrics); stop() ends it after
   * the current one. A call made while an earlier one is still finishing its iteration (Resume
   * pressed right after Pause) waits for it, then runs: calls never overlap and none is refused.
   */
  async train(iterations: number, onReport?: (r: IterationReport) => void | Promise<void>): Promise<IterationReport[]> {
    const loop = this.requireLoop();
    const previous = this.current;
    const run = (async () => {
      await previous?.catch(() => undefined);
      if (loop !== this.loop) throw new AlgoError('stopped', 'the trainer was re-initialised or disposed');
      this.running = true;
      try {
        return await loop.run(iterations, async (r) => {
          await this.store?.putMetrics(loop.runId, r.iteration, r.metrics);
          await onReport?.(r);
        });
      } finally {
        this.running = false;
      }
    })();
    this.current = run;
    return run;
  }

  async stop(): Promise<void> {
    this.loop?.stop();
  }

  /** A person's thumbs on a turn (value ±1 or a score) for the next iteration. */
  async addThumbs(turn: FeedbackTurn): Promise<void> {
    this.feedback.addTurn(turn);
  }

  /** A person's choice between two replies for the next iteration. */
  async addChoice(pair: FeedbackPair): Promise<void> {
    this.feedback.addPair(pair);
  }

  /** Held-out evaluation of the trained adapter or the base policy, sampled and greedy (on the test split unless `split` says train). */
  async evaluate(which: 'trained' | 'base', tasks: number, seed: number, split?: Split): Promise<HeldOutResult> {
    return this.requireLoop().evaluate(which, { tasks, seed, ...(split ? { split } : {}) });
  }

  async adapter(target: LearnerTarget = 'policy'): Promise<Adapter> {
    return this.requireLoop().adapter(target);
  }

  /**
   * One tiny SFT step (LoRA over a 4-bit base, and all parameters) on a fresh runtime of the given
   * backend, independent of init: shows that this browser trains, and what it computes, so the same
   * step can be compared with wasm in Node (runtime/train/check.ts).
   */
  async checkTrainStep(backend: BackendPreference = 'auto'): Promise<TrainStepCheck> {
    const runtime = await OrtRuntime.create(backend);
    try {
      return await checkTrainStep(runtime);
    } finally {
      await runtime.dispose();
    }
  }

  async dispose(): Promise<void> {
    this.loop?.stop();
    await this.loop?.dispose();
    await this.engine?.dispose();
    this.store?.close?.();
    this.lock?.release();
    this.lock = null;
    this.loop = null;
    this.config = null;
    this.engine = null;
    this.store = null;
  }

  private requireLoop(): TrainingLoop {
    if (!this.loop) throw new AlgoError('stopped', 'the trainer is not initialised; call init first');
    return this.loop;
  }
}
