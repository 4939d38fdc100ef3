'use strict';

const { parseRange, within } = require('../src/range');

describe('parseRange', () => {
  test('reads a simple range', () => {
    expect(parseRange('1..5')).toEqual([1, 5]);
  });

  test('reads negative bounds', () => {
    expect(parseRange('-3..-1')).toEqual([-3, -1]);
  });

  test('rejects a reversed range', () => {
    expect(() => parseRange('5..1')).toThrow(RangeError);
  });

  test('names the reversed range', () => {
    expect(() => parseRange('3..-3')).toThrow('reversed range: 3..-3');
  });
});

describe('within', () => {
  test('includes both bounds', () => {
    expect(within(1, [1, 5]) && within(5, [1, 5])).toBe(true);
  });
});
