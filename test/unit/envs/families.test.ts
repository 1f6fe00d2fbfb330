// The family registry (src/rl/envs/registry.ts, family.ts): one spec per family, from its folder,
// keyed by its name in FAMILY_NAMES's order; the views and commands read the registry. Guess's
// figures are counted once (envs/guess/metrics.ts) and read two ways, which must agree.
import { describe, expect, it } from 'vitest';
import { FAMILIES, createAgent } from '../../../src/rl/envs/registry.ts';
import { FAMILY_NAMES } from '../../../src/rl/envs/types.ts';
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
