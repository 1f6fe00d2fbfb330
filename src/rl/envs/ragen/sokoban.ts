// RAGEN's Sokoban (arXiv 2504.20073; gym-sokoban rewards): a 6×6 room with one box and one target;
// −0.1 per step, +1 when the box is pushed onto the target, −1 when pushed off, +10 when solved.
// Rooms are drawn (border walls, a few inner walls, random target, box and player) and kept only
// when a breadth-first search over (player, box) proves them solvable in minMoves…maxTurns moves;
// the scripted expert plays that search's optimal solution from the observed map.
import type { FamilyAgents } from '../agent.ts';
import { lastUser } from '../agent.ts';
import { BaseEnv, stepInfo, type Action } from '../base.ts';
import { optionsJson, resolveOptions, type OptionBound } from '../options.ts';
import { drawForSplit } from '../split.ts';
import type { JsonObject, Message, Task, TaskSpec } from '../types.ts';
import type { Rng } from '../../util/rng.ts';
import { DELTAS, DIRECTIONS, parseGrid, readChoice, renderGrid } from './common.ts';

export interface SokobanOptions {
  [k: string]: number;
  /** Turn limit T (one move per turn). */
  maxTurns: number;
  /** Shortest optimal solution a drawn room may have (harder rooms for larger values). */
  minMoves: number;
  /** Most inner walls drawn. */
  maxInnerWalls: number;
  /**
   * 1: every map is followed by where the box is from the player and the target from the box, in
   * moves (boxOffsets). Issue #47: the map is one token per cell, and a 4-layer model did not learn
   * to find the player, box and target in it (expert agreement at chance after 600 steps). Stated
   * offsets make a push a lookup, yet one 600-step stage with them did no better than without
   * (one-move rooms 24% against 19%; docs/experiments/2026-12-06-sokoban-offsets.md). 0 (default):
   * RAGEN's map alone, the prompt as before.
   */
  offsets: number;
  /**
   * 1: every map is also followed by what lies one step each way from P (frozenlake's `describe`,
   * which took a frozenlake-only forge from 29.5% to 53.5% greedy; issue #47's "the board restated
   * compactly each turn"). With the offsets it cost a sokoban-only forge 17.5 points sampled, 22.5
   * greedy (docs/experiments/2026-12-07-sokoban-budget.md). 0 (default): the map alone.
   */
  describe: number;
}
export const SOKOBAN_DEFAULTS: SokobanOptions = { maxTurns: 20, minMoves: 6, maxInnerWalls: 3, offsets: 0, describe: 0 };
const BOUNDS: { [K in keyof SokobanOptions]: OptionBound } = {
  maxTurns: { min: 1, max: 200, integer: true },
  minMoves: { min: 1, max: 100, integer: true },
  maxInnerWalls: { min: 0, max: 10, integer: true },
  offsets: { min: 0, max: 1, integer: true },
  describe: { min: 0, max: 1, integer: true },
};

/** The options as a task's spec names them: offsets and describe only when set, so tasks without them read as before the options existed. */
export function sokobanOptionsJson(o: SokobanOptions): JsonObject {
  return optionsJson(o, { keys: ['offsets', 'describe'], defaults: SOKOBAN_DEFAULTS });
}

const N = 6;
/** A room: walls as a 36-character string of '#'/'_', and the three positions. */
export interface Room {
  walls: string;
  target: number;
  box: number;
  player: number;
}

const step = (s: number, a: number): number => {
  const r = Math.floor(s / N) + DELTAS[a][0];
  const c = (s % N) + DELTAS[a][1];
  return r < 0 || r >= N || c < 0 || c >= N ? -1 : r * N + c;
};

/** One move: the new player and box positions (unchanged when blocked). */
export function applyMove(walls: string, player: number, box: number, a: number): { player: number; box: number } {
  const next = step(player, a);
  if (next < 0 || walls[next] === '#') return { player, box };
  if (next !== box) return { player: next, box };
  const beyond = step(box, a);
  if (beyond < 0 || walls[beyond] === '#') return { player, box };
  return { player: next, box: beyond };
}

