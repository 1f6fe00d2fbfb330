import { describe, expect, it } from 'vitest';
import { FAMILIES, createAgent, FAMILY_NAMES, type FamilyName } from '../../../src/rl/envs/registry.ts';
import { playEpisode } from '../../../src/rl/rollout/rollout.ts';
import { expertAgreement, judgeTurns } from '../../../src/rl/rollout/agreement.ts';

const play = (kind: 'expert' | 'random', family: FamilyName, seed: number) => playEpisode(createAgent(kind, family, { seed }), { family, split: 'test', seed });

describe('agreement with the scripted expert', () => {
  it("the expert's own episodes agree on every turn, in every family", async () => {
    for (const family of FAMILY_NAMES) {
      const eps = await Promise.all([1, 2, 3].map((s) => play('expert', family, s)));
      expect(expertAgreement(eps), family).toBe(1);
    }
  });

  it("a random player's frozenlake moves agree about a quarter of the time, and each label is the expert's move at that state", async () => {
    const eps = await Promise.all(Array.from({ length: 30 }, (_, i) => play('random', 'frozenlake', i + 1)));
    const a = expertAgreement(eps);
    expect(a).toBeGreaterThan(0.1);
    expect(a).toBeLessThan(0.45);
    const ep = eps[0];
    const { labels } = judgeTurns(ep, FAMILIES.frozenlake.agents.expert);
    expect(labels).toHaveLength(ep.turns.length);
    for (const l of labels) expect(l).toMatch(/^<answer>(Left|Down|Right|Up)<\/answer>$/);
  });

  it('no turns, no agreement', () => {
    expect(expertAgreement([])).toBe(0);
  });
});
