'use strict';

function capitalize(text) {
  return text[0].toUpperCase() + text.slice(1);
}

function wordCount(text) {
  return text.split(' ').length;
}

function truncate(text, max) {
  return text.slice(0, Math.max(0, max - 3)) + '...';
}

module.exports = { capitalize, wordCount, truncate };
