'use strict';
// sum(n): 1 + ... + n, computed in a worker thread; resolves to
// { sum, threadId } (the worker's own thread id).
const { Worker, isMainThread, parentPort, workerData, threadId } = require('node:worker_threads');

if (isMainThread) {
  module.exports = function sum(n) {
    return new Promise((resolve, reject) => {
      const w = new Worker(__filename, { workerData: n });
      w.once('message', resolve);
      w.once('error', reject);
    });
  };
} else {
  let s = 0;
  for (let i = 1; i <= workerData; i++) s += i;
  parentPort.postMessage({ sum: s, threadId });
}
