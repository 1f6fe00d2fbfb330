// Within-state candidates and their counterfactual Q (issue #46; the statistics are
// credit/withinState.ts). SWEET-RL ranks N candidate turns sampled from the policy at one state
// (Zhou et al., arXiv 2503.15478 §4); this samples that setting and the truth that judges it:
//  1. states: one per played episode (independent tasks), its prefix s_t up to a uniformly drawn agent turn t;
//  2. candidates: N turns a_1…a_N sampled from the agent at s_t (each slot replays the prefix and stops
//     after turn t; the environment is re-seeded per candidate, so its reply is a fresh draw too);
//  3. truth: each candidate is played again M times and the episode rolled on by the agent, the
//     re-roll kind of counterfactual.ts that keeps the taken turn (`forced`, reseeded environment);
//     Q̂(s_t, a_i) = mean of the M returns from t on. Re-roll j of every candidate of one state uses
//     the same seeds (common random numbers: the candidates' differences are less noisy, each Q̂ is
//     unbiased all the same);
//  4. scores: what each estimator says about each candidate (candidateScores).
// Every stage is one batched rollout (runSlots) over all states.
import { sweetTurnAdvantage } from '../credit/sweetAdvantage.ts';
import type { EpisodeCreditInput } from '../credit/types.ts';
import type { PhrasingSetting } from '../envs/phrasings.ts';
import type { Task } from '../envs/types.ts';
import { agentSideOf, type Turn } from '../envs/turn.ts';
import { hashString, Rng } from '../util/rng.ts';
import type { BatchAgent } from './agents.ts';
import { checkedGamma, returnFrom, type JudgedEpisode } from './counterfactual.ts';
import { criticInputs, lastTurnLogprobs, type ScoreApi } from './criticInputs.ts';
import { RolloutError, runSlots, type EpisodeSlot, type RolloutEvent } from './rollout.ts';

/** A state: an episode's task and its turns before agent turn t. */
export interface StatePick {
  task: Task;
  /** The agent turn the candidates replace (0-based). */
  t: number;
  /** The episode's turns before t, replayed to reach the state. */
  prefix: readonly Turn[];
}

/** How to sample candidates and re-roll them. */
export interface WithinStateOptions {
  /** Candidate turns per state (N ≥ 2). */
  candidates: number;
  /** Re-rolls per candidate (M ≥ 2: the truth's reliability splits them in halves). */
  m: number;
  /** Seeds the candidates and re-rolls (agent and environment). */
  seed: number;
  /** Discount of the returns from t on; default 1. */
  gamma?: number;
  /** Episodes stop after this many agent turns (the rollout's turnLimit, if it had one). */
  turnLimit?: number;
  /** How the simulated collaborator words its answers (the rollout's, if it had any). */
  phrasings?: PhrasingSetting;
  /** Called with a line now and then during the long stages (the CLI prints them to stderr). */
  onProgress?: (line: string) => void;
}

/** One candidate turn with its re-roll returns. */
export interface SampledCandidate {
  /** The candidate turn as played at the state (action, reply, observation, reward, agent side). */
  turn: Turn;
  /** [M] returns from t of the re-rolls that keep it. */
  returns: number[];
  /** Q̂(s_t, a): mean of `returns`. */
  q: number;
}

/** A state with its candidates. */
export interface SampledState extends StatePick {
  candidates: SampledCandidate[];
}

/** One state per episode with at least one turn: its prefix up to a uniformly drawn turn t (seeded). */
export function pickStates(episodes: readonly JudgedEpisode[], seed: number): StatePick[] {
  const rng = new Rng(`within-state/${seed}`);
  return episodes
    .filter((e) => e.turns.length > 0)
    .map((e) => {
      const t = rng.int(e.turns.length);
      return { task: e.task, t, prefix: e.turns.slice(0, t) };
    });
}

function stageSeed(seed: number, s: StatePick, stage: string, i: number): number {
  return hashString(`within-state/${seed}/${s.task.key}/${s.task.spec.stream ?? 0}/${s.t}/${stage}/${i}`);
}

/** A progress line at most every 15 s (episodes of a batch tend to end together, so turns are counted too), and at the end. */
function progress(stage: string, total: number, onProgress?: (line: string) => void): ((e: RolloutEvent) => void) | undefined {
  if (!onProgress) return undefined;
  let ended = 0;
  let turns = 0;
  const start = performance.now();
  let last = start;
  return (e) => {
    if (e.kind === 'turn') turns++;
    if (e.kind === 'end') ended++;
    const now = performance.now();
    if (ended === total && e.kind === 'end') onProgress(`${stage}: done, ${total} episodes (${turns} turns played) in ${((now - start) / 1000).toFixed(0)} s`);
    else if (now - last >= 15_000) {
      last = now;
      onProgress(`${stage}: ${ended}/${total} episodes ended, ${turns} turns played, ${((now - start) / 1000).toFixed(0)} s`);
    }
  };
}

