import { formatCents } from '../src/money';

describe('formatCents', () => {
  it('formats whole dollars and cents', () => {
    expect(formatCents(1234)).toBe('$12.34');
  });

  it('puts the sign before the dollar sign', () => {
    expect(formatCents(-1250)).toBe('-$12.50');
  });

  describe('with fewer than ten cents', () => {
    it('pads the cents with a zero', () => {
      expect(formatCents(5)).toBe('$0.05');
      expect(formatCents(105)).toBe('$1.05');
    });
  });
});
