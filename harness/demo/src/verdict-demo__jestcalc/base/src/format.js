'use strict';

function formatNumber(value) {
  return value.toFixed(2);
}

module.exports = { formatNumber };
