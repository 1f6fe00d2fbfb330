// The learning table's summary over seeds: means, gains and Student-t intervals computed by hand.
import { describe, expect, it } from 'vitest';
import { algoLabel, learningTables, meanInterval, summaryRows } from '../../../bench/learningSummary.ts';
import { algoKey, parseCase, placeKey } from '../../../bench/entries/learning.ts';

describe('learning summary', () => {
  it('gives the mean and the 95% t half-width over seeds', () => {
    // mean 80, sample sd 10, n 3: half = 4.303 · 10 / √3
    const { mean, half } = meanInterval([70, 80, 90]);
    expect(mean).toBe(80);
    expect(half).toBeCloseTo((4.303 * 10) / Math.sqrt(3), 6);
    expect(Number.isNaN(meanInterval([42]).half)).toBe(true);
  });

  it('groups the cases by family and algorithm, gain = after − before per seed', () => {
    const rows = summaryRows([
      { algo: 'grpo', family: 'bandit', seed: 1, success: { sampled: [60, 87], greedy: [75, 95] } },
      { algo: 'grpo', family: 'bandit', seed: 2, success: { sampled: [58, 83], greedy: [75, 94] } },
      { algo: 'rft', family: 'bandit', seed: 1, success: { sampled: [60, 99], greedy: [75, 100] } },
    ]);
    const grpoGain = rows.find((r) => r.case.startsWith('bandit grpo, mean over 2 seeds (1, 2)') && r.metric === 'sampled gain');
    expect(grpoGain?.value).toBe(26);
    // gains 27 and 25: sd √2, half = 12.706 · √2 / √2
    expect(grpoGain?.note).toBe('± 12.7 (95% t over seeds)');
    const rft = rows.filter((r) => r.case.startsWith('bandit rft, mean over 1 seed (1)'));
    expect(rft.map((r) => [r.metric, r.value])).toEqual([
      ['sampled success after', 99],
      ['sampled gain', 39],
      ['greedy success after', 100],
      ['greedy gain', 25],
    ]);
    expect(rft[0].note).toBe('one seed: no interval');
  });

  it('writes one Markdown table per family, seeds side by side, rates only where the family has them', () => {
    const md = learningTables([
      { algo: 'sweet', family: 'guess', seed: 1, success: { sampled: [70, 80], greedy: [75, 75] }, rates: { sampled: { early_answer_rate: [0.5, 0.3] } } },
      { algo: 'sweet', family: 'guess', seed: 2, success: { sampled: [72, 76], greedy: [75, 74.5] }, rates: { sampled: { early_answer_rate: [0.4, 0.2] } } },
      { algo: 'rft', family: 'bandit', seed: 1, success: { sampled: [81.5, 99.5], greedy: [98, 100] } },
    ]).split('\n');
    expect(md).toContain('| SWEET-RL | 1, 2 | 70→80 / 72→76 | +7.0 ± 38.1 | 75→75 / 75→74.5 | −0.3 ± 3.2 | 0.45 → 0.25 |');
    expect(md).toContain('| algorithm | seeds | sampled, before → after | sampled gain | greedy, before → after | greedy gain | early answers (sampled) |');
    expect(md).toContain('| rejection fine-tuning | 1 | 81.5→99.5 | +18.0 | 98→100 | +2.0 |');
    expect(md.filter((l) => l.startsWith('**'))).toEqual(['**guess**', '**bandit**']);
  });

  it('reads a case with a turn-level credit variant and names its row', () => {
    const c = parseCase('grpo+gigpo:guess:2');
    expect(c).toEqual({ algo: 'grpo', variant: 'gigpo', family: 'guess', seed: 2 });
    expect(algoKey(c)).toBe('grpo+gigpo');
    expect(algoKey(parseCase('rft:bandit:1'))).toBe('rft');
    expect(algoLabel('grpo+reroll')).toBe('GRPO + Monte-Carlo re-roll credit (M 2, ω 1)');
    expect(algoLabel('ppo')).toBe('PPO (critic, turn-level GAE)');
    expect(algoLabel(algoKey(parseCase('grpo+turn:guess@turns-decide:1')))).toBe('GRPO + return-to-go turn credit, information gain 1 per bit');
    expect(() => parseCase('ppo+turn:guess:1')).toThrow(/grpo\+turn/);
    const md = learningTables([
      {
        algo: 'grpo+reroll',
        family: 'guess',
        seed: 1,
        success: { sampled: [70, 75], greedy: [80, 81] },
        rates: { sampled: { ran_out_of_turns_rate: [0.02, 0.01], wasted_questions_mean: [0.7, 0.5] } },
      },
    ]);
    expect(md).toContain('| GRPO + Monte-Carlo re-roll credit (M 2, ω 1) | 1 | 70→75 | +5.0 | 80→81 | +1.0 | 0.02 → 0.01 | 0.70 → 0.50 |');
    expect(md).toContain('| ran out of turns (sampled) | wasted questions per game (sampled) |');
    // a variant the algorithm has no use for, or no such variant, is refused with the list
    expect(() => parseCase('mtdpo+gigpo:guess:1')).toThrow(/grpo\+gigpo/);
    expect(() => parseCase('grpo+magic:guess:1')).toThrow(/variants/);
  });

  it("reads a case on a family's lesson, and refuses a lesson the family does not have", () => {
    const c = parseCase('grpo+gigpo:guess@turns-decide:3');
    expect(c).toEqual({ algo: 'grpo', variant: 'gigpo', family: 'guess', lesson: 'turns-decide', seed: 3 });
    expect(placeKey(c)).toBe('guess@turns-decide');
    expect(placeKey(parseCase('rft:guess:1'))).toBe('guess');
    expect(() => parseCase('grpo:guess@nope:1')).toThrow('guess has no lesson "nope" (its lessons: guess@turns-decide)');
    expect(() => parseCase('grpo:bandit@turns-decide:1')).toThrow('bandit has no lesson "turns-decide" (its lessons: none)');
  });
});
