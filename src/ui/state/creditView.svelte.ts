// State of the Credit view: stored episodes (filterable), one or two opened as a turn × estimator
// heatmap with the ground truth, and the fidelity table over the selection. What is computed lives
// in creditModel.ts (pure, shared reading of stored episodes with the CLI); this class holds it.
import type { FidelityReport } from '../../rl/credit/fidelity.ts';
import type { EpisodeSummary, TrajectoryStore } from '../../rl/store/index.ts';
import { resolveParams, type EstimatorName } from '../../rl/credit/registry.ts';
import type { CreditParams } from '../../rl/credit/types.ts';
import { listedEpisodes, listedFidelity, openListed, type OpenedEpisode } from './creditModel.ts';
import { CRITIC_ESTIMATORS } from '../../rl/rollout/stored.ts';

export type { OpenedEpisode } from './creditModel.ts';

export class CreditViewState {
  episodes = $state.raw<EpisodeSummary[]>([]);
  family = $state('');
  opened = $state.raw<OpenedEpisode[]>([]);
  fidelity = $state.raw<FidelityReport | null>(null);
  fidelityNote = $state<string | null>(null);
  /** Parameters of the estimators recomputed from stored critic scores (GAE, bi-level GAE, SWEET-RL). */
  params = $state<Record<string, CreditParams>>(Object.fromEntries(CRITIC_ESTIMATORS.map((n) => [n, resolveParams(n)])));
  private request = 0;
  private opening = 0;

  constructor(private readonly store: () => TrajectoryStore | null) {}

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
    const opened = await openListed(store, this.episodes, id, this.params);
    if (!opened || request !== this.opening) return;
    this.opened = compare && this.opened.length ? [this.opened[0], opened] : [opened];
  }

  /** A moved slider: the opened episodes' critic estimators are recomputed from their stored scores (the latest request wins). */
  async setParam(name: EstimatorName, param: string, value: number): Promise<void> {
    this.params[name] = { ...this.params[name], [param]: value };
    const store = this.store();
    if (!store) return;
    const request = ++this.opening;
    const ids = this.opened.map((o) => o.summary.id);
    const again = await Promise.all(ids.map((id) => openListed(store, this.episodes, id, this.params)));
    if (request !== this.opening) return;
    this.opened = again.filter((o): o is OpenedEpisode => o !== null);
  }
}
