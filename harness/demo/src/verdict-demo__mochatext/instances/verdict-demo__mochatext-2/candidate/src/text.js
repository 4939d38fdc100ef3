'use strict';

function capitalize(text) {
  return text[0].toUpperCase() + text.slice(1);
}

function wordCount(text) {
  return text.split(' ').filter((word) => word !== ' ').length;
}

function truncate(text, max) {
  if (text.length <= max) {
    return text;
  }
  return text.slice(0, max) + '...';
}

module.exports = { capitalize, wordCount, truncate };
