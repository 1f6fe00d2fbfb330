// RAGEN's FrozenLake (arXiv 2504.20073; gymnasium's FrozenLake-v1 dynamics): a 4×4 lake, each move
// goes the intended way with probability 1 − slip and to each perpendicular side with slip/2
// (slip = 2/3 as in RAGEN), +1 on reaching the goal, the episode ends in a hole. Maps are
// generated with random start, goal and holes and kept only when the optimal T-step policy (exact
// finite-horizon value iteration) reaches the goal with probability ≥ minExpertSuccess and a
// uniformly random policy with probability ≤ maxRandomSuccess, so that skill, not luck, decides.
// With slip 2/3 a planner needs long horizons: over random 4×4 maps no map reaches 95% optimal
// success within 25 moves, so T defaults to 50 (about 2% of drawn maps pass both filters).
import type { FamilyAgents } from '../agent.ts';
import { lastUser } from '../agent.ts';
import { BaseEnv, stepInfo, type Action } from '../base.ts';
import { optionsJson, resolveOptions, type OptionBound } from '../options.ts';
import { drawForSplit } from '../split.ts';
import type { JsonObject, Task, TaskSpec } from '../types.ts';
import type { Rng } from '../../util/rng.ts';
import { DELTAS, DIRECTIONS, parseGrid, readChoice, renderGrid } from './common.ts';

export interface FrozenLakeOptions {
  [k: string]: number;
  /** Turn limit T (one move per turn). */
  maxTurns: number;
  /** Probability that a move goes to one of the two perpendicular sides instead. */
  slip: number;
  /** Fewest and most holes on a generated map. */
  minHoles: number;
  maxHoles: number;
  /** Keep a map only when the optimal policy succeeds within T with at least this probability. */
  minExpertSuccess: number;
  /** … and the uniformly random policy with at most this probability. */
  maxRandomSuccess: number;
  /**
   * 1: every observation also says what lies one step each way from P and where the goal is (issue
   * #47's "the board restated compactly each turn"), so that reading a move's three outcomes is local;
   * 0: RAGEN's map only (the default, the prompt the shipped policy was forged on).
   */
  describe: number;
}
export const FROZENLAKE_DEFAULTS: FrozenLakeOptions = {
  maxTurns: 50,
  slip: 2 / 3,
  minHoles: 3,
  maxHoles: 5,
  minExpertSuccess: 0.95,
  maxRandomSuccess: 0.1,
  describe: 0,
};
const BOUNDS: { [K in keyof FrozenLakeOptions]: OptionBound } = {
  maxTurns: { min: 1, max: 100, integer: true },
  slip: { min: 0, max: 1, integer: false },
  minHoles: { min: 0, max: 10, integer: true },
  maxHoles: { min: 0, max: 10, integer: true },
  minExpertSuccess: { min: 0, max: 1, integer: false },
  maxRandomSuccess: { min: 0, max: 1, integer: false },
  describe: { min: 0, max: 1, integer: true },
};

/** The options as a task's spec names them: describe only when set, so tasks without it read as before the option existed. */
export function frozenLakeOptionsJson(o: FrozenLakeOptions): JsonObject {
  return optionsJson(o, { keys: ['describe'], defaults: FROZENLAKE_DEFAULTS });
}

const N = 4;
/** A map: N×N cells of 'F' (frozen), 'H' (hole), 'G' (goal); the start is separate. */
export interface LakeMap {
  cells: string;
  start: number;
}

function move(s: number, a: number): number {
  const r = Math.floor(s / N) + DELTAS[a][0];
  const c = (s % N) + DELTAS[a][1];
  return r < 0 || r >= N || c < 0 || c >= N ? s : r * N + c;
}

/** Outcomes of action a from s: [next state, probability]. */
export function transitions(s: number, a: number, slip: number): [number, number][] {
  return [
    [move(s, a), 1 - slip],
    [move(s, (a + 1) % 4), slip / 2],
    [move(s, (a + 3) % 4), slip / 2],
  ];
}

// next state for (state, action, outcome k): k = 0 intended, 1 and 2 the perpendicular slips.
const NEXT: Int8Array = (() => {
  const t = new Int8Array(N * N * 4 * 3);
  for (let s = 0; s < N * N; s++) for (let a = 0; a < 4; a++) [a, (a + 1) % 4, (a + 3) % 4].forEach((d, k) => (t[(s * 4 + a) * 3 + k] = move(s, d)));
  return t;
})();

/** Q(s, a) = Σ_outcomes p · v(next): the win probability of move a from s when v values the states after it. */
export function moveValue(v: Float64Array, s: number, a: number, slip: number): number {
  const i = (s * 4 + a) * 3;
  return (1 - slip) * v[NEXT[i]] + (slip / 2) * (v[NEXT[i + 1]] + v[NEXT[i + 2]]);
}

