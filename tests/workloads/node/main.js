'use strict';
const sum = require('./lib/sum.js');

sum(1000).then((r) => console.log(`sum 1..1000 = ${r.sum} in worker thread ${r.threadId}`));
