'use strict';

const { add, divide, clamp, round } = require('../src/calc');

describe('calc', () => {
  describe('add', () => {
    test('adds two integers', () => {
      expect(add(2, 3)).toBe(5);
    });

    test('adds negative numbers', () => {
      expect(add(-2, -3)).toBe(-5);
    });

    test('adds zero', () => {
      expect(add(7, 0)).toBe(7);
    });
  });

  describe('divide', () => {
    test('divides evenly', () => {
      expect(divide(6, 3)).toBe(2);
    });

    test('throws on division by zero', () => {
      expect(() => divide(1, 0)).toThrow(RangeError);
    });
  });

  describe('clamp', () => {
    describe('inside the range', () => {
      test('returns the value', () => {
        expect(clamp(5, 0, 10)).toBe(5);
      });
    });

    describe('below the range', () => {
      test('returns the lower bound', () => {
        expect(clamp(-5, 0, 10)).toBe(0);
      });
    });
  });

  describe('round', () => {
    test('rounds down to two digits', () => {
      expect(round(1.234, 2)).toBe(1.23);
    });

    test('rounds to an integer', () => {
      expect(round(1.2, 0)).toBe(1);
    });
  });
});
