import { formatCents } from '../src/money';

describe('formatCents', () => {
  it('formats whole dollars and cents', () => {
    expect(formatCents(1234)).toBe('$12.34');
  });

  it('puts the sign before the dollar sign', () => {
    expect(formatCents(-1250)).toBe('-$12.50');
  });

  it('groups thousands with commas', () => {
    expect(formatCents(123456789)).toBe('$1,234,567.89');
  });
});
