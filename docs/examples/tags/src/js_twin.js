// The example family's TypeScript-style twin in Node (docs/examples/tags): tag_normalize written the way
// JavaScript code is usually written, with the regular expression \s for White_Space. ECMAScript's \s is
// not Unicode's White_Space: it holds U+FEFF and lacks U+0085. That is the known difference this example
// shows (two classes, one per direction); everything else agrees with the reference.
'use strict';
const readline = require('readline');

const PROTOCOL = 2;
let codes = new Set();

function tagNormalize(text) {
  if (typeof text !== 'string') throw new Error(`invalid_text: text must be a string, not ${typeof text}`);
  return text.replace(/\s+/g, '-').replace(/^-+|-+$/g, '').replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function hostValue(value) {  // docs/protocol.md, host values (a tag takes strings; the rest arrives wrong-typed)
  if (Array.isArray(value)) return value.map(hostValue);
  if (value !== null && typeof value === 'object') {
    const [[tag, inner]] = Object.entries(value);
    if (tag === '$float') return Number(inner);
    if (tag === '$utf16') return String.fromCharCode(...inner);
    if (tag === '$codepoints') return inner.map((cp) => String.fromCodePoint(cp)).join('');
    if (tag === '$object') return Object.fromEntries(Object.entries(inner).map(([k, v]) => [k, hostValue(v)]));
    throw new Error(`not a host value: ${JSON.stringify(value)}`);
  }
  return value;
}

function answer(request) {
  const id = request && typeof request === 'object' ? request.id : null;
  if (request && Array.isArray(request.batch)) return { id, batch: request.batch.map(answer) };
  const args = (request && request.args) || {};
  if (request.op === 'start') {
    if (args.protocol !== PROTOCOL) return { id, error: { code: 'bad_request', message: `protocol ${args.protocol}` } };
    codes = new Set(args.codes);
    return { id, ok: { protocol: PROTOCOL, name: 'tags-js-twin', version: '1', language: `JavaScript (Node ${process.version})`,
                       unicode: {}, contracts: ['v1'] } };
  }
  if (request.op !== 'tag_normalize' || typeof args !== 'object' || Object.keys(args).some((k) => k !== 'text')
      || !('text' in args)) {
    return { id, error: { code: 'bad_request', message: `bad request: ${JSON.stringify(request).slice(0, 200)}` } };
  }
  try {
    return { id, ok: tagNormalize(hostValue(args.text)) };
  } catch (error) {
    const code = String(error.message).split(':')[0];
    return { id, error: { code: codes.has(code) ? code : 'unexpected_exception', message: String(error.message) } };
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let response;
  try {
    response = answer(JSON.parse(line));
  } catch (error) {
    response = { id: null, error: { code: 'bad_request', message: `not JSON: ${error.message}` } };
  }
  process.stdout.write(JSON.stringify(response) + '\n');
});
