'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { threadId } = require('node:worker_threads');
const sum = require('../lib/sum.js');

test('a worker sums 1..1000', async () => {
  const r = await sum(1000);
  assert.strictEqual(r.sum, 500500);
  assert.notStrictEqual(r.threadId, threadId);
});

test('two workers at once', async () => {
  const [a, b] = await Promise.all([sum(10), sum(100)]);
  assert.deepStrictEqual([a.sum, b.sum], [55, 5050]);
  assert.notStrictEqual(a.threadId, b.threadId);
});
