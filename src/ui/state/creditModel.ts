// The pure part of the Credit view (no runes, no DOM; testable in Node): stored episodes read
// through src/rl/rollout/stored.ts (readStored + storedCredit, the same path as `turnwise credit`),
// one opened as rows of per-turn credit by the rewards-only estimators with its ground truth, and
// the fidelity table (rank correlation with information gain, bootstrap intervals,
// src/rl/credit/fidelity.ts) over the listed guess episodes. An episode stored with the critic's
// scores (Play keeps them) also gets GAE, bi-level GAE and SWEET-RL recomputed from those scores
// with the view's parameters — per token too for the token-level two — with no critic loaded.
// SWEET-RL's row is centred at each turn's state (issue #46; rollout/centredSweet.ts): the view samples
// K candidates per state with the policy (creditView.svelte.ts) and passes their advantages in here;
// until they are in, the row is left out with why. creditView.svelte.ts holds the state.
import { fidelityReport, type FidelityReport } from '../../rl/credit/fidelity.ts';
import { ESTIMATORS, estimatorSpec, resolveParams, type EstimatorName } from '../../rl/credit/registry.ts';
import type { EstimatorSpec } from '../../rl/credit/spec.ts';
import type { CreditParams } from '../../rl/credit/types.ts';
import type { JsonObject } from '../../rl/envs/types.ts';
import { FAMILIES, type FamilyName } from '../../rl/envs/registry.ts';
import type { CriticTurn } from '../../rl/rollout/criticInputs.ts';
import { CRITIC_ESTIMATORS, readStored, REWARD_ESTIMATORS, storedCredit, storedInput, type StoredEpisode } from '../../rl/rollout/stored.ts';
import { centredTurns } from '../../rl/rollout/centredSweet.ts';
import { centredLabel, SWEET_CENTRE_DEFAULT } from '../../rl/credit/centredSweet.ts';
import type { EpisodeRecord, EpisodeSummary, TrajectoryStore } from '../../rl/store/index.ts';

/** One opened episode: its agent turns, credit per estimator, and ground truth where known. */
export interface OpenedEpisode {
  summary: EpisodeSummary;
  /** Agent messages, one per turn. */
  actions: string[];
  /** Replies (collaborator or environment) after each agent turn. */
  replies: string[];
  /** Recomputed from rewards (MC, GRPO over the stored group), from the stored critic scores, then the rows stored with the episode. */
  rows: OpenedRow[];
  truth: { label: string; values: Float32Array } | null;
  /** Rows left out because they could say nothing here (constant by construction, or a copy of a shown row), each with why. */
  hidden: { label: string; reason: string }[];
  /** The tokens the critic scored (turn t owns [offsets[t], offsets[t+1])), when its scores were stored. */
  tokens: { offsets: number[]; text: string[]; version: string } | null;
  /** SWEET-RL's row waits for its centring candidates (CentreInput.candidates). */
  needsCentring: boolean;
}

/** One row of an opened episode's heatmap. */
export interface OpenedRow {
  name: EstimatorName | 'human-feedback';
  label: string;
  /** [T] per-turn credit (NaN where none). */
  values: Float32Array;
  /** [N] per-token credit over OpenedEpisode.tokens (token-level estimators recomputed from stored scores). */
  perToken?: Float32Array;
  /** Its parameters in words, e.g. "γ 1, λ 0.95". */
  paramText?: string;
}

/** What the model reads from the store. */
export type CreditStore = Pick<TrajectoryStore, 'listEpisodes' | 'getEpisodes'>;

/** "γ 0.95, λ 0.9": an estimator's parameters as shown beside its numbers. */
export function paramText(spec: EstimatorSpec, params: CreditParams): string {
  return spec.params.map((p) => `${p.label} ${String(params[p.name])}`).join(', ');
}

const specOf = (name: string) => ESTIMATORS.find((e) => e.name === name);

/** How SWEET-RL's row is centred: K (0: the raw log-ratio), and the candidates' advantages once sampled or why they are not. */
export interface CentreInput {
  k: number;
  /** [turn][K] β = 1 advantages of the candidates the policy sampled at each turn's state (rollout/centredSweet.ts). */
  candidates?: readonly ArrayLike<number>[];
  /** Why there are none yet, e.g. "sampling 8 candidates at each of 3 states…". */
  pending?: string;
}