/**
 * Finite-horizon value iteration: value[h][s] = best probability of reaching G within h moves;
 * policy[h][s] = the maximising action with h moves left (ties: lowest index).
 */
export function solveLake(cells: string, horizon: number, slip: number): { value: Float64Array[]; policy: Int8Array[] } {
  const value: Float64Array[] = [Float64Array.from({ length: N * N }, (_, s) => (cells[s] === 'G' ? 1 : 0))];
  const policy: Int8Array[] = [new Int8Array(N * N)];
  for (let h = 1; h <= horizon; h++) {
    const prev = value[h - 1];
    const v = new Float64Array(N * N);
    const p = new Int8Array(N * N);
    for (let s = 0; s < N * N; s++) {
      if (cells[s] === 'G') v[s] = 1;
      if (cells[s] !== 'F') continue;
      let best = -1;
      for (let a = 0; a < 4; a++) {
        const x = moveValue(prev, s, a, slip);
        if (x > best + 1e-12) {
          best = x;
          p[s] = a;
        }
      }
      v[s] = best;
    }
    value.push(v);
    policy.push(p);
  }
  return { value, policy };
}

/** Probability that the uniformly random policy reaches G within `horizon` moves from `start`. */
export function randomSuccess(cells: string, start: number, horizon: number, slip: number): number {
  let v = Float64Array.from({ length: N * N }, (_, s) => (cells[s] === 'G' ? 1 : 0));
  for (let h = 1; h <= horizon; h++) {
    const next = new Float64Array(N * N);
    for (let s = 0; s < N * N; s++) {
      if (cells[s] !== 'F') next[s] = cells[s] === 'G' ? 1 : 0;
      else next[s] = (moveValue(v, s, 0, slip) + moveValue(v, s, 1, slip) + moveValue(v, s, 2, slip) + moveValue(v, s, 3, slip)) / 4;
    }
    v = next;
  }
  return v[start];
}

function drawMap(rng: Rng, o: FrozenLakeOptions): LakeMap | null {
  const order = rng.shuffle(Array.from({ length: N * N }, (_, i) => i));
  const start = order[0];
  const goal = order[1];
  const dist = Math.abs(Math.floor(start / N) - Math.floor(goal / N)) + Math.abs((start % N) - (goal % N));
  if (dist < 3) return null;
  const holes = new Set(order.slice(2, 2 + rng.range(o.minHoles, Math.max(o.minHoles, o.maxHoles))));
  const cells = Array.from({ length: N * N }, (_, s) => (s === goal ? 'G' : holes.has(s) ? 'H' : 'F')).join('');
  if (solveLake(cells, o.maxTurns, o.slip).value[o.maxTurns][start] < o.minExpertSuccess) return null;
  if (randomSuccess(cells, start, o.maxTurns, o.slip) > o.maxRandomSuccess) return null;
  return { cells, start };
}

function render(cells: string, player: number): string {
  const grid: string[][] = [];
  for (let r = 0; r < N; r++) {
    const row: string[] = [];
    for (let c = 0; c < N; c++) {
      const s = r * N + c;
      const base = cells[s] === 'H' ? 'O' : cells[s] === 'G' ? 'G' : '_';
      row.push(s !== player ? base : cells[s] === 'H' ? 'X' : cells[s] === 'G' ? '√' : 'P');
    }
    grid.push(row);
  }
  return renderGrid(grid);
}

const LOOKS: Record<string, string> = { F: 'ice', H: 'hole', G: 'goal' };

/** The board restated around P: e.g. "Around P: Left wall, Down hole, Right ice, Up ice. Goal: 2 down, 1 left." */
export function surroundings(cells: string, player: number): string {
  const around = DIRECTIONS.map((d, a) => {
    const next = move(player, a);
    return `${d} ${next === player ? 'wall' : LOOKS[cells[next]]}`;
  });
  const goal = cells.indexOf('G');
  const dr = Math.floor(goal / N) - Math.floor(player / N);
  const dc = (goal % N) - (player % N);
  const way = [dr > 0 ? `${dr} down` : dr < 0 ? `${-dr} up` : '', dc > 0 ? `${dc} right` : dc < 0 ? `${-dc} left` : ''].filter(Boolean);
  return `Around P: ${around.join(', ')}. Goal: ${way.length ? way.join(', ') : 'here'}.`;
}

export class FrozenLakeEnv extends BaseEnv {
  readonly family = 'frozenlake' as const;
  protected readonly maxMessageChars = 2000;
  private opts: FrozenLakeOptions = FROZENLAKE_DEFAULTS;
  private map: LakeMap = { cells: '', start: 0 };
  private player = 0;

