// Centred SWEET-RL credit of whole episodes (issue #46; the math is credit/centredSweet.ts). SWEET-RL's
// Bradley–Terry critic (Zhou et al., arXiv 2503.15478 §4) fixes its log-ratio A = β·log(π_critic/π_ref)
// only up to a function of the state (Rafailov et al. 2024, "From r to Q*"), so wherever the lab shows
// or exports SWEET-RL credit it is centred at each agent turn's state: Ā_t = A_t − (1/K) Σ_k A(s_t, a'_k),
// a'_k sampled by the policy at s_t. This is the one place that samples and scores those K candidates:
//  - candidateAdvantages: K turns per state sampled by the agent (withinState.ts sampleCandidateTurns,
//    each slot replays the state's prefix and stops after turn t), each scored as turn t by the critic,
//    its adapter against its base (sweetAtStates), β = 1;
//  - centredTurns: a turn's A minus β times the mean of its state's candidates';
//  - LiveSweetCentring: the same for an episode whose turns land one at a time (Play), each state
//    sampled once, in order, queued; the Credit view and `turnwise credit` run it over stored episodes.
// A critic with no adapter is its own reference: A is 0 for every turn by construction, and the
// callers sample nothing (CENTRE_NO_ADAPTER says why).
import { centredAdvantage } from '../credit/centredSweet.ts';
import type { PhrasingSetting } from '../envs/phrasings.ts';
import { createEnv } from '../envs/registry.ts';
import type { Task } from '../envs/types.ts';
import type { Turn } from '../envs/turn.ts';
import type { BatchAgent } from './agents.ts';
import type { ScoreApi } from './criticInputs.ts';
import { RolloutError } from './rollout.ts';
import type { StoredEpisode } from './stored.ts';
import { sampleCandidateTurns, sweetAtStates, type StatePick } from './withinState.ts';

/** Why nothing is sampled for a critic without a SWEET-RL adapter. */
export const CENTRE_NO_ADAPTER = 'the critic has no SWEET-RL adapter, so its log-ratio against its own base is 0 on every turn and nothing is sampled';

/** How the K candidates of each state are sampled. */
export interface CentreOptions {
  /** K, candidates per state (≥ 1; 0, raw credit, is the callers' to handle). */
  k: number;
  /** Seeds the candidates (agent and environment), per state and candidate (withinState.ts). */
  seed: number;
  /** How the simulated collaborator words its answers (the episodes', if they had any). */
  phrasings?: PhrasingSetting;
  /** A line now and then while the candidates are sampled. */
  onProgress?: (line: string) => void;
}

/** What centring runs: the policy that samples the candidates and the critic (with the adapter that scored the taken turns). */
export interface CentringModels {
  agent: BatchAgent;
  critic: ScoreApi;
}

/** The states of agent turns from … to−1 of an episode: its task and the turns before each. */
export function turnStates(task: Task, turns: readonly Turn[], from = 0, to = turns.length): StatePick[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => ({ task, t: from + i, prefix: turns.slice(0, from + i) }));
}

/** The states of every agent turn of a stored episode (its task rebuilt from its spec; the replay checks that its turns reproduce). */
export function storedStates(e: StoredEpisode): StatePick[] {
  if (typeof e.played === 'string') throw new RolloutError('bad-config', `episode ${e.id} cannot be replayed to sample candidates at its states: ${e.played}`);
  const task = createEnv(e.played.spec.family).reset(e.played.spec);
  return turnStates(task, e.played.turns);
}

/**
 * Centred credit of whole episodes, [episode][T]: `sweet[i]` (the sweet estimator's per-turn credit with
 * `beta`) centred at each of `states[i]` (one per turn) by K candidates (one batched rollout over all states).
 */
export async function centreEpisodes(
  states: readonly (readonly StatePick[])[],
  sweet: readonly ArrayLike<number>[],
  beta: number,
  models: CentringModels,
  opts: CentreOptions,
): Promise<Float32Array[]> {
  const candidates = await candidateAdvantages(states.flat(), models, opts);
  let at = 0;
  return sweet.map((perTurn) => centredTurns(perTurn, candidates.slice(at, (at += perTurn.length)), beta));
}

/** centreEpisodes over stored episodes, their states replayed from their specs (storedStates). */
export function centreStored(
  episodes: readonly StoredEpisode[],
  sweet: readonly ArrayLike<number>[],
  beta: number,
  models: CentringModels,
  opts: CentreOptions,
): Promise<Float32Array[]> {
  return centreEpisodes(episodes.map(storedStates), sweet, beta, models, opts);
}

/** SWEET-RL's advantage (β = 1) of K candidate turns the agent samples at each state: [state][K]. */
export async function candidateAdvantages(states: readonly StatePick[], models: CentringModels, opts: CentreOptions): Promise<Float64Array[]> {
  if (states.length === 0) return [];
  const { k, ...rest } = opts;
  const turns = await sampleCandidateTurns(states, models.agent, { candidates: k, ...rest });
  return sweetAtStates(models.critic, states, turns);
}

/**
 * Centred credit of one episode, [T]: perTurn[t] (β·A, the sweet estimator's) minus β times the mean of
 * candidates[t] (β = 1 advantages, candidateAdvantages).
 */
export function centredTurns(perTurn: ArrayLike<number>, candidates: readonly ArrayLike<number>[], beta: number): Float32Array {
  return Float32Array.from({ length: perTurn.length }, (_, t) =>
    centredAdvantage(
      perTurn[t],
      Array.from(candidates[t], (a) => beta * a),
    ),
  );
}

/**
 * The candidates of an episode whose turns land one at a time: each new state is sampled once, calls
 * are queued, and a new task, fewer turns or another K starts over (a call of an older episode drops
 * its result).
 */
export class LiveSweetCentring {
  private task: Task | null = null;
  private k = 0;
  /** [turn][K] candidate advantages of the turns sampled so far. */
  private readonly sampled: Float64Array[] = [];
  private chain: Promise<void> = Promise.resolve();
  private epoch = 0;

  /** Turns whose state has its K candidates. */
  get done(): number {
    return this.sampled.length;
  }

  /** True when the sampled candidates belong to this task and K. */
  sameAs(task: Task, k: number): boolean {
    return task === this.task && k === this.k;
  }

  reset(): void {
    this.task = null;
    this.sampled.length = 0;
    this.epoch++;
  }

  /** Samples the states of the turns that landed since the last call, one state per batch (progress: after each). */
  extend(models: CentringModels, task: Task, turns: readonly Turn[], opts: CentreOptions & { onState?: (done: number, total: number) => void }): Promise<void> {
    if (task !== this.task || turns.length < this.sampled.length || opts.k !== this.k) {
      this.reset();
      this.task = task;
      this.k = opts.k;
    }
    const epoch = this.epoch;
    const next = this.chain.then(async () => {
      for (let t = this.sampled.length; t < turns.length && epoch === this.epoch; t++) {
        const [a] = await candidateAdvantages(turnStates(task, turns, t, t + 1), models, opts);
        if (epoch !== this.epoch) return;
        this.sampled.push(a);
        opts.onState?.(t + 1, turns.length);
      }
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Centred credit of the first perTurn.length turns of `task` over K candidates, or null until their states are all sampled. */
  centred(perTurn: ArrayLike<number>, beta: number, task: object | null, k: number): Float32Array | null {
    if (task !== this.task || k !== this.k || perTurn.length > this.sampled.length) return null;
    return centredTurns(perTurn, this.sampled, beta);
  }
}