/** How to sample candidate turns (stage 1 alone: the centred SWEET-RL credit needs no re-rolls). */
export type CandidateSampling = Pick<WithinStateOptions, 'candidates' | 'seed' | 'phrasings' | 'onProgress'>;

/** N candidate turns sampled from the agent at every state (one batched rollout): [state][N]. */
export async function sampleCandidateTurns(states: readonly StatePick[], agent: BatchAgent, opts: CandidateSampling): Promise<Turn[][]> {
  if (!Number.isInteger(opts.candidates) || opts.candidates < 1)
    throw new RolloutError('bad-config', `candidates per state must be an integer ≥ 1, got ${opts.candidates}`);
  // each slot replays the prefix and stops right after turn t
  const slots: EpisodeSlot[] = states.flatMap((s) =>
    Array.from({ length: opts.candidates }, (_, i): EpisodeSlot => {
      const seed = stageSeed(opts.seed, s, 'candidate', i);
      return { spec: s.task.spec, seed, prefix: s.prefix, reseed: seed, turnLimit: s.t + 1 };
    }),
  );
  const run = opts.phrasings === undefined ? {} : { phrasings: opts.phrasings };
  const sampled = slots.length ? await runSlots(slots, agent, { ...run, onEvent: progress('candidates', slots.length, opts.onProgress) }) : [];
  return states.map((s, k) =>
    sampled.slice(k * opts.candidates, (k + 1) * opts.candidates).map((p, i) => {
      if (p.turns.length !== s.t + 1) throw new RolloutError('bad-config', `candidate ${i} of state ${k} did not reach turn ${s.t}`);
      return p.turns[s.t];
    }),
  );
}

/** Samples N candidates at every state and re-rolls each M times (two batched rollouts). */
export async function sampleCandidates(states: readonly StatePick[], agent: BatchAgent, opts: WithinStateOptions): Promise<SampledState[]> {
  const gamma = checkedGamma(opts);
  if (!Number.isInteger(opts.candidates) || opts.candidates < 2)
    throw new RolloutError('bad-config', `candidates per state must be an integer ≥ 2, got ${opts.candidates}`);
  if (opts.m < 2) throw new RolloutError('bad-config', `M (re-rolls per candidate) must be ≥ 2 (the truth's reliability splits them), got ${opts.m}`);
  const run = { ...(opts.phrasings === undefined ? {} : { phrasings: opts.phrasings }) };
  const limit = opts.turnLimit !== undefined ? { turnLimit: opts.turnLimit } : {};
  const turns = (await sampleCandidateTurns(states, agent, opts)).flat();
  // stage 2: M re-rolls per candidate that keep it; re-roll j of a state shares its seeds across candidates
  const second: EpisodeSlot[] = [];
  states.forEach((s, k) => {
    for (let i = 0; i < opts.candidates; i++) {
      const turn = turns[k * opts.candidates + i];
      for (let j = 0; j < opts.m; j++) {
        const seed = stageSeed(opts.seed, s, 'reroll', j);
        second.push({ spec: s.task.spec, seed, prefix: s.prefix, reseed: seed, ...limit, forced: { action: turn.action, agent: agentSideOf(turn) } });
      }
    }
  });
  const rerolled = await runSlots(second, agent, { ...run, onEvent: progress('re-rolls', second.length, opts.onProgress) });
  return states.map((s, k) => ({
    ...s,
    candidates: Array.from({ length: opts.candidates }, (_, i) => {
      const at = (k * opts.candidates + i) * opts.m;
      const returns = rerolled.slice(at, at + opts.m).map((p) => returnFrom(p.turns, s.t, gamma));
      return { turn: turns[k * opts.candidates + i], returns, q: returns.reduce((a, b) => a + b, 0) / returns.length };
    }),
  }));
}

/** The truth of each state's candidates from all M re-rolls, and from each half (first ⌊M/2⌋, the rest). */
export function candidateTruths(states: readonly SampledState[]): { truth: Float64Array[]; halfA: Float64Array[]; halfB: Float64Array[] } {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    truth: states.map((s) => Float64Array.from(s.candidates, (c) => c.q)),
    halfA: states.map((s) => Float64Array.from(s.candidates, (c) => mean(c.returns.slice(0, c.returns.length >> 1)))),
    halfB: states.map((s) => Float64Array.from(s.candidates, (c) => mean(c.returns.slice(c.returns.length >> 1)))),
  };
}

/** Estimators that can rank the candidates of one state. */
export const CANDIDATE_ESTIMATORS = ['sweet', 'value-lookahead', 'archer', 'policy-logprob', 'info-gain'] as const;
export type CandidateEstimator = (typeof CANDIDATE_ESTIMATORS)[number];

/** What scores the candidates: the critic (if loaded), whether it has an adapter, and the family. */
export interface CandidateScoring {
  /** Scores with the critic's value head and LM head (its active adapter against its base); omit to skip critic estimators. */
  critic?: ScoreApi;
  /** The critic's active adapter id, or null when it has none (SWEET-RL's log-ratio is then 0 by construction). */
  criticAdapter: string | null;
  /** Discount of the one-step look-ahead (r_t + γ V(s_{t+1})); default 1. */
  gamma?: number;
}

