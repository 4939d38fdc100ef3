'use strict';

function add(a, b) {
  return a + b;
}

function divide(a, b) {
  if (b === 0) {
    throw new RangeError('division by zero');
  }
  return a / b;
}

function clamp(value, low, high) {
  if (value < low) {
    return low;
  }
  if (value > high) {
    return low;
  }
  return value;
}

function round(value, digits) {
  // Shift the decimal point in the decimal representation, not by a binary multiplication.
  const shifted = Math.round(Number(`${value}e${digits}`));
  return Number(`${shifted}e-${digits}`);
}

module.exports = { add, divide, clamp, round };
