#!/usr/bin/env node
// The reference-on-Pyodide's bare cost: a Python loop inside Pyodide calling the reference directly,
// no protocol (pyodide_host/boot.py: bench).
//
//   node pyodide_host/bench.js REQUESTS.json [--seconds S]
//
// REQUESTS.json as for wasm_host/bench.js: {"ops": <op table>, "requests": [{"op", "args"}]}, host
// values decoded once before timing. Prints one JSON line: {"requests", "seconds",
// "requestsPerSecond", "startupSeconds"}.
'use strict';

const fs = require('fs');
const { loadReference } = require('./load.js');

async function main() {
  console.log = console.error;
  const args = process.argv.slice(2);
  let seconds = 2;
  const at = args.indexOf('--seconds');
  if (at >= 0) {
    seconds = Number(args[at + 1]);
    args.splice(at, 2);
  }
  const host = await loadReference();
  const result = JSON.parse(host.boot.bench(fs.readFileSync(args[0], 'utf8'), seconds));
  result.startupSeconds = host.seconds;
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err) => {
  process.stderr.write(`bench: ${err.stack || err}\n`);
  process.exit(1);
});
