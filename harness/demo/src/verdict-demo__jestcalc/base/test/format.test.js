'use strict';

const { formatNumber } = require('../src/format');

describe('formatNumber', () => {
  test('formats a large number', () => {
    expect(formatNumber(1234567.891)).toMatchSnapshot();
  });

  test('formats a small number', () => {
    expect(formatNumber(0.5)).toMatchSnapshot();
  });

  test('formats a negative number', () => {
    expect(formatNumber(-1234.5)).toMatchSnapshot();
  });
});
