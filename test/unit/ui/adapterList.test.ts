// The adapter menus of Play and Evaluate: the policy worker's adapters first, then the stored ones
// it lacks, newest first, each once, labelled with the algorithm and iteration its checkpoint recorded.
import { describe, expect, it } from 'vitest';
import { adapterChoices, adapterLabel } from '../../../src/ui/state/adapterList.ts';
import type { AdapterSummary } from '../../../src/rl/store/index.ts';

const row = (id: string, createdAt: number, iteration?: number): AdapterSummary => ({
  id,
  target: 'policy',
  baseModel: 'policy',
  config: { rank: 8, alpha: 16, targets: ['q_proj'], ...(iteration !== undefined ? { iteration, algorithm: 'grpo' } : {}) },
  parentId: null,
  runId: id.split('/')[0],
  createdAt,
});

describe('adapter choices', () => {
  it('lists the worker first, then the stored ones newest first, each once', () => {
    const stored = [row('run-a/policy', 1, 2), row('run-b/policy', 2, 5), row('run-c/policy', 3, 1)];
    const choices = adapterChoices(['run-b/policy', 'imported'], stored);
    expect(choices.map((c) => c.id)).toEqual(['run-b/policy', 'imported', 'run-c/policy', 'run-a/policy']);
    expect(choices.map((c) => [c.registered, c.stored])).toEqual([
      [true, true],
      [true, false],
      [false, true],
      [false, true],
    ]);
    expect(choices[0].label).toBe('run-b/policy · grpo · iteration 5');
    expect(choices[1].label).toBe('imported');
    // a run whose guard kept its start: its adapter is the untrained start, and says so
    expect(adapterChoices([], [row('run-d/policy', 4, 0)])[0].label).toBe('run-d/policy · grpo · the start (untrained)');
    expect(adapterChoices([], [])).toEqual([]);
  });

  it('labels a row without lineage by its id', () => {
    expect(adapterLabel('x', row('x', 0))).toBe('x');
    expect(adapterLabel('x', undefined)).toBe('x');
  });
});
