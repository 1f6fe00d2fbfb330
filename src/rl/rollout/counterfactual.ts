// Counterfactual ground truth for credit (issue #6 point 3; aggregation in credit/groundTruth.ts):
// from each turn's prefix s_t the rest of the episode is re-rolled M times with the current agent
// and the simulated collaborator, in two kinds:
//   taken:        replay turns < t, play the recorded a_t, then the agent continues  → Q̂(s_t, a_t);
//   alternative:  replay turns < t, the agent samples a fresh a'_t and continues     → V̂(s_t);
// A*_t = mean(taken) − mean(alternatives); the episode's own return-to-go is one more taken sample.
// Before turn t the environment's randomness is re-seeded (BaseEnv.reseed), so slips, payouts and
// phrasings from t on are fresh in every re-roll, as the agent's sampling is. Every re-roll's seeds
// derive from (seed, task key, stream, t, j, kind): the ground truth is reproducible, and all
// re-rolls of all episodes run as one batched rollout.
import { counterfactualAdvantage, informationGainTruth, type CounterfactualResult } from '../credit/groundTruth.ts';
import type { PhrasingSetting } from '../envs/phrasings.ts';
import type { Task } from '../envs/types.ts';
import { agentSideOf, type Turn } from '../envs/turn.ts';
import { hashString } from '../util/rng.ts';
import type { BatchAgent } from './agents.ts';
import { RolloutError, runSlots, type EpisodeSlot } from './rollout.ts';

/** How to re-roll. */
export interface CounterfactualOptions {
  /** Re-rolls per turn and kind (M ≥ 1). */
  m: number;
  /** Seeds every re-roll (agent and environment). */
  seed: number;
  /** Discount of the returns from turn t on; default 1 (the reward the tasks report). */
  gamma?: number;
  /** Re-rolled episodes stop after this many turns (use the rollout's turnLimit, if it had one). */
  turnLimit?: number;
  /** How the simulated collaborator words its answers in the re-rolls (use the rollout's, if it had any). */
  phrasings?: PhrasingSetting;
}

/** An episode to judge: its task and turns (a turn's agent side is carried into the forced taken turn). */
export interface JudgedEpisode {
  task: Task;
  turns: readonly Turn[];
}

/** The ground truth of one episode, with its raw re-roll returns. */
export interface CounterfactualTruth extends CounterfactualResult {
  /** [T][1 + M] taken returns (the episode's own first). */
  taken: number[][];
  /** [T][M] alternative returns. */
  alternatives: number[][];
}

/** The discounted return of `turns` from turn t on. */
export function returnFrom(turns: readonly Turn[], t: number, gamma: number): number {
  let g = 0;
  for (let k = turns.length - 1; k >= t; k--) g = turns[k].reward + gamma * g;
  return g;
}

/** Checks M and gamma (RolloutError 'bad-config'); returns gamma, 1 by default. */
export function checkedGamma(opts: Pick<CounterfactualOptions, 'm' | 'gamma'>): number {
  if (!Number.isInteger(opts.m) || opts.m < 1) throw new RolloutError('bad-config', `M (re-rolls) must be an integer ≥ 1, got ${opts.m}`);
  const gamma = opts.gamma ?? 1;
  if (!(gamma >= 0 && gamma <= 1)) throw new RolloutError('bad-config', `gamma must lie in [0, 1], got ${gamma}`);
  return gamma;
}

/** A seed for one re-roll: a safe non-negative integer. */
export function rerollSeed(seed: number, task: Task, t: number, j: number, kind: 'taken' | 'alt'): number {
  return hashString(`counterfactual/${seed}/${task.key}/${task.spec.stream ?? 0}/${t}/${j}/${kind}`);
}

/** Re-rolls every turn of every episode M times per kind (one batched rollout) and aggregates A*_t. */
export async function counterfactualTruth(episodes: readonly JudgedEpisode[], agent: BatchAgent, opts: CounterfactualOptions): Promise<CounterfactualTruth[]> {
  const gamma = checkedGamma(opts);
  const slots: EpisodeSlot[] = [];
  // where[e][t] = index of the first slot of (e, t): M taken, then M alternatives
  const where: number[][] = [];
  episodes.forEach((e) => {
    const at: number[] = [];
    e.turns.forEach((turn, t) => {
      at.push(slots.length);
      const prefix = e.turns.slice(0, t);
      const limit = opts.turnLimit !== undefined ? { turnLimit: opts.turnLimit } : {};
      for (const kind of ['taken', 'alt'] as const) {
        for (let j = 0; j < opts.m; j++) {
          const s = rerollSeed(opts.seed, e.task, t, j, kind);
          slots.push({
            spec: e.task.spec,
            seed: s,
            prefix,
            reseed: s,
            ...limit,
            ...(kind === 'taken' ? { forced: { action: turn.action, agent: agentSideOf(turn) } } : {}),
          });
        }
      }
    });
    where.push(at);
  });
  const played = slots.length ? await runSlots(slots, agent, opts.phrasings === undefined ? {} : { phrasings: opts.phrasings }) : [];
  return episodes.map((e, i) => {
    const taken: number[][] = [];
    const alternatives: number[][] = [];
    e.turns.forEach((_, t) => {
      const first = where[i][t];
      taken.push([returnFrom(e.turns, t, gamma), ...played.slice(first, first + opts.m).map((p) => returnFrom(p.turns, t, gamma))]);
      alternatives.push(played.slice(first + opts.m, first + 2 * opts.m).map((p) => returnFrom(p.turns, t, gamma)));
    });
    const agg = counterfactualAdvantage(taken.map((tk, t) => ({ taken: tk, alternatives: alternatives[t] })));
    return { ...agg, taken, alternatives };
  });
}

/** The `guess` ground truth: each turn's information gain in bits (0 for turns that asked nothing). */
export function informationGainOf(turns: readonly Turn[]): Float32Array {
  return informationGainTruth(turns.map((t) => (typeof t.info.informationGain === 'number' ? t.info.informationGain : 0)));
}
