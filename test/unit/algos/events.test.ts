// The loop's typed events (src/rl/algos/types.ts LoopEvent): the Train view switches on their kinds
// (ui/state/train.svelte.ts), the CLI prints their sentences (IterationReport.warnings).
import { describe, expect, it } from 'vitest';
import { echoTrapSigns, echoTrapWarnings } from '../../../src/rl/algos/metrics.ts';

describe('loop events', () => {
  const echo = { spreadDrop: 0.2, gradSpike: 5, distinctDrop: 0.25, rollbackOnSpike: false };

  it('names each Echo Trap sign by kind, with the sentence the warnings print', () => {
    const now = { spread: 0.05, gradNorm: 6, distinct: 0.1 };
    const history = { spreads: [0.6, 0.3], gradNorms: [1, 1, 2], firstDistinct: 0.5 };
    const signs = echoTrapSigns(echo, now, history);
    expect(signs.map((e) => [e.kind, e.sign])).toEqual([
      ['echo-trap', 'spread-collapse'],
      ['echo-trap', 'grad-spike'],
      ['echo-trap', 'templates'],
    ]);
    expect(signs.map((e) => e.text)).toEqual(echoTrapWarnings(echo, now, history));
    expect(echoTrapSigns(echo, { spread: 0.5, gradNorm: 6, distinct: 0.9 }, history).map((e) => e.sign)).toEqual(['grad-spike']);
  });
});