  protected start(spec: TaskSpec): Task {
    this.opts = resolveOptions('frozenlake', FROZENLAKE_DEFAULTS, BOUNDS, spec.options);
    const { value, key } = drawForSplit(
      this.taskRng('task'),
      spec.split,
      (r) => drawMap(r, this.opts),
      (m) => `${m.cells}@${m.start}`,
    );
    this.map = value;
    this.player = value.start;
    return {
      spec: { family: 'frozenlake', split: spec.split, seed: spec.seed, options: frozenLakeOptionsJson(this.opts) },
      prompt:
        `You are solving the FrozenLake puzzle. Avoid the holes and go to the goal. ${slipSentence(this.opts.slip)} ` +
        'Symbols: P player, _ frozen, O hole, G goal, X player in hole, √ player on goal. Actions: Left, Down, Right, Up. Answer like <answer>Left</answer>.\n' +
        this.state(),
      hidden: { cells: value.cells, start: value.start, slip: this.opts.slip },
      maxTurns: this.opts.maxTurns,
      key,
    };
  }

  private state(): string {
    const around = this.opts.describe ? `\n${surroundings(this.map.cells, this.player)}` : '';
    return `Map:\n${render(this.map.cells, this.player)}${around}\nTurns left: ${this.opts.maxTurns - this.turn}.`;
  }

  protected act(message: string): Action {
    const dir = readChoice(message, DIRECTIONS);
    if (dir === null) {
      return {
        kind: 'done',
        result: { observation: `Invalid action.\n${this.state()}`, reward: this.formatPenalty, done: false, info: stepInfo('invalid-format', {}, true) },
      };
    }
    const a = DIRECTIONS.indexOf(dir);
    let u = this.rng.next();
    const from = this.player;
    let next = from;
    for (const [t, p] of transitions(this.player, a, this.opts.slip)) {
      next = t;
      if ((u -= p) < 0) break;
    }
    this.player = next;
    const cell = this.map.cells[next];
    const fields = { action: dir, slipped: next !== move(from, a), position: next };
    if (cell === 'G')
      return {
        kind: 'done',
        result: { observation: `You reached the goal!\n${this.state()}`, reward: 1, done: true, info: stepInfo('solved', fields, false, true) },
      };
    if (cell === 'H')
      return { kind: 'done', result: { observation: `You fell into a hole.\n${this.state()}`, reward: 0, done: true, info: stepInfo('failed', fields) } };
    return { kind: 'done', result: { observation: this.state(), reward: 0, done: false, info: stepInfo('move', fields) } };
  }
}

const DEFAULT_SLIP_SENTENCE = 'You may move in an unintended direction because the ice is slippery.';

/**
 * How the prompt states the slip. RAGEN's slip (the default) keeps RAGEN's sentence, so the default
 * prompt is the one the shipped policy was forged on; any other slip is stated as a number, so that a
 * player (the scripted expert included: readSlip) can plan for the ice it is on.
 */
export function slipSentence(slip: number): string {
  if (slip === FROZENLAKE_DEFAULTS.slip) return DEFAULT_SLIP_SENTENCE;
  if (slip === 0) return 'The ice is not slippery: every move goes the way you choose.';
  return `The ice is slippery: a move goes the way you choose with probability ${+(100 * (1 - slip)).toFixed(1)}%, otherwise to one side.`;
}

/** The slip a prompt states (slipSentence): RAGEN's 2/3 unless it says otherwise. */
export function readSlip(prompt: string): number {
  if (prompt.includes('The ice is not slippery')) return 0;
  const p = /a move goes the way you choose with probability (\d+(?:\.\d+)?)%/.exec(prompt);
  return p ? 1 - Number(p[1]) / 100 : FROZENLAKE_DEFAULTS.slip;
}

/** Reads the lake and turns left from the newest observation. */
function readLake(text: string): { cells: string; player: number; turnsLeft: number } | null {
  const grid = parseGrid(text, 'Map:', N);
  if (!grid) return null;
  let player = -1;
  const cells = grid
    .flat()
    .map((sym, s) => {
      if (sym === 'P' || sym === 'X' || sym === '√') player = s;
      return sym === 'O' || sym === 'X' ? 'H' : sym === 'G' || sym === '√' ? 'G' : 'F';
    })
    .join('');
  const turnsLeft = Number(/Turns left: (\d+)/.exec(text.slice(text.lastIndexOf('Map:')))?.[1] ?? 1);
  return player < 0 ? null : { cells, player, turnsLeft };
}

const say = (a: number) => `<answer>${DIRECTIONS[a]}</answer>`;

export const frozenLakeAgents: FamilyAgents = {
  expert(d) {
    const lake = readLake(lastUser(d));
    if (!lake) return say(0);
    const h = Math.max(1, lake.turnsLeft);
    // plans for the ice the prompt states: planned for RAGEN's slip on other ice, it steps sideways on purpose
    return say(solveLake(lake.cells, h, readSlip(d[0]?.content ?? '')).policy[h][lake.player]);
  },
  mistake: (_d, rng) => say(rng.int(4)),
  random: (_d, rng) => say(rng.int(4)),
};
