#!/usr/bin/env node
// The WebAssembly testee: answers the harness's JSON-lines protocol (harness/testees/protocol.py) by calling
// the wasm-bindgen Node package of the Rust core. CommonJS, no npm dependencies.
//
//   node wasm_host/testee.js [PKG]   PKG: a package dir (its memgate_wasm.js) or the entry .js file;
//                                    else $MEMGATE_WASM_PKG, else wasm_host/pkg
//
// The protocol is docs/protocol.md (version 2; schema schemas/protocol-v2.schema.json):
// Request  {"id": <string|integer>, "op": <python op name>, "args": {<python param name>: <host value>}}
// Response {"id": ..., "ok": <value>} | {"id": ..., "error": {"code": ..., "message": ...}}
// Batch    {"id": B, "batch": [request, ...]} -> {"id": B, "batch": [response, ...]} (in order)
// Start    {"id": X, "op": "start", "args": {"protocol": 2, "ops": <op table>, "codes": [error codes]}}
//          -> {"id": X, "ok": {"protocol": 2, "name", "version", "language", "unicode", "contracts", "traces"}}
// Trace    {"id": T, "op": "trace", "args": {"op": <op name>, "args": {...}}} -> {"id": T, "ok": <trace JSON text>}
// The harness sends `start` after each start of this process, with the op table of harness/model/registry.py;
// until then every request is a bad_request, and a package that does not load is found before any
// real request.
//
// Lines are answered in order, each as soon as it is answered. A WebAssembly trap is answered with
// code "crash" and the process then exits with status 3: an instance is not trusted after a trap.
'use strict';

const path = require('path');
const readline = require('readline');

// The op table comes from harness/model/registry.py, the one place ops are declared: the client sends it
// in the `start` handshake ({"op": "start", "args": {"protocol": 2, "ops": {name: {js, params,
// required}}}}). Until then every request is a bad_request.
const PROTOCOL_VERSION = 2;
let OPS = null;

function setOps(table) {
  if (!isPlainObject(table)) throw new BadRequest('start needs args.ops, the op table of harness/model/registry.py');
  for (const [name, op] of Object.entries(table)) {
    const ok = isPlainObject(op) && typeof op.js === 'string' && Array.isArray(op.params) &&
      op.params.every((p) => typeof p === 'string') && Number.isSafeInteger(op.required) &&
      op.required >= 0 && op.required <= op.params.length;
    if (!ok) throw new BadRequest(`op table entry ${JSON.stringify(name)} is malformed`);
  }
  OPS = table;
}

// The contract's error codes, from the `start` handshake (reference/errors.py is the one list).
let CODES = new Set();

const TRAP_EXIT_STATUS = 3;
const LOAD_EXIT_STATUS = 4;

const hasOwn = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

class BadRequest extends Error {}

function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// harness/model/hostvalues.py: plain JSON scalars and arrays, {"$float": "NaN"|"Infinity"|"-Infinity"},
// {"$utf16": [code units]} (lone surrogates allowed), {"$codepoints": [code points]} (refused when a high
// surrogate is directly followed by a low one: not expressible here), {"$object": {...}} (an object).
const FLOATS = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

function decodeHostValue(value, name) {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') {
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => decodeHostValue(item, name));
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === '$float' && typeof value.$float === 'string' && hasOwn(FLOATS, value.$float)) {
      return FLOATS[value.$float];
    }
    if (keys.length === 1 && keys[0] === '$utf16' && Array.isArray(value.$utf16) &&
        value.$utf16.every((u) => Number.isInteger(u) && u >= 0 && u <= 0xffff)) {
      let text = '';
      for (let i = 0; i < value.$utf16.length; i += 8192) {
        text += String.fromCharCode(...value.$utf16.slice(i, i + 8192));
      }
      return text;
    }
    if (keys.length === 1 && keys[0] === '$codepoints' && Array.isArray(value.$codepoints) &&
        value.$codepoints.every((p) => Number.isInteger(p) && p >= 0 && p <= 0x10ffff)) {
      // A code-point string; a high surrogate directly followed by a low one would become one valid
      // pair in a JavaScript string: a different value, so this host cannot take it.
      const points = value.$codepoints;
      for (let i = 0; i + 1 < points.length; i++) {
        if (points[i] >= 0xd800 && points[i] <= 0xdbff && points[i + 1] >= 0xdc00 && points[i + 1] <= 0xdfff) {
          throw new BadRequest(`argument ${name}: code points ${i} and ${i + 1} are a high and a low surrogate, ` +
                               'which a JavaScript string can only hold as one valid pair');
        }
      }
      let text = '';
      for (const p of points) text += p >= 0xd800 && p <= 0xdfff ? String.fromCharCode(p) : String.fromCodePoint(p);
      return text;
    }
    if (keys.length === 1 && keys[0] === '$object' && isPlainObject(value.$object)) {
      const out = {};
      for (const [key, item] of Object.entries(value.$object)) out[key] = decodeHostValue(item, name);
      return out;
    }
  }
  throw new BadRequest(`argument ${name} is not a host value: ${JSON.stringify(value).slice(0, 200)}`);
}

