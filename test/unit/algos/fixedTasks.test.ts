// LoopConfig.fixedTasks (issue #45's overfit check) in config.ts iterationTasks: off, every iteration
// draws new tasks as before (seeds hash(train/seed/it/i)); with N, the iterations walk one fixed set of
// N tasks in turn; the config check refuses a set smaller than an iteration. overfit.test.ts trains on it.
import { describe, expect, it } from 'vitest';
import { defaultLoopConfig, iterationTasks, overrideConfig } from '../../../src/rl/algos/config.ts';
import { hashString } from '../../../src/rl/util/rng.ts';

const seeds = (c: Parameters<typeof iterationTasks>[0], it: number) => iterationTasks(c, it).map((t) => t.seed);

describe('fixedTasks', () => {
  it('is off by default: new tasks every iteration, seeded as before', () => {
    const c = defaultLoopConfig('grpo', 'guess', { seed: 5, tasksPerIteration: 3 });
    expect(c.fixedTasks).toBe(0);
    expect(seeds(c, 2)).toEqual([0, 1, 2].map((i) => hashString(`train/5/2/${i}`) & 0x7fffffff));
    expect(seeds(c, 3)).not.toEqual(seeds(c, 2));
  });

  it('walks one fixed set of N tasks, tasksPerIteration at a time', () => {
    const c = overrideConfig(defaultLoopConfig('grpo', 'guess', { seed: 5, tasksPerIteration: 2 }), { fixedTasks: 4 });
    const set = [0, 1, 2, 3].map((j) => hashString(`fixed/5/${j}`) & 0x7fffffff);
    expect([0, 1, 2, 3].map((it) => seeds(c, it))).toEqual([set.slice(0, 2), set.slice(2), set.slice(0, 2), set.slice(2)]);
    const all = overrideConfig(c, { fixedTasks: 2 });
    expect(seeds(all, 7)).toEqual(seeds(all, 0));
    expect(iterationTasks(all, 0).every((t) => t.split === 'train' && t.family === 'guess')).toBe(true);
  });

  it('refuses a set smaller than an iteration, and fractions', () => {
    const c = defaultLoopConfig('grpo', 'guess', { tasksPerIteration: 8 });
    expect(() => overrideConfig(c, { fixedTasks: 4 })).toThrow('fixedTasks must be 0 (off) or a whole number ≥ tasksPerIteration (8)');
    expect(() => overrideConfig(c, { fixedTasks: 8.5 })).toThrow('got 8.5');
    expect(() => overrideConfig(c, { fixedTasks: -1 })).toThrow('got -1');
    expect(overrideConfig(c, { fixedTasks: 8 }).fixedTasks).toBe(8);
  });
});
