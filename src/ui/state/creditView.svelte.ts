// State of the Credit view: stored episodes (filterable), one or two opened as a turn × estimator
// heatmap with the ground truth, and the fidelity table (rank correlation with ground truth, with
// bootstrap intervals) over the selection. Credit comes from src/rl/credit; the store supplies turns.
import { computeCredit, ESTIMATORS } from '../../rl/credit/registry.ts';
import { fidelityReport, type FidelityReport } from '../../rl/credit/fidelity.ts';
import type { EpisodeCreditInput, EstimatorName } from '../../rl/credit/types.ts';
import type { EpisodeRecord, EpisodeSummary, TrajectoryStore } from '../../rl/store/index.ts';

/** One opened episode: its agent turns, credit per estimator, and ground truth where known. */
export interface OpenedEpisode {
  summary: EpisodeSummary;
  /** Agent messages, one per turn. */
  actions: string[];
  /** Replies (collaborator or environment) after each agent turn. */
  replies: string[];
  rows: { name: string; label: string; values: Float32Array }[];
  truth: { label: string; values: Float32Array } | null;
}

/** Estimators computable from stored episodes without a critic: rewards, and groups of one task. */
const STORED: EstimatorName[] = ['mc', 'grpo'];

function agentTurns(e: EpisodeRecord) {
  const out: { action: string; reply: string; reward: number; gain: number | null }[] = [];
  e.turns.forEach((t, i) => {
    if (t.role !== 'agent') return;
    const next = e.turns[i + 1];
    const gain = t.info.informationGain;
    out.push({ action: t.text, reply: next && next.role !== 'agent' ? next.text : '', reward: t.reward, gain: typeof gain === 'number' ? gain : null });
  });
  return out;
}

const taskId = (s: Pick<EpisodeSummary, 'family' | 'split' | 'seed'>) => `${s.family}/${s.split}/${s.seed}`;

export class CreditViewState {
  episodes = $state.raw<EpisodeSummary[]>([]);
  family = $state('');
  opened = $state.raw<OpenedEpisode[]>([]);
  fidelity = $state.raw<FidelityReport | null>(null);
  fidelityNote = $state<string | null>(null);
  private request = 0;

  constructor(private readonly store: () => TrajectoryStore | null) {}

  attach(): () => void {
    void this.refresh();
    return this.store()?.subscribe(() => void this.refresh()) ?? (() => undefined);
  }

  async refresh(): Promise<void> {
    const store = this.store();
    if (!store) return;
    const id = ++this.request;
    const page = await store.listEpisodes({ ...(this.family ? { family: this.family } : {}), status: 'complete' }, { limit: 200 });
    if (id !== this.request) return;
    this.episodes = page.items;
    await this.computeFidelity(page.items);
  }

  /** Opens an episode; with `compare`, beside the first one (two of the same task side by side). */
  async open(id: string, compare = false): Promise<void> {
    const store = this.store();
    if (!store) return;
    const record = await store.getEpisode(id);
    const summary = this.episodes.find((e) => e.id === id);
    if (!record || !summary) return;
    const group = await this.groupOf(summary);
    const opened = this.build(summary, record, group);
    this.opened = compare && this.opened.length ? [this.opened[0], opened] : [opened];
  }

  /** The stored complete episodes of the same task (for GRPO's group baseline). */
  private async groupOf(s: EpisodeSummary): Promise<EpisodeRecord[]> {
    const store = this.store()!;
    const ids = this.episodes.filter((e) => taskId(e) === taskId(s)).map((e) => e.id);
    return (await store.getEpisodes(ids)).filter((e): e is EpisodeRecord => e !== null);
  }

  private build(summary: EpisodeSummary, record: EpisodeRecord, group: EpisodeRecord[]): OpenedEpisode {
    const turns = agentTurns(record);
    const rewards = Float32Array.from(turns, (t) => t.reward);
    const rows: OpenedEpisode['rows'] = [];
    rows.push({ name: 'mc', label: ESTIMATORS.find((e) => e.name === 'mc')!.label, values: computeCredit('mc', [{ rewards }])[0].perTurn });
    const members = group.length > 1 ? group : [record];
    const inputs: EpisodeCreditInput[] = members.map((e) => ({ rewards: Float32Array.from(agentTurns(e), (t) => t.reward), group: taskId(summary) }));
    const at = Math.max(0, members.findIndex((e) => e.id === record.id));
    rows.push({ name: 'grpo', label: `GRPO (group of ${members.length})`, values: computeCredit('grpo', inputs)[at].perTurn });
    const gains = turns.map((t) => t.gain);
    const truth = gains.some((g) => g !== null) ? { label: 'information gain (bits)', values: Float32Array.from(gains, (g) => g ?? 0) } : null;
    return { summary, actions: turns.map((t) => t.action), replies: turns.map((t) => t.reply), rows, truth };
  }

  /** Fidelity of the stored-episode estimators against information gain, over the listed guess episodes. */
  private async computeFidelity(list: EpisodeSummary[]): Promise<void> {
    const store = this.store()!;
    const guess = list.filter((e) => e.family === 'guess');
    if (guess.length < 3) {
      this.fidelity = null;
      this.fidelityNote = 'The fidelity table needs at least 3 complete guess episodes (information gain is the ground truth).';
      return;
    }
    const records = (await store.getEpisodes(guess.map((e) => e.id))).filter((e): e is EpisodeRecord => e !== null);
    const episodes = records.map((r) => {
      const s = guess.find((g) => g.id === r.id)!;
      const o = this.build(s, r, records.filter((x) => taskId(guess.find((g) => g.id === x.id)!) === taskId(s)));
      return { truth: o.truth!.values, credits: Object.fromEntries(o.rows.map((row) => [row.name, row.values])) };
    });
    this.fidelity = fidelityReport(episodes, STORED, { resamples: 500, seed: 1 });
    this.fidelityNote = `${episodes.length} guess episodes; ground truth: information gain of each question.`;
  }
}
