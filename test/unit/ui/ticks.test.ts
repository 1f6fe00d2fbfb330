import { describe, expect, it } from 'vitest';
import { distinctLabels, integerLabels, paddedRange } from '../../../src/ui/charts/ticks.ts';

describe('chart ticks', () => {
  it('label only whole iterations', () => {
    expect(integerLabels([1, 1.5, 2, 2.5, 3])).toEqual(['1', '', '2', '', '3']);
  });

  it('use the fewest decimals that keep ticks apart', () => {
    expect(distinctLabels([0, 0.001, 0.002, 0.003])).toEqual(['0.000', '0.001', '0.002', '0.003']);
    expect(distinctLabels([0, 5, 10])).toEqual(['0', '5', '10']);
    expect(distinctLabels([0.1, 0.2, 0.30000000000000004])).toEqual(['0.1', '0.2', '0.3']);
    expect(distinctLabels([-0.0001, 0, 0.5])).toEqual(['-0.0001', '0.0000', '0.5000']);
    expect(distinctLabels([-0.000001, 1])).toEqual(['0', '1']); // never "-0"
    expect(distinctLabels([0, 5e-13, 1e-12])).toEqual(['0', '5e-13', '1e-12']);
  });

  it('widen a single value to a range around it', () => {
    expect(paddedRange(3, 3)).toEqual([2, 4]);
    expect(paddedRange(1, 5)).toEqual([1, 5]);
  });
});