/** Breadth-first search: the shortest action sequence that puts the box on the target, or null. */
export function solveSokoban(walls: string, target: number, player: number, box: number, limit = 200): number[] | null {
  if (box === target) return [];
  const key = (p: number, b: number) => p * N * N + b;
  const prev = new Map<number, [number, number]>([[key(player, box), [-1, -1]]]);
  let frontier = [key(player, box)];
  for (let depth = 0; depth < limit && frontier.length; depth++) {
    const next: number[] = [];
    for (const k of frontier) {
      const p = Math.floor(k / (N * N));
      const b = k % (N * N);
      for (let a = 0; a < 4; a++) {
        const m = applyMove(walls, p, b, a);
        const nk = key(m.player, m.box);
        if (prev.has(nk)) continue;
        prev.set(nk, [k, a]);
        if (m.box === target) {
          const path: number[] = [];
          for (let at = nk; prev.get(at)![0] >= 0; at = prev.get(at)![0]) path.push(prev.get(at)![1]);
          return path.reverse();
        }
        next.push(nk);
      }
    }
    frontier = next;
  }
  return null;
}

/** gym-sokoban's reward for one step: −0.1, +1 box onto the target, −1 box off it, +10 solved (one box). */
export function sokobanReward(boxBefore: number, boxAfter: number, target: number): number {
  let reward = -0.1;
  if (boxAfter !== boxBefore && boxAfter === target) reward += 1;
  if (boxAfter !== boxBefore && boxBefore === target) reward -= 1;
  if (boxAfter === target) reward += 10;
  return reward;
}

function drawRoom(rng: Rng, o: SokobanOptions): Room | null {
  const inner: number[] = [];
  for (let r = 1; r < N - 1; r++) for (let c = 1; c < N - 1; c++) inner.push(r * N + c);
  const order = rng.shuffle(inner);
  const nWalls = rng.range(0, o.maxInnerWalls);
  const wallSet = new Set(order.slice(0, nWalls));
  const walls = Array.from({ length: N * N }, (_, s) => (!inner.includes(s) || wallSet.has(s) ? '#' : '_')).join('');
  const [target, box, player] = order.slice(nWalls, nWalls + 3);
  if (player === undefined) return null;
  const path = solveSokoban(walls, target, player, box, o.maxTurns);
  if (!path || path.length < o.minMoves || path.length > o.maxTurns) return null;
  return { walls, target, box, player };
}

/** How far `to` lies from `from` in moves, e.g. "2 Down and 1 Left" (rows first; "" when they coincide). */
export function offsetWords(from: number, to: number): string {
  const dr = Math.floor(to / N) - Math.floor(from / N);
  const dc = (to % N) - (from % N);
  const parts = [dr ? `${Math.abs(dr)} ${dr > 0 ? 'Down' : 'Up'}` : '', dc ? `${Math.abs(dc)} ${dc > 0 ? 'Right' : 'Left'}` : ''];
  return parts.filter(Boolean).join(' and ');
}

/** The offsets sentence (option `offsets`): the box from the player, the target from the box. */
export function boxOffsets(room: Room): string {
  if (room.box === room.target) return `The box is ${offsetWords(room.player, room.box)} of you, on the target.`;
  return `The box is ${offsetWords(room.player, room.box)} of you; the target is ${offsetWords(room.box, room.target)} of the box.`;
}

const LOOKS: Record<string, string> = { '#': 'wall', _: 'empty', O: 'target', X: 'box', '√': 'box on target' };

/** The room around P (option `describe`): e.g. "Around P: Left wall, Down box, Right empty, Up target." */
export function sokobanSurroundings(room: Room): string {
  const around = DIRECTIONS.map((d, a) => {
    const next = step(room.player, a);
    return `${d} ${LOOKS[next < 0 ? '#' : symbol(room, next)]}`;
  });
  return `Around P: ${around.join(', ')}.`;
}

/** RAGEN's symbol for cell s: # wall, _ empty, O target, X box, √ box on target, P player, S player on target. */
function symbol(room: Room, s: number): string {
  if (room.walls[s] === '#') return '#';
  if (s === room.box) return s === room.target ? '√' : 'X';
  if (s === room.player) return s === room.target ? 'S' : 'P';
  return s === room.target ? 'O' : '_';
}

function render(room: Room): string {
  return renderGrid(Array.from({ length: N }, (_, r) => Array.from({ length: N }, (_, c) => symbol(room, r * N + c))));
}

export class SokobanEnv extends BaseEnv {
  readonly family = 'sokoban' as const;
  protected readonly maxMessageChars = 2000;
  private opts: SokobanOptions = SOKOBAN_DEFAULTS;
  private room: Room = { walls: '', target: 0, box: 0, player: 0 };

