// State of the Credit view: stored episodes (filterable), one or two opened as a turn × estimator
// heatmap with the ground truth, and the fidelity table over the selection. What is computed lives
// in creditModel.ts (pure, shared reading of stored episodes with the CLI); this class holds it, and
// samples SWEET-RL's centring candidates (issue #46): when an opened episode's SWEET-RL row needs them,
// K turns per agent turn's state from the policy that played it, scored by the critic whose adapter
// scored the episode (rollout/centredSweet.ts), once per episode and K; a failure is not kept.
import type { FidelityReport } from '../../rl/credit/fidelity.ts';
import type { EpisodeRecord, EpisodeSummary, TrajectoryStore } from '../../rl/store/index.ts';
import { resolveParams, type EstimatorName } from '../../rl/credit/registry.ts';
import type { CreditParams } from '../../rl/credit/types.ts';
import { clampCentre, SWEET_CENTRE_DEFAULT } from '../../rl/credit/centredSweet.ts';
import type { SamplingParams } from '../../rl/runtime/api.ts';
import { PolicyBatchAgent } from '../../rl/rollout/agents.ts';
import { candidateAdvantages, storedStates } from '../../rl/rollout/centredSweet.ts';
import type { PolicyClient } from '../engine/policyClient.ts';
import { listedEpisodes, listedFidelity, openListed, type CentreInput, type OpenedEpisode } from './creditModel.ts';
import { CRITIC_ESTIMATORS, readStored } from '../../rl/rollout/stored.ts';

export type { OpenedEpisode } from './creditModel.ts';

/** What the view samples SWEET-RL's candidates with: the policy worker's engine with the policy and the critic loaded. */
export interface CentringSource {
  engine: PolicyClient;
  /** Registers a stored policy adapter in the worker (the one that played the episode). */
  ensureAdapter(id: string): Promise<void>;
  /** Sampling for the policy (Settings). */
  sampling: Partial<Omit<SamplingParams, 'seed'>>;
}

export class CreditViewState {
  episodes = $state.raw<EpisodeSummary[]>([]);
  /** Whether the list has been read from the store: until then an empty list means "not read yet", not "no episodes". */
  loaded = $state(false);
  family = $state('');
  opened = $state.raw<OpenedEpisode[]>([]);
  fidelity = $state.raw<FidelityReport | null>(null);
  fidelityNote = $state<string | null>(null);
  /** Parameters of the estimators recomputed from stored critic scores (GAE, bi-level GAE, SWEET-RL). */
  params = $state<Record<string, CreditParams>>(Object.fromEntries(CRITIC_ESTIMATORS.map((n) => [n, resolveParams(n)])));
  /** K, the candidate turns sampled per state to centre SWEET-RL (0: the raw log-ratio). */
  centreK = $state(SWEET_CENTRE_DEFAULT);
  private request = 0;
  private opening = 0;
  /** Per "episode K": the candidates' advantages, or why there are none (a failure is retried on the next open). */
  private readonly centres: Record<string, CentreInput> = {};
  /** The keys being sampled now. */
  private readonly sampling: Record<string, true> = {};

  constructor(
    private readonly store: () => TrajectoryStore | null,
    private readonly models: () => CentringSource | null = () => null,
  ) {}

  private centreFor(id: string): CentreInput {
    return this.centres[`${id} ${this.centreK}`] ?? { k: this.centreK };
  }

  attach(): () => void {
    void this.refresh();
    return this.store()?.subscribe(() => void this.refresh()) ?? (() => undefined);
  }

  async refresh(): Promise<void> {
    const store = this.store();
    if (!store) return;
    const id = ++this.request;
    const items = await listedEpisodes(store, this.family);
    if (id !== this.request) return;
    this.episodes = items;
    this.loaded = true;
    const f = await listedFidelity(store, items);
    if (id !== this.request) return;
    this.fidelity = f.report;
    this.fidelityNote = f.note;
  }

  /** Opens an episode; with `compare`, beside the first one (two of the same task side by side). */
  async open(id: string, compare = false): Promise<void> {
    const store = this.store();
    if (!store) return;
    const request = ++this.opening;
    const opened = await openListed(store, this.episodes, id, this.params, this.centreFor(id));
    if (!opened || request !== this.opening) return;
    this.opened = compare && this.opened.length ? [this.opened[0], opened] : [opened];
    if (opened.needsCentring) void this.centre(id, this.centreK);
  }

  /** A new K: the opened episodes' SWEET-RL rows are centred over K candidates (sampled unless already). */
  async setCentre(k: number): Promise<void> {
    this.centreK = clampCentre(k);
    await this.reopen();
    for (const o of this.opened) if (o.needsCentring) void this.centre(o.summary.id, this.centreK);
  }

  /** Samples K candidates at every agent turn's state of episode `id` and scores them (rollout/centredSweet.ts), then redraws. */
  private async centre(id: string, k: number): Promise<void> {
    const key = `${id} ${k}`;
    if (this.centres[key]?.candidates || this.sampling[key]) return;
    const set = (c: Omit<CentreInput, 'k'>) => {
      this.centres[key] = { k, ...c };
      void this.reopen();
    };
    const src = this.models();
    const store = this.store();
    if (!src || !store)
      return set({ pending: 'centring samples candidate turns with the policy and scores them with the critic: load both (Settings → Models)' });
    this.sampling[key] = true;
    try {
      const [record] = (await store.getEpisodes([id])) as (EpisodeRecord | null)[];
      const [stored] = record ? readStored([record]) : [];
      if (!record || !stored?.scores) return;
      const scoredBy = stored.scores.version.split('@')[1] ?? null;
      const live = (await src.engine.adapters('critic')).active;
      if (live !== scoredBy)
        return set({
          pending: `the critic's adapter now (${live ?? 'none'}) is not the one that scored it (${scoredBy}), so candidates scored now would not be comparable`,
        });
      const states = storedStates(stored);
      set({ pending: `sampling ${k} candidate turns with the policy at each of ${states.length} states…` });
      const adapter = record.model.adapter;
      if (adapter !== null) await src.ensureAdapter(adapter);
      const agent = await PolicyBatchAgent.create(src.engine, { sampling: src.sampling, ...(adapter !== null ? { adapter } : {}) });
      set({ candidates: await candidateAdvantages(states, { agent, critic: src.engine }, { k, seed: record.task.seed }) });
    } catch (e) {
      set({ pending: `centring failed: ${(e as Error).message}` });
    } finally {
      delete this.sampling[key];
    }
  }

  /** Re-reads the opened episodes (parameters or centring changed; the latest request wins). */
  private async reopen(): Promise<void> {
    const store = this.store();
    if (!store) return;
    const request = ++this.opening;
    const ids = this.opened.map((o) => o.summary.id);
    const again = await Promise.all(ids.map((id) => openListed(store, this.episodes, id, this.params, this.centreFor(id))));
    if (request !== this.opening) return;
    this.opened = again.filter((o): o is OpenedEpisode => o !== null);
  }

  /** A moved slider: the opened episodes' critic estimators are recomputed from their stored scores (the latest request wins). */
  async setParam(name: EstimatorName, param: string, value: number): Promise<void> {
    this.params[name] = { ...this.params[name], [param]: value };
    await this.reopen();
  }
}
