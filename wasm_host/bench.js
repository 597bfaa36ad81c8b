#!/usr/bin/env node
// The WASM core's bare cost: a Node loop calling the package's exports directly, no protocol.
//
//   node wasm_host/bench.js REQUESTS.json [PKG] [--seconds S]
//
// REQUESTS.json: {"ops": <op table of the start handshake>, "requests": [{"op", "args"}]} with host
// values as in docs/protocol.md (decoded once, before timing). Prints one JSON line:
// {"requests": N, "seconds": T, "requestsPerSecond": R}. `python -m harness bench` runs it side by
// side with the harness's path through the testee (harness/checks/bench.py).
'use strict';

const fs = require('fs');
const path = require('path');
const { decodeHostValue } = require('./testee.js');

function main() {
  const args = process.argv.slice(2);
  let seconds = 2;
  const at = args.indexOf('--seconds');
  if (at >= 0) {
    seconds = Number(args[at + 1]);
    args.splice(at, 2);
  }
  const spec = JSON.parse(fs.readFileSync(args[0], 'utf8'));
  const pkg = path.resolve(args[1] || process.env.MEMGATE_WASM_PKG || path.join(__dirname, 'pkg'));
  const entry = fs.statSync(pkg).isDirectory() ? path.join(pkg, 'memgate_wasm.js') : pkg;
  const mod = require(entry);
  const calls = spec.requests.map((request) => {
    const op = spec.ops[request.op];
    const positional = op.params.map((k) => (Object.prototype.hasOwnProperty.call(request.args, k)
      ? decodeHostValue(request.args[k], k) : undefined));
    while (positional.length && positional[positional.length - 1] === undefined) positional.pop();
    return [mod[op.js], positional];
  });
  let done = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < seconds) {
    for (const [fn, positional] of calls) {
      try {
        fn(...positional);
      } catch (err) {
        // a contract error is a result like any other
      }
    }
    done += calls.length;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  }
  process.stdout.write(JSON.stringify({ requests: done, seconds: elapsed, requestsPerSecond: done / elapsed }) + '\n');
}

main();