/** Equal turn by turn to float32 precision (a stored row went through JSON; NaN matches NaN). */
function sameValues(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) && Number.isNaN(b[i])) continue;
    if (!(Math.abs(a[i] - b[i]) <= 1e-6 * Math.max(1, Math.abs(a[i])))) return false;
  }
  return true;
}

const sameTask = (a: Pick<EpisodeSummary, 'family' | 'split' | 'seed'>, b: Pick<EpisodeSummary, 'family' | 'split' | 'seed'>) =>
  a.family === b.family && a.split === b.split && a.seed === b.seed;

/**
 * Credit rows of `record`, GRPO's group being the records of `candidates` with the same task
 * (StoredEpisode.group: family, split, seed and options). Null when it has no agent turn.
 */
export function openedEpisode(
  summary: EpisodeSummary,
  record: EpisodeRecord,
  candidates: readonly EpisodeRecord[],
  params: Readonly<Record<string, CreditParams>> = {},
  centre: CentreInput = { k: SWEET_CENTRE_DEFAULT },
): OpenedEpisode | null {
  const [mine] = readStored([record]);
  if (!mine) return null;
  const group: StoredEpisode[] = [mine, ...readStored(candidates).filter((e) => e.group === mine.group && e.id !== mine.id)];
  const credit = storedCredit(group, REWARD_ESTIMATORS);
  const hidden: OpenedEpisode['hidden'] = [];
  // A row constant by construction says nothing and reads as a finding (issue 49): GRPO over a group
  // of one is that episode minus itself; SWEET-RL from a critic without its adapter is the critic's
  // log-ratio against itself. Such rows are listed under the heatmap with the reason, not drawn.
  const rows: OpenedEpisode['rows'] = REWARD_ESTIMATORS.flatMap((name) => {
    const spec = estimatorSpec(name);
    if (spec.scope === 'group' && group.length === 1) {
      hidden.push({ label: spec.label, reason: 'needs other episodes of this task to compare with (none is stored), so it is 0 on every turn' });
      return [];
    }
    return [{ name, label: spec.scope === 'group' ? `${spec.label} (group of ${group.length})` : spec.label, values: credit.get(name)![0].perTurn }];
  });
  // the critic's estimators from its stored scores, with this view's parameters (bi-level GAE only where per-token values were stored)
  const scored = storedInput(mine);
  const tokens = scored && mine.scores ? { offsets: mine.scores.tokenOffsets, text: mine.scores.tokenText, version: mine.scores.version } : null;
  // "critic" scored with its base only; "critic@<adapter>" with an adapter (rollout/criticInputs.ts)
  const noAdapter = !!mine.scores && !mine.scores.version.includes('@');
  let needsCentring = false;
  for (const name of scored ? CRITIC_ESTIMATORS : []) {
    const spec = estimatorSpec(name);
    // bi-level GAE's per-token values are stored only by critics that give them
    if (spec.needs.some((n) => scored?.[n] === undefined)) continue;
    if (spec.needsAdapter && noAdapter) {
      hidden.push({
        label: spec.label,
        reason: `the critic that scored it (${mine.scores!.version}) has no ${spec.label} adapter, so its log-ratio against its own base is 0 on every turn`,
      });
      continue;
    }
    const p = resolveParams(name, params[name] ?? {});
    const [r] = storedCredit([mine], [name], { [name]: p }).get(name)!;
    let values = r.perTurn;
    let label = spec.label;
    if (name === 'sweet') {
      // centred at each state (its perToken stays the raw log-ratio: the strip is aligned to the centred bar, tokenStrips.ts)
      label = centredLabel(spec.label, centre.k);
      if (centre.k > 0 && !centre.candidates) {
        needsCentring = true;
        hidden.push({ label, reason: centre.pending ?? `needs ${centre.k} candidate turns sampled by the policy at each turn's state` });
        continue;
      }
      if (centre.k > 0) values = centredTurns(r.perTurn, centre.candidates!, Number(p.beta));
    }
    rows.push({ name, label: `${label} (recomputed)`, values, paramText: paramText(spec, p), ...(r.perToken ? { perToken: r.perToken } : {}) });
  }
  // what was stored with the episode: Play's live credit (the critic's estimators included) and a person's thumbs
  const at = mine.agentRecords ?? [];
  for (const c of record.credit) {
    if (c.version !== 'live' && c.estimator !== 'human-feedback') continue;
    const spec = specOf(c.estimator)?.label ?? c.estimator;
    if (specOf(c.estimator)?.needsAdapter && noAdapter) continue; // said once above
    // Play stores SWEET-RL with the K it was centred over; a row from before centring is the raw log-ratio
    const k = c.estimator === 'sweet' ? c.params?.centre : undefined;
    if (c.estimator === 'sweet' && typeof k !== 'number') {
      hidden.push({ label: `${spec} (as played)`, reason: 'stored uncentred, before SWEET-RL credit was centred at its state' });
      continue;
    }
    const label = c.estimator === 'human-feedback' ? 'thumbs (person)' : `${typeof k === 'number' ? centredLabel(spec, k) : spec} (as played)`;
    const values = Float32Array.from(at, (i) => c.values[i] ?? Number.NaN);
    // what Play showed, when a row above already gives the same numbers (same estimator, same parameters)
    if (rows.some((r) => r.name === c.estimator && sameValues(r.values, values))) {
      hidden.push({ label, reason: `the same values as the ${spec} row shown` });
      continue;
    }
    rows.push({ name: c.estimator as EstimatorName | 'human-feedback', label, values });
  }
  const turns: readonly (CriticTurn & { info: JsonObject })[] = mine.critic.turns;
  const gains = turns.map((t) => (typeof t.info.informationGain === 'number' ? t.info.informationGain : null));
  const truth = gains.some((g) => g !== null) ? { label: 'information gain (bits)', values: Float32Array.from(gains, (g) => g ?? 0) } : null;
  return { summary, actions: turns.map((t) => t.action), replies: turns.map((t) => t.observation), rows, truth, hidden, tokens, needsCentring };
}

