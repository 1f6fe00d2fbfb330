// RAGEN's games: hand-checked dynamics and rewards for bandit, frozenlake and sokoban, the format
// penalty, and solvability of generated maps.
import { describe, expect, it } from 'vitest';
import { BanditEnv } from '../../../src/rl/envs/ragen/bandit.ts';
import { answerText, readChoice, DIRECTIONS } from '../../../src/rl/envs/ragen/common.ts';
import { FrozenLakeEnv, readSlip, slipSentence, solveLake, randomSuccess, surroundings, transitions } from '../../../src/rl/envs/ragen/frozenlake.ts';
import { playEpisode } from '../../../src/rl/rollout/rollout.ts';
import { createAgent } from '../../../src/rl/envs/registry.ts';
import { SokobanEnv, applyMove, boxOffsets, offsetWords, sokobanReward, sokobanSurroundings, solveSokoban } from '../../../src/rl/envs/ragen/sokoban.ts';
import type { Task } from '../../../src/rl/envs/types.ts';

describe('action parsing', () => {
  it('reads the last <answer> tag or the bare text', () => {
    expect(answerText('<think>x</think><answer>Up</answer>')).toBe('Up');
    expect(readChoice('<answer> left </answer>', DIRECTIONS)).toBe('Left');
    expect(readChoice('Right', DIRECTIONS)).toBe('Right');
    expect(readChoice('<answer>Left or Right</answer>', DIRECTIONS)).toBeNull();
    expect(readChoice('upward', DIRECTIONS)).toBeNull();
  });
});

describe('bandit', () => {
  it('pays 0.15 on the safe arm, 0 or 1 on the risky one, and −0.1 for nonsense', () => {
    const env = new BanditEnv();
    const task = env.reset({ family: 'bandit', split: 'test', seed: 1 });
    const safe = env.step(`<answer>${task.hidden.safe}</answer>`);
    expect(safe).toMatchObject({ reward: 0.15, done: true, info: { risky: false, expectedReward: 0.15, success: false } });
    let total = 0;
    for (let seed = 0; seed < 400; seed++) {
      const t = env.reset({ family: 'bandit', split: 'test', seed });
      const r = env.step(`<answer>${t.hidden.risky}</answer>`);
      expect([0, 1]).toContain(r.reward);
      total += r.reward;
    }
    expect(total / 400).toBeGreaterThan(0.18);
    expect(total / 400).toBeLessThan(0.32);
    env.reset({ family: 'bandit', split: 'test', seed: 1 });
    expect(env.step('<answer>both</answer>')).toMatchObject({ reward: -0.1, done: true, info: { invalidFormat: true } });
  });
});