  protected start(spec: TaskSpec): Task {
    this.opts = resolveOptions('sokoban', SOKOBAN_DEFAULTS, BOUNDS, spec.options);
    const { value, key } = drawForSplit(
      this.taskRng('task'),
      spec.split,
      (r) => drawRoom(r, this.opts),
      (m) => `${m.walls}|${m.target}|${m.box}|${m.player}`,
    );
    this.room = { ...value };
    return {
      spec: { family: 'sokoban', split: spec.split, seed: spec.seed, options: sokobanOptionsJson(this.opts) },
      prompt:
        'You are solving the Sokoban puzzle. You are the player and you need to push the box onto the target. ' +
        'When you are next to the box you can push it by moving toward it. You cannot push it into a wall and you cannot pull it. ' +
        'Symbols: # wall, _ empty, O target, X box, √ box on target, P player, S player on target. Actions: Left, Down, Right, Up. Answer like <answer>Left</answer>.\n' +
        this.state(),
      hidden: {
        walls: value.walls,
        target: value.target,
        box: value.box,
        player: value.player,
        optimalMoves: solveSokoban(value.walls, value.target, value.player, value.box)!.length,
      },
      maxTurns: this.opts.maxTurns,
      key,
    };
  }

  private state(): string {
    const offsets = this.opts.offsets ? `\n${boxOffsets(this.room)}` : '';
    const around = this.opts.describe ? `\n${sokobanSurroundings(this.room)}` : '';
    return `Map:\n${render(this.room)}${offsets}${around}\nTurns left: ${this.opts.maxTurns - this.turn}.`;
  }

  protected act(message: string): Action {
    const dir = readChoice(message, DIRECTIONS);
    if (dir === null) {
      return {
        kind: 'done',
        result: { observation: `Invalid action.\n${this.state()}`, reward: this.formatPenalty, done: false, info: stepInfo('invalid-format', {}, true) },
      };
    }
    const before = this.room.box;
    const m = applyMove(this.room.walls, this.room.player, this.room.box, DIRECTIONS.indexOf(dir));
    const moved = m.player !== this.room.player;
    this.room.player = m.player;
    this.room.box = m.box;
    const t = this.room.target;
    const reward = sokobanReward(before, m.box, t);
    const solved = m.box === t;
    const pushed = m.box !== before;
    // a push can leave the box where no sequence of moves gets it to the target (a corner, along a
    // wall): said in the step's info, since the board alone does not show it (issue 49)
    const stuck = pushed && !solved && solveSokoban(this.room.walls, t, m.player, m.box) === null;
    const fields = { action: dir, moved, pushed, ...(stuck ? { stuck } : {}) };
    return {
      kind: 'done',
      result: {
        observation: `${solved ? 'The box is on the target. Solved!\n' : ''}${this.state()}`,
        reward,
        done: solved,
        info: stepInfo(solved ? 'solved' : 'move', fields, false, solved),
      },
    };
  }
}

/** The room and the player from the newest observation. */
export function readRoom(text: string): Room | null {
  const grid = parseGrid(text, 'Map:', N);
  if (!grid) return null;
  const room: Room = { walls: '', target: -1, box: -1, player: -1 };
  room.walls = grid
    .flat()
    .map((sym, s) => {
      if (sym === 'O' || sym === '√' || sym === 'S') room.target = s;
      if (sym === 'X' || sym === '√') room.box = s;
      if (sym === 'P' || sym === 'S') room.player = s;
      return sym === '#' ? '#' : '_';
    })
    .join('');
  return room.box < 0 || room.player < 0 || room.target < 0 ? null : room;
}

const say = (a: number) => `<answer>${DIRECTIONS[a]}</answer>`;

/** The room of the dialogue's newest observation (null: unreadable) and the solver's path from it ([] when solved, null: none). */
function boardPath(d: readonly Message[]): { room: Room | null; path: number[] | null } {
  const room = readRoom(lastUser(d));
  return { room, path: room ? solveSokoban(room.walls, room.target, room.player, room.box) : null };
}

export const sokobanAgents: FamilyAgents = {
  // on a board no moves can solve (lost, below) the expert says Left: a move must be made
  expert(d) {
    const { path } = boardPath(d);
    return say(path && path.length ? path[0] : 0);
  },
  lost(d) {
    const { room, path } = boardPath(d);
    return room !== null && path === null;
  },
  mistake: (_d, rng) => say(rng.int(4)),
  random: (_d, rng) => say(rng.int(4)),
};
