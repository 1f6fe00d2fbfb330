import { describe, expect, it } from 'vitest';
import { creditColor, symmetricRange, textOn, viridis } from '../../../src/ui/charts/scales.ts';

describe('credit scale', () => {
  it('is grey at zero, blue below, orange above, clamped at the range', () => {
    expect(creditColor(0, 1)).toBe('rgb(189, 189, 189)');
    expect(creditColor(-1, 1)).toBe('rgb(44, 123, 182)');
    expect(creditColor(1, 1)).toBe('rgb(230, 97, 1)');
    expect(creditColor(5, 1)).toBe(creditColor(1, 1));
    // half way to orange: 189 + (230 − 189)/2 = 209.5 → 210
    expect(creditColor(0.5, 1)).toBe('rgb(210, 143, 95)');
  });

  it('never colours NaN or a zero range', () => {
    expect(creditColor(Number.NaN, 1)).toBe('rgb(189, 189, 189)');
    expect(creditColor(1, 0)).toBe('rgb(189, 189, 189)');
  });

  it('finds a symmetric range over finite values', () => {
    expect(symmetricRange([0.2, -0.7, Number.NaN, 0.1])).toBe(0.7);
    expect(symmetricRange([0, 0])).toBe(1e-6);
  });
});

describe('viridis', () => {
  it('runs from dark purple to yellow', () => {
    expect(viridis(0)).toBe('rgb(68, 1, 84)');
    expect(viridis(1)).toBe('rgb(253, 231, 37)');
    expect(viridis(2)).toBe(viridis(1));
  });

  it('picks readable text', () => {
    expect(textOn(viridis(0))).toBe('#fff');
    expect(textOn(viridis(1))).toBe('#000');
  });
});