describe('frozenlake', () => {
  it('slips to each side with probability 1/3', () => {
    // From the top-left corner (0), Down (1): intended 4, slips Right→1 and Left→0 (wall).
    const t = transitions(0, 1, 2 / 3);
    expect(t.map(([s]) => s)).toEqual([4, 1, 0]);
    for (const [, p] of t) expect(p).toBeCloseTo(1 / 3, 15);
  });

  it('value iteration matches a hand computation', () => {
    // Goal right of the start (0 → 1), no holes; with one move left only "Right" (1/3) or a slip reaches it.
    const cells = 'FG' + 'F'.repeat(14);
    const { value } = solveLake(cells, 1, 2 / 3);
    // Best one-step chance from 0: Up slips Right with 1/3 (and Left/stays otherwise) = 1/3; Right = 1/3 too.
    expect(value[1][0]).toBeCloseTo(1 / 3, 12);
    // Random one step from 0: only outcomes landing on 1 count: Right (1/3), Up→slip right (1/3), Down→slip right (1/3): (1/3·3)/4 = 1/4.
    expect(randomSuccess(cells, 0, 1, 2 / 3)).toBeCloseTo(0.25, 12);
  });

  it('generated maps are safe for the planner and hard for chance; observations restate the map', () => {
    const env = new FrozenLakeEnv();
    for (let seed = 0; seed < 10; seed++) {
      const task = env.reset({ family: 'frozenlake', split: 'train', seed });
      const cells = task.hidden.cells as string;
      expect(solveLake(cells, 50, 2 / 3).value[50][task.hidden.start as number]).toBeGreaterThanOrEqual(0.95);
      expect(randomSuccess(cells, task.hidden.start as number, 50, 2 / 3)).toBeLessThanOrEqual(0.1);
      expect(task.prompt).toMatch(/Map:\n([_OGP] ){3}[_OGP]\n/);
    }
    const r = env.step('fly');
    expect(r).toMatchObject({ reward: -0.1, done: false, info: { invalidFormat: true, reason: 'invalid-format' } });
    expect(r.observation).toContain('Turns left: 49.');
  });

  it("states a slip other than RAGEN's in the prompt, and the expert plans for the ice it is on", async () => {
    // the default prompt keeps RAGEN's sentence (the shipped policy was forged on it)
    const env = new FrozenLakeEnv();
    expect(env.reset({ family: 'frozenlake', split: 'test', seed: 1 }).prompt).toContain(
      'You may move in an unintended direction because the ice is slippery. Symbols',
    );
    for (const slip of [0, 0.2, 0.15, 2 / 3]) expect(readSlip(slipSentence(slip))).toBeCloseTo(slip, 12);
    // planned for slip 2/3 on ice that does not slip, it stepped sideways on purpose and won 2 of 100 such games
    for (const options of [
      { slip: 0, maxTurns: 8 },
      { slip: 0.2, maxTurns: 10 },
    ]) {
      let won = 0;
      for (let seed = 0; seed < 40; seed++) {
        const ep = await playEpisode(createAgent('expert', 'frozenlake', { seed }), { family: 'frozenlake', split: 'test', seed, options });
        won += ep.success ? 1 : 0;
      }
      expect(won, JSON.stringify(options)).toBeGreaterThanOrEqual(options.slip === 0 ? 40 : 32);
    }
  });

  it('describe 1 restates the board around P under every map and changes nothing else; 0 leaves the task as before the option', async () => {
    expect(surroundings('FFFFFFHHFFFFFGHF', 2)).toBe('Around P: Left ice, Down hole, Right ice, Up wall. Goal: 3 down, 1 left.');
    expect(surroundings('FFFFFFHHFFFFFGHF', 13)).toBe('Around P: Left ice, Down wall, Right hole, Up ice. Goal: here.');
    const plain = new FrozenLakeEnv().reset({ family: 'frozenlake', split: 'test', seed: 5 });
    const env = new FrozenLakeEnv();
    const told = env.reset({ family: 'frozenlake', split: 'test', seed: 5, options: { describe: 1 } });
    expect(plain.spec.options).toEqual({ maxTurns: 50, slip: 2 / 3, minHoles: 3, maxHoles: 5, minExpertSuccess: 0.95, maxRandomSuccess: 0.1 });
    expect(told.spec.options).toEqual({ ...plain.spec.options, describe: 1 });
    expect(told.hidden).toEqual(plain.hidden);
    const around = surroundings(told.hidden.cells as string, told.hidden.start as number);
    expect(told.prompt).toBe(plain.prompt.replace('\nTurns left', `\n${around}\nTurns left`));
    expect(env.step('<answer>Up</answer>').observation).toMatch(/\nAround P: Left (ice|hole|wall), Down .*\. Goal: .*\.\nTurns left: 49\.$/);
    // the expert reads the map under the sentence: the same moves and outcomes as without it
    for (let seed = 0; seed < 5; seed++) {
      const moves = async (options: { describe: number }) => {
        const ep = await playEpisode(createAgent('expert', 'frozenlake', { seed }), { family: 'frozenlake', split: 'test', seed, options });
        return { success: ep.success, moves: ep.turns.map((t) => t.action) };
      };
      expect(await moves({ describe: 1 })).toEqual(await moves({ describe: 0 }));
    }
  });
});