/** Per state, estimator → [N] scores; estimators that cannot score here are listed with the reason. */
export interface CandidateScores {
  scores: Record<string, Float64Array>[];
  unavailable: { estimator: CandidateEstimator; reason: string }[];
}

/**
 * Each estimator's score of each candidate (higher = better):
 *  - sweet: β = 1 mean token log-ratio of the critic's adapter against its base (credit/sweetAdvantage.ts);
 *  - value-lookahead: r_t + γ V(s_{t+1}), V from the critic's value head after the candidate's observation (0 once done);
 *  - archer: Q(s_t, a) needs a Q head (the shipped critic has a value head only);
 *  - policy-logprob: Σ log π(a | s_t) over the candidate's sampled tokens (the naive baseline);
 *  - info-gain (guess): the question's exact expected information gain in bits (info.informationGain).
 */
export async function candidateScores(states: readonly SampledState[], scoring: CandidateScoring): Promise<CandidateScores> {
  const unavailable: CandidateScores['unavailable'] = [{ estimator: 'archer', reason: 'no Q head (the critic has a value head only)' }];
  const scores: Record<string, Float64Array>[] = states.map(() => ({}));
  const hasLogprobs = states.every((s) => s.candidates.every((c) => c.turn.logprobs !== null));
  if (hasLogprobs)
    states.forEach((s, k) => (scores[k]['policy-logprob'] = Float64Array.from(s.candidates, (c) => (c.turn.logprobs as number[]).reduce((a, b) => a + b, 0))));
  else unavailable.push({ estimator: 'policy-logprob', reason: 'the agent records no log-probs (a scripted agent)' });
  if (scoring.critic) {
    const gamma = scoring.gamma ?? 1;
    const episodes = states.flatMap((s) =>
      s.candidates.map((c) => ({ task: s.task, turns: [...s.prefix, c.turn], tokens: [...s.prefix.map((p) => p.tokens), c.turn.tokens] })),
    );
    const inputs = await criticInputs(scoring.critic, episodes);
    states.forEach((s, k) => {
      const mine = inputs.slice(k * s.candidates.length, (k + 1) * s.candidates.length);
      // values[t+1] is already 0 where the candidate ended the episode (criticInputs: terminal)
      scores[k]['value-lookahead'] = Float64Array.from(mine, (x) => x.rewards[s.t] + gamma * (x.values as Float32Array)[s.t + 1]);
      if (scoring.criticAdapter !== null) scores[k].sweet = Float64Array.from(mine, (x) => turnSweet(x, s.t));
    });
    if (scoring.criticAdapter === null)
      unavailable.unshift({ estimator: 'sweet', reason: 'no adapter: the critic is its own reference, so the log-ratio is 0 for every candidate' });
  } else {
    unavailable.unshift({ estimator: 'sweet', reason: 'no critic loaded' });
    unavailable.push({ estimator: 'value-lookahead', reason: 'no critic loaded' });
  }
  const guess = states.every((s) => s.task.spec.family === 'guess');
  if (guess)
    states.forEach(
      (s, k) =>
        (scores[k]['info-gain'] = Float64Array.from(s.candidates, (c) => (typeof c.turn.info.informationGain === 'number' ? c.turn.info.informationGain : 0))),
    );
  else unavailable.push({ estimator: 'info-gain', reason: 'guess only' });
  return { scores, unavailable };
}

/**
 * SWEET-RL's advantage (β = 1) of given turns at their states, [state][K]: each turn is scored by the
 * critic as turn t after the state's prefix (the prefix only as context), its adapter against its base
 * (lastTurnLogprobs, one call per model).
 */
export async function sweetAtStates(critic: ScoreApi, states: readonly StatePick[], turns: readonly (readonly Turn[])[]): Promise<Float64Array[]> {
  const episodes = states.flatMap((s, k) =>
    turns[k].map((turn) => ({ task: s.task, turns: [...s.prefix, turn], tokens: [...s.prefix.map((p) => p.tokens), turn.tokens] })),
  );
  const scored = await lastTurnLogprobs(critic, episodes);
  let at = 0;
  return states.map((_, k) =>
    Float64Array.from(turns[k], () => {
      const x = scored[at++];
      return sweetTurnAdvantage(x.criticLogprobs, x.refLogprobs, 1);
    }),
  );
}

/** SWEET-RL's advantage (β = 1) of turn t of one episode's critic inputs. */
function turnSweet(x: EpisodeCreditInput, t: number): number {
  const o = x.tokenOffsets as Int32Array;
  return sweetTurnAdvantage((x.criticLogprobs as Float32Array).subarray(o[t], o[t + 1]), (x.refLogprobs as Float32Array).subarray(o[t], o[t + 1]), 1);
}
