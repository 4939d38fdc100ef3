'use strict';

const assert = require('node:assert/strict');
const { slugify } = require('../src/slug');

describe('slugify', function () {
  it('joins words with dashes', function () {
    assert.equal(slugify('Hello World'), 'hello-world');
  });

  it('drops punctuation', function () {
    assert.equal(slugify('Hello, World!'), 'hello-world');
  });
});
