#!/usr/bin/env node
// The Pyodide testee: the project's Python reference, unchanged, on Pyodide (CPython in WebAssembly)
// under Node, answering the harness's JSON-lines protocol (docs/protocol.md, version 2, batches
// included).
//
//   node pyodide_host/testee.js
//
// Each request line goes into Python as it is and the answer line comes back: the protocol's server
// side is the harness's own (harness/testees/protocol.py, through pyodide_host/boot.py), the same
// that serves the reference in process. Lines are ASCII JSON, so nothing is lost at the crossing.
//
// If Pyodide itself fails (a WebAssembly trap, a fatal error: not a Python exception, which the boot
// module answers), the instance is not trusted again: a single request is answered with code "crash"
// and the process exits with status 3; a batch is left unanswered, so the harness sends it again one
// request per line and the request that kills the testee is the one reported.
'use strict';

const readline = require('readline');
const { loadReference } = require('./load.js');

const TRAP_EXIT_STATUS = 3;
const LOAD_EXIT_STATUS = 4;

function describe(err) {
  if (err instanceof Error && typeof err.type === 'string') {
    // A Python exception (pyodide.ffi.PythonError): its message is the traceback; the last line says it.
    const lines = String(err.message).split('\n').filter((line) => line.trim());
    return `${err.type}: ${lines.length ? lines[lines.length - 1] : ''}`;
  }
  if (err instanceof Error) return `${err.name}: ${String(err.message).split('\n')[0]}`;
  return `non-Error thrown: ${String(err)}`;
}

function singleRequestId(line) {
  try {
    const request = JSON.parse(line);
    const single = typeof request === 'object' && request !== null && !Array.isArray(request) && !('batch' in request);
    return single && (typeof request.id === 'string' || Number.isSafeInteger(request.id)) ? request.id : undefined;
  } catch (_) {
    return undefined;
  }
}

async function main() {
  console.log = console.error; // nothing but protocol lines on stdout
  let host;
  try {
    host = await loadReference();
  } catch (err) {
    process.stderr.write(`testee: cannot start the reference on Pyodide: ${describe(err)}\n`);
    process.exit(LOAD_EXIT_STATUS);
  }
  process.stderr.write(`testee: the reference on Pyodide ${host.pyodide.version} started in ${host.seconds.toFixed(2)} s\n`);
  const answer = host.boot.answer;
  let dead = false;
  process.stdout.on('error', () => process.exit(1)); // the client went away (EPIPE)
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  rl.on('line', (line) => {
    if (dead || !line.trim()) return;
    let text;
    try {
      text = answer(line);
    } catch (err) {
      dead = true;
      rl.close();
      const message = `Pyodide failed: ${describe(err)}`;
      process.stderr.write(`testee: ${message}; exiting (status ${TRAP_EXIT_STATUS})\n`);
      const id = singleRequestId(line);
      if (id === undefined) {
        // a batch: left unanswered (the client resends it one request per line), after every answer
        // already written has left (stdout on a pipe is asynchronous)
        process.stdout.write('', () => process.exit(TRAP_EXIT_STATUS));
        return;
      }
      process.stdout.write(`${JSON.stringify({ id, error: { code: 'crash', message } })}\n`,
        () => process.exit(TRAP_EXIT_STATUS));
      return;
    }
    process.stdout.write(text);
  });
}

main();
