// State of the Evaluate view: Pass@(K,T) of the base policy and of an adapter on held-out tasks,
// side by side with their difference, and held-out success per family. Episodes are played by the
// batched rollout loop (src/rl/rollout) here, with every model call in the policy worker, so the
// page stays responsive; the grid is the unbiased estimator of src/rl/rollout/passkt.ts. With storing
// on (the default) each evaluated policy's episodes go to the trajectory store as they are played,
// under a run of their own ('evaluate', tagged with the adapter id), so the Data view lists them by run.
import { DEFAULT_FORGE, forgedOptions } from '../../rl/forge/config.ts';
import { passKTAt, passKTGrid } from '../../rl/rollout/passkt.ts';
import { PolicyBatchAgent } from '../../rl/rollout/agents.ts';
import { successTurns, taskSpecs } from '../../rl/rollout/rollout.ts';
import { storedRollout, type TrajectoryWriter } from '../../rl/rollout/sink.ts';
import { FAMILIES } from '../../rl/envs/registry.ts';
import type { FamilyName } from '../../rl/envs/types.ts';
import type { PolicyClient } from '../engine/policyClient.ts';

/** The families the shipped policy was trained on. */
export const FORGED_FAMILIES: FamilyName[] = DEFAULT_FORGE.mix.map((m) => m.family);

/** One evaluated policy: grid[K−1][T−1] = Pass@(K,T). */
export interface PassGrid {
  label: string;
  grid: number[][];
  episodes: number;
  success: number;
}

export class EvaluateState {
  family = $state<FamilyName>('guess');
  /** n: episodes per task (every K ≤ n is estimated). */
  n = $state(4);
  tasks = $state(8);
  seed = $state(1000);
  adapter = $state<string | null>(null);
  adapters = $state.raw<string[]>([]);
  base = $state.raw<PassGrid | null>(null);
  tuned = $state.raw<PassGrid | null>(null);
  perFamily = $state.raw<{ family: FamilyName; base: number; tuned: number | null; episodes: number }[]>([]);
  progress = $state.raw<{ label: string; done: number; total: number } | null>(null);
  error = $state<string | null>(null);
  /** Store every evaluation episode (one run per evaluated policy). */
  storeRollouts = $state(true);
  /** Runs the latest evaluation stored its episodes under. */
  storedRuns = $state.raw<string[]>([]);
  private cancelled = false;

  constructor(
    private readonly engine: () => PolicyClient | null,
    /** The trajectory store; null while it is not open (nothing is stored then). */
    private readonly store: () => TrajectoryWriter | null = () => null,
  ) {}

  readonly tMax = $derived(this.turnLimit(this.family));
  readonly diff = $derived(this.base && this.tuned ? this.base.grid.map((row, k) => row.map((v, t) => this.tuned!.grid[k][t] - v)) : null);

  private turnLimit(family: FamilyName): number {
    const t = forgedOptions(family)?.maxTurns ?? FAMILIES[family].defaults.maxTurns;
    return typeof t === 'number' ? t : 10;
  }

  async refreshAdapters(): Promise<void> {
    const engine = this.engine();
    if (!engine) return;
    const { ids, active } = await engine.adapters();
    this.adapters = ids;
    if (this.adapter === null && active) this.adapter = active;
  }

  /** Plays n episodes on each held-out task with one policy (adapter null = base). */
  private async grid(family: FamilyName, adapter: string | null, label: string, tasks: number, n: number): Promise<PassGrid> {
    const engine = this.engine();
    if (!engine) throw new Error('the policy is not loaded yet (see Settings → Models)');
    const agent = await PolicyBatchAgent.create(engine, { adapter });
    const tMax = this.turnLimit(family);
    const total = tasks * n;
    let done = 0;
    this.progress = { label, done, total };
    const config = { tasks: taskSpecs(family, 'test', tasks, this.seed, forgedOptions(family)), k: n, seed: this.seed, turnLimit: tMax };
    const run = { name: `Evaluate ${label} on ${family} (test)`, models: { policy: 'policy', critic: null }, adapterId: adapter, algorithm: 'evaluate', settings: { family, split: 'test', tasks, n, turnLimit: tMax }, seed: this.seed };
    const r = await storedRollout(this.storeRollouts ? this.store() : null, run, { policy: 'policy', adapter, critic: null }, config, agent, {
      onEvent: (e) => {
        if (this.cancelled) throw new Error('evaluation cancelled');
        if (e.kind === 'end') this.progress = { label, done: ++done, total };
      },
    });
    if (r.runId) this.storedRuns = [...this.storedRuns, r.runId];
    const g = passKTGrid(successTurns(r), tMax);
    const grid = Array.from({ length: g.n }, (_, k) => Array.from({ length: g.tMax }, (_, t) => passKTAt(g, k + 1, t + 1)));
    return { label, grid, episodes: r.episodes.length, success: r.episodes.filter((e) => e.success).length / r.episodes.length };
  }

  /** Pass@(K,T) for the base policy and, when chosen, the adapter. */
  async run(): Promise<void> {
    this.error = null;
    this.storedRuns = [];
    this.cancelled = false;
    this.base = null;
    this.tuned = null;
    try {
      this.base = await this.grid(this.family, null, 'base policy', this.tasks, this.n);
      if (this.adapter) this.tuned = await this.grid(this.family, this.adapter, `adapter ${this.adapter}`, this.tasks, this.n);
    } catch (e) {
      this.error = (e as Error).message;
    } finally {
      this.progress = null;
    }
  }

  /** Held-out success (one episode per task) of base and adapter on every family the policy was forged on. */
  async runFamilies(families: FamilyName[]): Promise<void> {
    this.error = null;
    this.storedRuns = [];
    this.cancelled = false;
    const rows: typeof this.perFamily = [];
    try {
      for (const family of families) {
        const base = await this.grid(family, null, `${family}: base`, this.tasks, 1);
        const tuned = this.adapter ? await this.grid(family, this.adapter, `${family}: adapter`, this.tasks, 1) : null;
        rows.push({ family, base: base.success, tuned: tuned?.success ?? null, episodes: base.episodes });
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
