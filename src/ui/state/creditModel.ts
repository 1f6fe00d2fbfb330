// The pure part of the Credit view (no runes, no DOM; testable in Node): stored episodes read
// through src/rl/rollout/stored.ts (readStored + storedCredit, the same path as `turnwise credit`),
// one opened as rows of per-turn credit by the rewards-only estimators with its ground truth, and
// the fidelity table (rank correlation with information gain, bootstrap intervals,
// src/rl/credit/fidelity.ts) over the listed guess episodes. creditView.svelte.ts holds the state.
import { fidelityReport, type FidelityReport } from '../../rl/credit/fidelity.ts';
import { ESTIMATORS } from '../../rl/credit/registry.ts';
import type { EstimatorName } from '../../rl/credit/types.ts';
import type { JsonObject } from '../../rl/envs/types.ts';
import type { CriticTurn } from '../../rl/rollout/criticInputs.ts';
import { readStored, storedCredit, type StoredEpisode } from '../../rl/rollout/stored.ts';
import type { EpisodeRecord, EpisodeSummary, TrajectoryStore } from '../../rl/store/index.ts';

/** One opened episode: its agent turns, credit per estimator, and ground truth where known. */
export interface OpenedEpisode {
  summary: EpisodeSummary;
  /** Agent messages, one per turn. */
  actions: string[];
  /** Replies (collaborator or environment) after each agent turn. */
  replies: string[];
  /** Recomputed from rewards (MC, GRPO over the stored group), then the rows stored with the episode. */
  rows: { name: EstimatorName | 'human-feedback'; label: string; values: Float32Array }[];
  truth: { label: string; values: Float32Array } | null;
}

/** What the model reads from the store. */
export type CreditStore = Pick<TrajectoryStore, 'listEpisodes' | 'getEpisodes'>;

/** Estimators computable from stored episodes without a critic: rewards, and groups of one task. */
export const STORED_ESTIMATORS: readonly EstimatorName[] = ['mc', 'grpo'];

const sameTask = (a: Pick<EpisodeSummary, 'family' | 'split' | 'seed'>, b: Pick<EpisodeSummary, 'family' | 'split' | 'seed'>) => a.family === b.family && a.split === b.split && a.seed === b.seed;

/**
 * Credit rows of `record`, GRPO's group being the records of `candidates` with the same task
 * (StoredEpisode.group: family, split, seed and options). Null when it has no agent turn.
 */
export function openedEpisode(summary: EpisodeSummary, record: EpisodeRecord, candidates: readonly EpisodeRecord[]): OpenedEpisode | null {
  const [mine] = readStored([record]);
  if (!mine) return null;
  const group: StoredEpisode[] = [mine, ...readStored(candidates).filter((e) => e.group === mine.group && e.id !== mine.id)];
  const credit = storedCredit(group, STORED_ESTIMATORS);
  const rows: OpenedEpisode['rows'] = STORED_ESTIMATORS.map((name) => ({
    name,
    label: name === 'grpo' ? `GRPO (group of ${group.length})` : (ESTIMATORS.find((e) => e.name === name)?.label ?? name),
    values: credit.get(name)![0].perTurn,
  }));
  // what was stored with the episode: Play's live credit (the critic's estimators included) and a person's thumbs
  const at = mine.agentRecords ?? [];
  for (const c of record.credit) {
    if (c.version !== 'live' && c.estimator !== 'human-feedback') continue;
    const label = c.estimator === 'human-feedback' ? 'thumbs (person)' : `${ESTIMATORS.find((e) => e.name === c.estimator)?.label ?? c.estimator} (as played)`;
    rows.push({ name: c.estimator as EstimatorName | 'human-feedback', label, values: Float32Array.from(at, (i) => c.values[i] ?? Number.NaN) });
  }
  const turns: readonly (CriticTurn & { info: JsonObject })[] = mine.critic.turns;
  const gains = turns.map((t) => (typeof t.info.informationGain === 'number' ? t.info.informationGain : null));
  const truth = gains.some((g) => g !== null) ? { label: 'information gain (bits)', values: Float32Array.from(gains, (g) => g ?? 0) } : null;
  return { summary, actions: turns.map((t) => t.action), replies: turns.map((t) => t.observation), rows, truth };
}

/** The complete episodes the view lists (optionally of one family), newest first. */
export async function listedEpisodes(store: CreditStore, family: string): Promise<EpisodeSummary[]> {
  return (await store.listEpisodes({ ...(family ? { family } : {}), status: 'complete' }, { limit: 200 })).items;
}

/** Opens listed episode `id` with the listed episodes of its task as GRPO's group. */
export async function openListed(store: CreditStore, listed: readonly EpisodeSummary[], id: string): Promise<OpenedEpisode | null> {
  const summary = listed.find((e) => e.id === id);
  if (!summary) return null;
  const ids = listed.filter((e) => sameTask(e, summary)).map((e) => e.id);
  const records = (await store.getEpisodes(ids)).filter((e): e is EpisodeRecord => e !== null);
  const record = records.find((r) => r.id === id);
  return record ? openedEpisode(summary, record, records) : null;
}

/** Fidelity of the stored-episode estimators against information gain, over the listed guess episodes. */
export async function listedFidelity(store: CreditStore, listed: readonly EpisodeSummary[]): Promise<{ report: FidelityReport | null; note: string }> {
  const guess = listed.filter((e) => e.family === 'guess');
  if (guess.length < 3) return { report: null, note: 'The fidelity table needs at least 3 complete guess episodes (information gain is the ground truth).' };
  const records = (await store.getEpisodes(guess.map((e) => e.id))).filter((e): e is EpisodeRecord => e !== null);
  const episodes = records.flatMap((r) => {
    const o = openedEpisode(guess.find((g) => g.id === r.id)!, r, records);
    return o?.truth ? [{ truth: o.truth.values, credits: Object.fromEntries(o.rows.map((row) => [row.name, row.values])) }] : [];
  });
  return { report: fidelityReport(episodes, [...STORED_ESTIMATORS], { resamples: 500, seed: 1 }), note: `${episodes.length} guess episodes; ground truth: information gain of each question.` };
}
