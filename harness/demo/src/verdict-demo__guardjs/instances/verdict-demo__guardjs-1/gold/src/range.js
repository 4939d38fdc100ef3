'use strict';

/** Reads "LOW..HIGH" (integers, either may be negative) into [low, high]. */
function parseRange(text) {
  const [low, high] = text.trim().split('..').map(Number);
  if (low > high) {
    throw new RangeError(`reversed range: ${text.trim()}`);
  }
  return [low, high];
}

/** Whether value lies in the closed range [low, high]. */
function within(value, [low, high]) {
  return low <= value && value <= high;
}

module.exports = { parseRange, within };
