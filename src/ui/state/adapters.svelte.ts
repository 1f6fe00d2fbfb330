// The policy adapters the lab can play with, owned by the Lab: those registered in the policy worker
// now (a training run publishes each iteration's adapter there) and those stored in IndexedDB (each
// training run's latest checkpoint, algos/checkpoint.ts), which outlive a reload. A stored one is
// loaded into the policy worker (setAdapter) the first time Evaluate or Play asks for it. Adapters
// are kept apart by the policy they adapt (their base: the shipped policy, or the forge's student a
// lesson starts from; envs/family.ts LessonStart), each on its own model in the worker. `active` is
// each base's live adapter, the one Play's policy plays with (null: the base itself).
import { isRunnableAdapter } from '../../rl/algos/checkpoint.ts';
import type { LessonStart } from '../../rl/envs/family.ts';
import { adapterFromRow } from '../../rl/store/formats/peft.ts';
import type { AdapterSummary, TrajectoryStore } from '../../rl/store/index.ts';
import type { PolicyClient } from '../engine/policyClient.ts';
import { adapterBase, adapterChoices, type AdapterChoice } from './adapterList.ts';

export type { AdapterChoice } from './adapterList.ts';

const BASES: readonly LessonStart[] = ['policy', 'student'];
const perBase = <T>(f: (base: LessonStart) => T): Record<LessonStart, T> => ({ policy: f('policy'), student: f('student') });

export class AdapterShelf {
  /** The store's runnable policy adapters (either base), oldest first. */
  stored = $state.raw<AdapterSummary[]>([]);
  /** The policy worker's adapter ids, per base model. */
  registered = $state.raw<Record<LessonStart, string[]>>(perBase(() => []));
  /** Each base model's live adapter in the policy worker (null: the base itself). */
  active = $state.raw<Record<LessonStart, string | null>>(perBase(() => null));
  error = $state<string | null>(null);
  /** Counts refresh() calls: only the latest one writes its result. */
  private refreshCall = 0;

  constructor(
    private readonly engine: () => PolicyClient | null,
    private readonly store: () => TrajectoryStore | null,
  ) {}

  /** Per base: every adapter its policy can play with, the worker's, then the stored ones it lacks, newest first. */
  readonly choices: Record<LessonStart, AdapterChoice[]> = $derived(
    perBase((base) =>
      adapterChoices(
        this.registered[base],
        this.stored.filter((r) => adapterBase(r) === base),
      ),
    ),
  );

  /** Re-reads the store's adapters and the worker's (ids and the live one of each base it has loaded). */
  async refresh(): Promise<void> {
    const call = ++this.refreshCall;
    const store = this.store();
    try {
      const [rows, worker] = await Promise.all([store ? store.listAdapters() : Promise.resolve([]), this.workerAdapters()]);
      if (call !== this.refreshCall) return;
      this.stored = rows.filter((r) => r.target === 'policy' && isRunnableAdapter(r));
      if (worker) {
        this.registered = perBase((b) => worker[b]?.ids ?? []);
        this.active = perBase((b) => worker[b]?.active ?? null);
      }
    } catch (e) {
      if (call === this.refreshCall) this.error = `The adapters could not be listed: ${(e as Error).message}`;
    }
  }

  /** Makes sure the policy worker has adapter `id` on its base model, loading it from the store when only the store has it. */
  async ensureLoaded(id: string): Promise<void> {
    const engine = this.engine();
    if (!engine) throw new Error('the policy is not loaded yet (see Settings → Models)');
    const worker = await this.workerAdapters();
    if (BASES.some((b) => worker?.[b]?.ids.includes(id))) return;
    const row = await this.store()?.getAdapter(id);
    if (!row) throw new Error(`adapter ${id} is neither in the policy worker nor stored`);
    const base = adapterBase(row);
    if (!worker?.[base]) throw new Error(`adapter ${id} adapts the ${base} model, which the lab has not loaded (see Settings → Models)`);
    await engine.setAdapter(id, adapterFromRow(row), { model: base, activate: false });
    this.registered = { ...this.registered, [base]: (await engine.adapters(base)).ids };
  }

  /** Makes `id` (null: the base itself) the live adapter of `base`: Play's policy plays with it from the next episode. */
  async activate(id: string | null, base: LessonStart = 'policy'): Promise<void> {
    this.error = null;
    const engine = this.engine();
    try {
      if (!engine) throw new Error('the policy is not loaded yet (see Settings → Models)');
      if (id !== null) await this.ensureLoaded(id);
      await engine.activateAdapter(id, base);
      this.active = { ...this.active, [base]: id };
    } catch (e) {
      this.error = `Adapter ${id ?? 'base'} could not be made live: ${(e as Error).message}`;
    }
  }

  /** The worker's adapters on each base model it has loaded; null without a worker. */
  private async workerAdapters(): Promise<Partial<Record<LessonStart, { ids: string[]; active: string | null }>> | null> {
    const engine = this.engine();
    if (!engine) return null;
    const loaded = (await engine.models()).map((m) => m.name);
    const out: Partial<Record<LessonStart, { ids: string[]; active: string | null }>> = {};
    for (const base of BASES) if (loaded.includes(base)) out[base] = await engine.adapters(base);
    return out;
  }
}