/** The complete episodes the view lists (optionally of one family), newest first. */
export async function listedEpisodes(store: CreditStore, family: string): Promise<EpisodeSummary[]> {
  return (await store.listEpisodes({ ...(family ? { family } : {}), status: 'complete' }, { limit: 200 })).items;
}

/** Opens listed episode `id` with the listed episodes of its task as GRPO's group; `params` for the estimators recomputed from stored scores. */
export async function openListed(
  store: CreditStore,
  listed: readonly EpisodeSummary[],
  id: string,
  params: Readonly<Record<string, CreditParams>> = {},
  centre?: CentreInput,
): Promise<OpenedEpisode | null> {
  const summary = listed.find((e) => e.id === id);
  if (!summary) return null;
  const ids = listed.filter((e) => sameTask(e, summary)).map((e) => e.id);
  const records = (await store.getEpisodes(ids)).filter((e): e is EpisodeRecord => e !== null);
  const record = records.find((r) => r.id === id);
  return record ? openedEpisode(summary, record, records, params, centre) : null;
}

/** Fidelity of the stored-episode estimators against information gain, over the listed guess episodes. */
export async function listedFidelity(store: CreditStore, listed: readonly EpisodeSummary[]): Promise<{ report: FidelityReport | null; note: string }> {
  // the families whose steps report information gain (their specs, envs/family.ts): guess
  const guess = listed.filter((e) => FAMILIES[e.family as FamilyName]?.informationGain === true);
  if (guess.length < 3) return { report: null, note: 'The fidelity table needs at least 3 complete guess episodes (information gain is the ground truth).' };
  const records = (await store.getEpisodes(guess.map((e) => e.id))).filter((e): e is EpisodeRecord => e !== null);
  const episodes = records.flatMap((r) => {
    const o = openedEpisode(
      guess.find((g) => g.id === r.id)!,
      r,
      records,
    );
    // GRPO's row left out for a group of one is 0 on every turn, and counts as such here
    return o?.truth
      ? [{ truth: o.truth.values, credits: { grpo: new Float32Array(o.actions.length), ...Object.fromEntries(o.rows.map((row) => [row.name, row.values])) } }]
      : [];
  });
  return {
    report: fidelityReport(episodes, [...REWARD_ESTIMATORS], { resamples: 500, seed: 1 }),
    note: `${episodes.length} guess episodes; ground truth: information gain of each question.`,
  };
}