describe('sokoban', () => {
  // 6×6, border walls; target at 8 (row 1, col 2), box at 14 (row 2, col 2), player at 20 (row 3, col 2).
  const walls = Array.from({ length: 36 }, (_, s) => (s < 6 || s >= 30 || s % 6 === 0 || s % 6 === 5 ? '#' : '_')).join('');

  it('pushes, blocks at walls and solves by BFS', () => {
    expect(applyMove(walls, 20, 14, 3)).toEqual({ player: 14, box: 8 }); // Up pushes the box up
    expect(applyMove(walls, 14, 8, 3)).toEqual({ player: 14, box: 8 }); // box against the wall: blocked
    expect(solveSokoban(walls, 8, 20, 14)).toEqual([3]);
    // Box in the top-left corner (7) can never move again.
    expect(solveSokoban(walls, 8, 20, 7)).toBeNull();
  });

  it('rewards: −0.1 per step, +1 on target, +10 when solved, −1 off target', () => {
    expect(sokobanReward(14, 14, 8)).toBeCloseTo(-0.1, 15);
    expect(sokobanReward(14, 15, 8)).toBeCloseTo(-0.1, 15);
    expect(sokobanReward(14, 8, 8)).toBeCloseTo(10.9, 12);
    expect(sokobanReward(8, 9, 8)).toBeCloseTo(-1.1, 12);
    const env = new SokobanEnv();
    const task = env.reset({ family: 'sokoban', split: 'test', seed: 2 });
    const path = solveSokoban(task.hidden.walls as string, task.hidden.target as number, task.hidden.player as number, task.hidden.box as number)!;
    expect(path.length).toBe(task.hidden.optimalMoves);
    let total = 0;
    let last;
    for (const a of path) {
      last = env.step(`<answer>${DIRECTIONS[a]}</answer>`);
      total += last.reward;
    }
    expect(last!.done).toBe(true);
    expect(last!.info.success).toBe(true);
    expect(last!.reward).toBeCloseTo(-0.1 + 1 + 10, 12);
    expect(total).toBeCloseTo(-0.1 * path.length + 11, 9);
  });

  /** The room a task's hidden information names. */
  const roomOf = (hidden: Task['hidden']) => ({
    walls: hidden.walls as string,
    target: hidden.target as number,
    box: hidden.box as number,
    player: hidden.player as number,
  });

  it('offsets: the box from the player and the target from the box, in moves, rows first', () => {
    expect(offsetWords(20, 14)).toBe('1 Up');
    expect(offsetWords(7, 22)).toBe('2 Down and 3 Right');
    expect(offsetWords(22, 7)).toBe('2 Up and 3 Left');
    expect(boxOffsets({ walls, target: 8, box: 14, player: 20 })).toBe('The box is 1 Up of you; the target is 1 Up of the box.');
    expect(boxOffsets({ walls, target: 8, box: 8, player: 14 })).toBe('The box is 1 Up of you, on the target.');
  });

  it('offsets 1 adds the sentence under every map and changes nothing else; 0 leaves the task as before the option', async () => {
    const plain = new SokobanEnv().reset({ family: 'sokoban', split: 'test', seed: 5 });
    const env = new SokobanEnv();
    const told = env.reset({ family: 'sokoban', split: 'test', seed: 5, options: { offsets: 1 } });
    expect(plain.spec.options).toEqual({ maxTurns: 20, minMoves: 6, maxInnerWalls: 3 });
    expect(told.spec.options).toEqual({ maxTurns: 20, minMoves: 6, maxInnerWalls: 3, offsets: 1 });
    expect(told.hidden).toEqual(plain.hidden);
    const room = roomOf(told.hidden);
    expect(told.prompt).toBe(plain.prompt.replace('\nTurns left', `\n${boxOffsets(room)}\nTurns left`));
    // the expert still reads the map under the sentence and solves the room in its optimal moves
    const ep = await playEpisode(createAgent('expert', 'sokoban', { seed: 1 }), { family: 'sokoban', split: 'test', seed: 5, options: { offsets: 1 } });
    expect(ep.success).toBe(true);
    expect(ep.turns.length).toBe(told.hidden.optimalMoves);
  });

  it('describe 1 adds what lies one step each way from P under every map and changes nothing else', async () => {
    // walls: the border and cell 15; P at 14 with the box above it and the target left of it
    const room = { walls: walls.slice(0, 15) + '#' + walls.slice(16), target: 13, box: 8, player: 14 };
    expect(sokobanSurroundings(room)).toBe('Around P: Left target, Down empty, Right wall, Up box.');
    const plain = new SokobanEnv().reset({ family: 'sokoban', split: 'test', seed: 5 });
    const env = new SokobanEnv();
    const told = env.reset({ family: 'sokoban', split: 'test', seed: 5, options: { describe: 1, offsets: 1 } });
    expect(told.spec.options).toEqual({ maxTurns: 20, minMoves: 6, maxInnerWalls: 3, offsets: 1, describe: 1 });
    expect(told.hidden).toEqual(plain.hidden);
    const start = roomOf(told.hidden);
    expect(told.prompt).toBe(plain.prompt.replace('\nTurns left', `\n${boxOffsets(start)}\n${sokobanSurroundings(start)}\nTurns left`));
    expect(env.step('<answer>Up</answer>').observation).toMatch(/\nAround P: Left (wall|empty|target|box), Down .*\.\nTurns left: 19\.$/);
    const ep = await playEpisode(createAgent('expert', 'sokoban', { seed: 1 }), { family: 'sokoban', split: 'test', seed: 5, options: { describe: 1 } });
    expect(ep.success).toBe(true);
    expect(ep.turns.length).toBe(told.hidden.optimalMoves);
  });

  it('generated rooms need at least minMoves and at most T moves', () => {
    const env = new SokobanEnv();
    for (let seed = 0; seed < 20; seed++) {
      const t = env.reset({ family: 'sokoban', split: 'train', seed });
      expect(t.hidden.optimalMoves).toBeGreaterThanOrEqual(6);
      expect(t.hidden.optimalMoves).toBeLessThanOrEqual(20);
    }
  });
});
