// State of the Evaluate view: Pass@(K,T) of the base policy and of an adapter on held-out tasks,
// side by side with their difference, and held-out success per family. Episodes are played by the
// batched rollout loop here through the one evaluation path (src/rl/rollout/evaluate.ts
// evaluatePassKT), with every model call in the policy worker, so the page stays responsive; the
// grid is the unbiased estimator of src/rl/rollout/passkt.ts. With storing on (the default) each
// evaluated policy's episodes go to the trajectory store as they are played, under a run of their
// own ('evaluate', tagged with the adapter id), so the Data view lists them by run. The adapters
// offered are the Lab's (adapters.svelte.ts): the policy worker's and the stored ones, a stored one
// loaded into the worker before it plays, so an adapter trained before a reload can be evaluated.
import { PolicyBatchAgent } from '../../rl/rollout/agents.ts';
import { evaluatePassKT } from '../../rl/rollout/evaluate.ts';
import { bothListeners, openRunSink, type TrajectoryWriter } from '../../rl/rollout/sink.ts';
import type { RolloutEvent } from '../../rl/rollout/rollout.ts';
import type { JsonObject } from '../../rl/envs/types.ts';
import { FAMILIES, FAMILY_NAMES, type FamilyName } from '../../rl/envs/registry.ts';
import { choiceOptions, choiceStart } from './lessonChoice.ts';
import type { LessonStart } from '../../rl/envs/family.ts';
import { taskOptions, type ModelMeta } from '../../rl/runtime/api.ts';
import type { PolicyClient } from '../engine/policyClient.ts';
import type { AdapterShelf } from './adapters.svelte.ts';
import type { Interval } from '../../rl/credit/bootstrap.ts';
import { pairedDifference, pairedGridDifference, perTaskSuccess, successInterval } from '../../rl/rollout/successStats.ts';

/** One evaluated policy: grid[K−1][T−1] = Pass@(K,T). */
export interface PassGrid {
  label: string;
  grid: number[][];
  episodes: number;
  success: number;
  /** Success fraction per task (the unit the intervals resample). */
  perTask: number[];
  /** Each task's own Pass@(K,T) grid, [task][K−1][T−1] (the unit the difference map's cells resample). */
  taskGrids: number[][][];
  /** Mean success over tasks with its 95% bootstrap interval (successStats.ts). */
  interval: Interval;
}

/** A per-family row: base and adapter success with intervals, and their paired difference. */
export interface FamilyRow {
  family: FamilyName;
  base: Interval;
  tuned: Interval | null;
  diff: (Interval & { beyondNoise: boolean }) | null;
  episodes: number;
}

export class EvaluateState {
  family = $state<FamilyName>('guess');
  /** The family's lesson chosen in the menu (lessonChoice.ts): Pass@(K,T) plays its tasks; null for those the policy was forged on. */
  lesson = $state<string | null>(null);
  /** n: episodes per task (every K ≤ n is estimated). */
  n = $state(4);
  tasks = $state(8);
  seed = $state(1000);
  /** The adapter the person chose (null: the base only); undefined until they choose. */
  private chosen = $state<string | null | undefined>(undefined);
  base = $state.raw<PassGrid | null>(null);
  tuned = $state.raw<PassGrid | null>(null);
  perFamily = $state.raw<FamilyRow[]>([]);
  progress = $state.raw<{ label: string; done: number; total: number } | null>(null);
  error = $state<string | null>(null);
  /** Store every evaluation episode (one run per evaluated policy). */
  storeRollouts = $state(true);
  /** Runs the latest evaluation stored its episodes under. */
  storedRuns = $state.raw<string[]>([]);
  private cancelled = false;

  /**
   * `policy`: the loaded policy's model metadata (the families and task options it was forged on);
   * `store`: the trajectory store, null while it is not open (nothing is stored then);
   * `adapters`: the adapters to choose from, and how a stored one reaches the policy worker.
   */
  constructor(
    private readonly engine: () => PolicyClient | null,
    private readonly policy: () => ModelMeta | undefined,
    private readonly store: () => TrajectoryWriter | null = () => null,
    private readonly adapters: () => Pick<AdapterShelf, 'active' | 'ensureLoaded' | 'choices'> | null = () => null,
  ) {}

  /** The policy the chosen family or lesson plays from: the shipped one, or the lesson's student. */
  readonly startModel: LessonStart = $derived(choiceStart(this.family, this.lesson));

  /**
   * The adapter evaluated beside the base: the person's choice while it adapts the chosen start, else
   * that start's live one (the latest a training run published), read whenever it changes, so one
   * that goes live while the view is open is chosen too.
   */
  get adapter(): string | null {
    return this.adapterOf(this.startModel);
  }

  set adapter(id: string | null) {
    this.chosen = id;
  }

  /** The families the loaded policy was forged on. */
  readonly families = $derived(this.forgedFamilies());

