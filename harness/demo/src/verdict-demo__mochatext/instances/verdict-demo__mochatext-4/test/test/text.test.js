'use strict';

const assert = require('node:assert/strict');
const { capitalize, wordCount, truncate } = require('../src/text');

describe('text', function () {
  describe('capitalize', function () {
    it('upper-cases the first letter', function () {
      assert.equal(capitalize('hello'), 'Hello');
    });

    it('keeps the rest of the word', function () {
      assert.equal(capitalize('hELLO'), 'HELLO');
    });
  });

  describe('wordCount', function () {
    it('counts single-spaced words', function () {
      assert.equal(wordCount('one two three'), 3);
    });
  });

  describe('truncate', function () {
    it('leaves short strings alone', function () {
      assert.equal(truncate('hi', 8), 'hi');
    });

    it('leaves strings of exactly the limit alone', function () {
      assert.equal(truncate('12345678', 8), '12345678');
    });

    it('fits the ellipsis within the limit', function () {
      assert.equal(truncate('hello world', 8), 'hello...');
    });
  });
});
