'use strict';

function sum(values) {
  let total = 0;
  for (const v of values) {
    total += v;
  }
  return total;
}

function mean(values) {
  return sum(values) / values.length;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) {
    return sorted[middle];
  }
  return (sorted[middle - 1] + sorted[middle]) / 2;
}

module.exports = { sum, mean, median };