  /** The options of the chosen family's Pass@(K,T) tasks: the lesson's, else the policy's forged ones. */
  readonly options = $derived(this.chosenOptions());
  readonly tMax = $derived(this.turnLimit(this.family, this.options));
  /** adapter − base success over the same tasks, with its paired 95% interval. */
  readonly successDiff = $derived(this.base && this.tuned ? pairedDifference(this.base.perTask, this.tuned.perTask) : null);
  /** adapter − base per Pass@(K,T) cell, each with its own paired 95% interval over tasks. */
  readonly diff = $derived(this.base && this.tuned ? pairedGridDifference(this.base.taskGrids, this.tuned.taskGrids) : null);

  /** The adapter evaluated on `base`: the person's choice when it adapts that base, else its live one. */
  private adapterOf(base: LessonStart): string | null {
    const shelf = this.adapters();
    if (this.chosen === null || (this.chosen !== undefined && shelf?.choices[base].some((c) => c.id === this.chosen))) return this.chosen;
    return shelf?.active[base] ?? null;
  }

  private chosenOptions(): JsonObject | undefined {
    return choiceOptions(this.policy(), this.family, this.lesson);
  }

  private forgedFamilies(): FamilyName[] {
    return (this.policy()?.families ?? []).filter((f): f is FamilyName => (FAMILY_NAMES as readonly string[]).includes(f));
  }

  private turnLimit(family: FamilyName, options: JsonObject | undefined): number {
    const t = options?.maxTurns ?? FAMILIES[family].defaults.maxTurns;
    return typeof t === 'number' ? t : 10;
  }

  /**
   * Plays n episodes on each held-out task (of `options`; undefined: the family's defaults) with one
   * policy: the `model` it starts from (the shipped policy or a lesson's student) with `adapter` (null = none).
   */
  private async grid(
    family: FamilyName,
    options: JsonObject | undefined,
    model: LessonStart,
    adapter: string | null,
    label: string,
    tasks: number,
    n: number,
  ): Promise<PassGrid> {
    const engine = this.engine();
    if (!engine) throw new Error('the policy is not loaded yet (see Settings → Models)');
    if (adapter !== null) await this.adapters()?.ensureLoaded(adapter);
    const agent = await PolicyBatchAgent.create(engine, { model, adapter });
    const tMax = this.turnLimit(family, options);
    const total = tasks * n;
    let done = 0;
    this.progress = { label, done, total };
    const store = this.storeRollouts ? this.store() : null;
    const run = {
      name: `Evaluate ${label} on ${family} (test)`,
      models: { policy: model, critic: null },
      adapterId: adapter,
      algorithm: 'evaluate',
      settings: { family, split: 'test', tasks, n, turnLimit: tMax, ...(options ? { options } : {}) },
      seed: this.seed,
    };
    const sink = store ? await openRunSink(store, run, { policy: model, adapter, critic: null }) : null;
    const progress = (e: RolloutEvent) => {
      if (this.cancelled) throw new Error('evaluation cancelled');
      if (e.kind === 'end') this.progress = { label, done: ++done, total };
    };
    const r = await evaluatePassKT({ family, split: 'test', tasks, n, seed: this.seed, tMax, ...(options ? { options } : {}) }, agent, {
      onEvent: bothListeners(progress, sink?.onEvent),
    });
    if (sink) this.storedRuns = [...this.storedRuns, sink.runId];
    const perTask = perTaskSuccess(r.episodes, n);
    return { label, grid: r.grid, taskGrids: r.perTask, episodes: r.episodes.length, success: r.successRate, perTask, interval: successInterval(perTask) };
  }

  /** Pass@(K,T) for the base policy and, when chosen, the adapter. */
  async run(): Promise<void> {
    this.error = null;
    this.storedRuns = [];
    this.cancelled = false;
    this.base = null;
    this.tuned = null;
    const adapter = this.adapter; // the live adapter may change while the base plays
    const options = this.options;
    const model = this.startModel;
    try {
      this.base = await this.grid(this.family, options, model, null, model === 'student' ? 'student (base)' : 'base policy', this.tasks, this.n);
      if (adapter) this.tuned = await this.grid(this.family, options, model, adapter, `adapter ${adapter}`, this.tasks, this.n);
    } catch (e) {
      this.error = (e as Error).message;
    } finally {
      this.progress = null;
    }
  }

  /** Held-out success (one episode per task) of base and adapter on every family the policy was forged on, at its forged options. */
  async runFamilies(families: FamilyName[]): Promise<void> {
    this.error = null;
    this.storedRuns = [];
    this.cancelled = false;
    const rows: typeof this.perFamily = [];
    // the forged settings play the shipped policy, with an adapter of it
    const adapter = this.adapterOf('policy');
    try {
      for (const family of families) {
        const options = taskOptions(this.policy(), family);
        const base = await this.grid(family, options, 'policy', null, `${family}: base`, this.tasks, 1);
        const tuned = adapter ? await this.grid(family, options, 'policy', adapter, `${family}: adapter`, this.tasks, 1) : null;
        rows.push({
          family,
          base: base.interval,
          tuned: tuned?.interval ?? null,
          diff: tuned ? pairedDifference(base.perTask, tuned.perTask) : null,
          episodes: base.episodes,
        });
        this.perFamily = [...rows];
      }
    } catch (e) {
      this.error = (e as Error).message;
    } finally {
      this.progress = null;
    }
  }

  cancel(): void {
    this.cancelled = true;
  }
}
