// The family registry (src/rl/envs/registry.ts, family.ts): one spec per family, from its folder,
// keyed by its name in FAMILY_NAMES's order; the views and commands read the registry. Guess's
// figures are counted once (envs/guess/metrics.ts) and read two ways, which must agree.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { FAMILIES, FAMILY_NAMES, LESSONS, createAgent, createEnv, findLesson } from '../../../src/rl/envs/registry.ts';
import { rolloutMetrics } from '../../../src/rl/rollout/metrics.ts';
import { playEpisode, type RolloutEpisode } from '../../../src/rl/rollout/rollout.ts';
import { creditFields } from '../../../src/ui/state/turnCredit.ts';

describe('the family registry', () => {
  it('holds one spec per family name, in order', () => {
    expect(Object.keys(FAMILIES)).toEqual([...FAMILY_NAMES]);
    for (const name of FAMILY_NAMES) {
      const f = FAMILIES[name];
      expect(f.name).toBe(name);
      expect(typeof f.defaults.maxTurns).toBe('number');
      expect(f.description.length).toBeGreaterThan(0);
    }
  });

  it('offers the information-gain reward where the family says its steps report the gain', () => {
    for (const name of FAMILY_NAMES) expect(creditFields('mtdpo', name)).toEqual(FAMILIES[name].informationGain ? ['infoGain'] : []);
  });

  it("counts guess's figures once: the iteration's and the evaluation's spellings agree", async () => {
    const episodes: RolloutEpisode[] = [];
    for (let seed = 0; seed < 12; seed++) {
      episodes.push(await playEpisode(createAgent('noisy', 'guess', { seed, noise: 0.5 }), { family: 'guess', split: 'train', seed }));
    }
    const rollout = rolloutMetrics(episodes);
    const family = FAMILIES.guess.metrics(episodes);
    expect(rollout.useless_question_rate).toBeCloseTo(family.uselessQuestionRate, 12);
    expect(rollout.repeated_question_rate).toBeCloseTo(family.repeatedQuestionRate, 12);
    expect(rollout.early_answer_rate).toBeGreaterThanOrEqual(0);
    // a family without such figures adds none
    expect(Object.keys(rolloutMetrics([]))).not.toContain('early_answer_rate');
  });
});

describe("the families' lessons", () => {
  it('are named once over every family, say why from a written measurement, and pose tasks the expert solves', async () => {
    expect(LESSONS.map((l) => `${l.family}@${l.name}`)).toContain('guess@turns-decide');
    expect(new Set(LESSONS.map((l) => l.name)).size).toBe(LESSONS.length);
    for (const l of LESSONS) {
      expect(l.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(FAMILIES[l.family].lessons).toContainEqual({ name: l.name, label: l.label, options: l.options, why: l.why, start: l.start });
      expect(l.label.length).toBeGreaterThan(0);
      const doc = /docs\/experiments\/[\w.-]+\.md/.exec(l.why)?.[0];
      expect(doc && existsSync(doc), `${l.name}'s why cites a measurement in docs/experiments/`).toBe(true);
      // the options are the family's own: a task of them resets, and the scripted expert wins it
      const task = { family: l.family, split: 'test', seed: 3, options: l.options } as const;
      expect(createEnv(l.family).reset(task).spec.options).toMatchObject(l.options);
      expect((await playEpisode(createAgent('expert', l.family, { seed: 3 }), task)).success).toBe(true);
    }
  });

  it('name the known lessons when asked for an unknown one', () => {
    expect(findLesson('turns-decide')).toMatchObject({ family: 'guess', options: { candidates: 8, maxTurns: 4, pool: 13 }, start: 'student' });
    expect(() => findLesson('nope')).toThrow('unknown lesson "nope" (known: turns-decide (guess))');
  });
});

describe("the families' view hints", () => {
  it('say what solved means for every family, and which draw boards', () => {
    for (const name of FAMILY_NAMES) expect(FAMILIES[name].solvedMeans.length, name).toBeGreaterThan(5);
    expect(FAMILY_NAMES.filter((n) => FAMILIES[n].board)).toEqual(['frozenlake', 'sokoban']);
    expect(FAMILIES.bandit.solvedMeans).toMatch(/higher expected payout/);
  });

  it('note a sokoban move that changed nothing, and a push that leaves the puzzle unsolvable', async () => {
    const note = FAMILIES.sokoban.stepNote!;
    expect(note({ reason: 'move', action: 'Left', moved: false, pushed: false })).toBe(
      'Left changed nothing: a wall, or the box against a wall, is in the way.',
    );
    expect(note({ reason: 'move', action: 'Up', moved: true, pushed: false })).toBeNull();
    // random play pushes boxes into corners: each step marked stuck is one from which the solver finds no way
    let stuck = 0;
    for (let seed = 0; seed < 30; seed++) {
      const ep = await playEpisode(createAgent('random', 'sokoban', { seed }), { family: 'sokoban', split: 'train', seed });
      const at = ep.turns.findIndex((t) => t.info.stuck === true);
      if (at < 0) continue;
      stuck++;
      expect(ep.turns[at].info.pushed).toBe(true);
      // once stuck, never solved
      expect(ep.success).toBe(false);
      expect(note(ep.turns[at].info)).toMatch(/can no longer reach the target/);
    }
    expect(stuck).toBeGreaterThan(3);
  });
});