function badRequest(id, message) {
  return { id, error: { code: 'bad_request', message } };
}

function describe(err) {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  try {
    return `non-Error thrown: ${String(err)}`;
  } catch (_) {
    return 'non-Error thrown';
  }
}

// Returns [response, trapped].
function handle(mod, request) {
  if (!isPlainObject(request)) return [badRequest(null, 'a request must be a JSON object'), false];
  const id = request.id;
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) {
    return [badRequest(id === undefined ? null : id, 'id must be a string or an integer'), false];
  }
  if (request.op === 'start') {
    const args = isPlainObject(request.args) ? request.args : {};
    if (args.protocol !== PROTOCOL_VERSION) {
      return [badRequest(id, `protocol ${JSON.stringify(args.protocol)} is not supported: this testee speaks ${PROTOCOL_VERSION}`), false];
    }
    try {
      setOps(args.ops);
      if (!Array.isArray(args.codes) || !args.codes.every((c) => typeof c === 'string')) {
        throw new BadRequest('start needs args.codes, the contract\'s error codes');
      }
      CODES = new Set(args.codes);
    } catch (err) {
      if (err instanceof BadRequest) return [badRequest(id, err.message), false];
      throw err;
    }
    return [{ id, ok: describeSelf(mod) }, false];
  }
  if (OPS === null) return [badRequest(id, 'no op table yet: send start first'), false];
  // The diagnostic trace request: {"op": "trace", "args": {"op": <an op it traces>, "args": {...}}}, answered
  // with the trace's JSON text, made by the core (the package's trace(op, ...args)).
  const tracing = request.op === 'trace';
  let opName = request.op;
  let args = request.args === undefined ? {} : request.args;
  let positional;
  try {
    if (tracing) {
      if (!isPlainObject(args) || typeof args.op !== 'string' || !TRACES.includes(args.op) ||
          Object.keys(args).some((k) => k !== 'op' && k !== 'args')) {
        throw new BadRequest(NO_TRACES !== null ? `no traces: ${NO_TRACES}`
          : `trace needs args {"op": one of ${TRACES.join(', ')}, "args": {...}}`);
      }
      opName = args.op;
      args = args.args === undefined ? {} : args.args;
    }
    if (typeof opName !== 'string' || !hasOwn(OPS, opName)) {
      throw new BadRequest(`unknown op ${JSON.stringify(opName)}; known ops: ${Object.keys(OPS).join(', ')}`);
    }
    positional = positionalArgs(opName, OPS[opName], args);
  } catch (err) {
    if (err instanceof BadRequest) return [badRequest(id, err.message), false];
    throw err;
  }
  const js = tracing ? 'trace' : OPS[opName].js;
  const fn = mod[js];
  if (typeof fn !== 'function') {
    return [{ id, error: { code: 'unexpected_exception', message: `the package does not export ${js}` } }, false];
  }
  // The core's contract errors come as JS Errors (wasm-bindgen's JsError): only their message is read, so no
  // stack is captured for them (V8 spends more on a stack than on most calls).
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return [{ id, ok: tracing ? fn(opName, ...positional) : fn(...positional) }, false];
  } catch (err) {
    if (err instanceof WebAssembly.RuntimeError) {
      return [{ id, error: { code: 'crash', message: `WebAssembly trap: ${describe(err)}` } }, true];
    }
    if (err instanceof Error && typeof err.message === 'string') {
      const match = /^([a-z_]+):/.exec(err.message);
      if (match && CODES.has(match[1])) return [{ id, error: { code: match[1], message: err.message } }, false];
    }
    return [{ id, error: { code: 'unexpected_exception', message: describe(err) } }, false];
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

// The op's arguments in signature order, decoded; an omitted one is undefined (the binding's default) and
// trailing ones are dropped.
function positionalArgs(name, op, args) {
  if (!isPlainObject(args)) throw new BadRequest('args must be an object');
  const unknown = Object.keys(args).filter((k) => !op.params.includes(k));
  if (unknown.length) {
    throw new BadRequest(`${name}: unknown argument(s) ${unknown.join(', ')}; parameters: ${op.params.join(', ')}`);
  }
  const missing = op.params.slice(0, op.required).filter((k) => !hasOwn(args, k));
  if (missing.length) throw new BadRequest(`${name}: missing required argument(s) ${missing.join(', ')}`);
  const positional = op.params.map((k) => (hasOwn(args, k) ? decodeHostValue(args[k], k) : undefined));
  while (positional.length && positional[positional.length - 1] === undefined) positional.pop();
  return positional;
}

// The ops the package's trace(op, ...args) serves, as the package itself lists them (traced(): the core's
// memgate_core::host::TRACED, made from its op table). A package that exports trace but not traced (built before
// the core exported its list) serves no traces here, and says why: NO_TRACES goes to stderr at load and into the
// answer to a trace request.
let TRACES = [];
let NO_TRACES = null;

function tracesOf(mod) {
  if (typeof mod.trace !== 'function') return [];
  if (typeof mod.traced !== 'function') {
    NO_TRACES = 'the wasm package exports trace but not traced (the list of the ops it traces): it was built ' +
      'before the core exported that list; serving no traces (rebuild it: python wasm_host/build.py)';
    return [];
  }
  return mod.traced();
}

let SELF = null; // the self-description, computed once

function describeSelf(mod) {
  if (SELF === null) {
    let unicode = {};
    try {
      unicode = JSON.parse(mod.unicodeVersions());
    } catch (err) {
      unicode = { error: describe(err) };
    }
    SELF = {
      protocol: PROTOCOL_VERSION,
      name: 'memgate-wasm',
      version: PKG_VERSION,
      language: `Rust (wasm-bindgen) on Node.js ${process.version}`,
      unicode,
      contracts: ['v1'],
      traces: TRACES,
      surface: { kind: 'js', exports: exportsOf(mod) },
    };
  }
  return SELF;
}

// The package's exports as the surface check reads them: each function's parameter names (from its
// source text, as wasm-bindgen writes them), null for anything that is not a function.
function exportsOf(mod) {
  const out = {};
  for (const [name, value] of Object.entries(mod)) {
    if (typeof value !== 'function') {
      out[name] = null;
      continue;
    }
    const head = value.toString().match(/^[^(]*\(([^)]*)\)/);
    out[name] = head ? head[1].split(',').map((s) => s.trim()).filter(Boolean) : [];
  }
  return out;
}

// A batch answers each request in order; a trap ends it (the rest is not run) and the process.
function handleBatch(mod, message) {
  const id = message.id;
  if (!(typeof id === 'string' || Number.isSafeInteger(id)) || !Array.isArray(message.batch)) {
    return [badRequest(id === undefined ? null : id, 'a batch needs an id and a "batch" array of requests'), false];
  }
  const answers = [];
  for (const request of message.batch) {
    const [response, trapped] = handle(mod, request);
    answers.push(response);
    if (trapped) return [{ id, batch: answers }, true];
  }
  return [{ id, batch: answers }, false];
}

let PKG_VERSION = 'unknown';

function main() {
  const pkg = path.resolve(process.argv[2] || process.env.MEMGATE_WASM_PKG || path.join(__dirname, 'pkg'));
  let mod;
  try {
    // wasm-bindgen --target nodejs writes no package.json: load the entry file of a package dir.
    const fs = require('fs');
    const entry = fs.statSync(pkg).isDirectory() ? path.join(pkg, 'memgate_wasm.js') : pkg;
    mod = require(entry);
    // The build has no version of its own: name it by the wasm file's digest.
    const wasmFile = entry.replace(/\.js$/, '_bg.wasm');
    const digest = require('crypto').createHash('sha256').update(fs.readFileSync(wasmFile)).digest('hex');
    PKG_VERSION = `0.1.0+sha256.${digest.slice(0, 12)}`;
    TRACES = tracesOf(mod);
    if (NO_TRACES !== null) process.stderr.write(`testee: ${NO_TRACES}\n`);
  } catch (err) {
    // What to do about it is the declaration's hint (implementations/wasm.json), which the harness adds.
    process.stderr.write(`testee: cannot load the wasm package ${pkg}: ${describe(err)}\n`);
    process.exit(LOAD_EXIT_STATUS);
  }

  let dead = false;
  process.stdout.on('error', () => process.exit(1)); // the client went away (EPIPE)
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  rl.on('line', (line) => {
    if (dead || !line.trim()) return;
    let response;
    let trapped = false;
    let request;
    try {
      request = JSON.parse(line);
    } catch (err) {
      response = badRequest(null, `not JSON: ${err.message}`);
    }
    if (response === undefined) {
      [response, trapped] = isPlainObject(request) && hasOwn(request, 'batch')
        ? handleBatch(mod, request) : handle(mod, request);
    }
    let text;
    try {
      text = JSON.stringify(response);
    } catch (err) {
      text = JSON.stringify({ id: response.id, error: { code: 'unexpected_exception', message: describe(err) } });
    }
    if (trapped) {
      dead = true;
      rl.close();
      const last = response.batch ? response.batch[response.batch.length - 1] : response;
      process.stderr.write(`testee: ${last.error.message}; exiting (status ${TRAP_EXIT_STATUS})\n`);
      process.stdout.write(text + '\n', () => process.exit(TRAP_EXIT_STATUS));
      return;
    }
    process.stdout.write(text + '\n');
  });
}

if (require.main === module) main();
module.exports = { decodeHostValue };
