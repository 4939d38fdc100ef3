'use strict';

const { sum, mean, median } = require('../src/stats');

describe('stats', () => {
  describe('sum', () => {
    test('sums a list', () => {
      expect(sum([1, 2, 3])).toBe(6);
    });

    test('sums an empty list to zero', () => {
      expect(sum([])).toBe(0);
    });
  });

  describe('mean', () => {
    test('averages a list', () => {
      expect(mean([1, 2, 3, 4])).toBe(2.5);
    });
  });

  describe('median', () => {
    test('takes the middle of a single-digit list', () => {
      expect(median([3, 1, 2])).toBe(2);
    });
  });
});
