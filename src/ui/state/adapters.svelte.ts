// The policy adapters the lab can play with, owned by the Lab: those registered in the policy worker
// now (a training run publishes each iteration's adapter there) and those stored in IndexedDB (each
// training run's latest checkpoint, algos/checkpoint.ts), which outlive a reload. A stored one is
// loaded into the policy worker (setAdapter) the first time Evaluate or Play asks for it. `active`
// is the worker's live adapter, the one Play's policy plays with (null: the base policy).
import { isRunnableAdapter } from '../../rl/algos/checkpoint.ts';
import { adapterFromRow } from '../../rl/store/formats/peft.ts';
import type { AdapterSummary, TrajectoryStore } from '../../rl/store/index.ts';
import type { PolicyClient } from '../engine/policyClient.ts';
import { adapterChoices, type AdapterChoice } from './adapterList.ts';

export type { AdapterChoice } from './adapterList.ts';

export class AdapterShelf {
  /** The store's runnable policy adapters, oldest first. */
  stored = $state.raw<AdapterSummary[]>([]);
  /** The policy worker's adapter ids. */
  registered = $state.raw<string[]>([]);
  /** The policy worker's live adapter (null: the base policy). */
  active = $state<string | null>(null);
  error = $state<string | null>(null);
  /** Counts refresh() calls: only the latest one writes its result. */
  private refreshCall = 0;

  constructor(
    private readonly engine: () => PolicyClient | null,
    private readonly store: () => TrajectoryStore | null,
  ) {}

  /** Every adapter the policy can play with: the worker's, then the stored ones it lacks, newest first. */
  readonly choices: AdapterChoice[] = $derived(adapterChoices(this.registered, this.stored));

  /** Re-reads the store's adapters and the worker's (ids and the live one). */
  async refresh(): Promise<void> {
    const call = ++this.refreshCall;
    const store = this.store();
    const engine = this.engine();
    try {
      const [rows, worker] = await Promise.all([store ? store.listAdapters() : Promise.resolve([]), engine ? engine.adapters() : Promise.resolve(null)]);
      if (call !== this.refreshCall) return;
      this.stored = rows.filter((r) => r.target === 'policy' && isRunnableAdapter(r));
      if (worker) {
        this.registered = worker.ids;
        this.active = worker.active;
      }
    } catch (e) {
      if (call === this.refreshCall) this.error = `The adapters could not be listed: ${(e as Error).message}`;
    }
  }

  /** Makes sure the policy worker has adapter `id`, loading it from the store when only the store has it. */
  async ensureLoaded(id: string): Promise<void> {
    const engine = this.engine();
    if (!engine) throw new Error('the policy is not loaded yet (see Settings → Models)');
    if ((await engine.adapters()).ids.includes(id)) return;
    const row = await this.store()?.getAdapter(id);
    if (!row) throw new Error(`adapter ${id} is neither in the policy worker nor stored`);
    await engine.setAdapter(id, adapterFromRow(row), { activate: false });
    this.registered = (await engine.adapters()).ids;
  }

  /** Makes `id` (null: the base policy) the live adapter: Play's policy plays with it from the next episode. */
  async activate(id: string | null): Promise<void> {
    this.error = null;
    const engine = this.engine();
    try {
      if (!engine) throw new Error('the policy is not loaded yet (see Settings → Models)');
      if (id !== null) await this.ensureLoaded(id);
      await engine.activateAdapter(id);
      this.active = id;
    } catch (e) {
      this.error = `Adapter ${id ?? 'base'} could not be made live: ${(e as Error).message}`;
    }
  }
}
