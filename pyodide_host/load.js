// Loads the project's Python reference into Pyodide (CPython compiled to WebAssembly) under Node.
//
// Writes the project's `reference/` and `harness/` Python files and its op families (`families/*.json`)
// into Pyodide's in-memory file system,
// with the `unicodedata2` stand-in (pyodide_host/unicodedata2_stand_in.py, written as unicodedata2.py) and the boot module
// (pyodide_host/boot.py), and imports the boot module. The npm package `pyodide` is pinned in
// pyodide_host/package.json and package-lock.json and installed with `npm ci` by
// pyodide_host/build.py; nothing is fetched at run time (Pyodide loads no packages here).
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const SITE = '/memgate'; // where the project's files go inside Pyodide
const PACKAGES = ['reference', 'harness']; // the reference, and the protocol's server side it is served by
const STAND_INS = `${SITE}/stand-ins`;

class LoadError extends Error {}

function pythonFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name === '__pycache__') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...pythonFiles(full));
    else if (entry.name.endsWith('.py')) out.push(full);
  }
  return out;
}

function projectVersion() {
  const match = /^version\s*=\s*"([^"]+)"/m.exec(fs.readFileSync(path.join(ROOT, 'pyproject.toml'), 'utf8'));
  return match ? match[1] : '0';
}

// Resolves to {pyodide, boot, seconds}: boot is the Python module pyodide_host/boot.py, started.
async function loadReference() {
  const started = process.hrtime.bigint();
  let loadPyodide;
  try {
    ({ loadPyodide } = require('pyodide'));
  } catch (err) {
    throw new LoadError(`the npm package pyodide is not installed in ${path.join(__dirname, 'node_modules')} ` +
                        `(${err.message.split('\n')[0]}); install it with \`python pyodide_host/build.py\` ` +
                        '(npm ci from pyodide_host/package-lock.json) or `nox -s build-pyodide`');
  }
  // Whatever Python prints goes to stderr: stdout carries the protocol only.
  const toStderr = (text) => process.stderr.write(`${text}\n`);
  const pyodide = await loadPyodide({ stdout: toStderr, stderr: toStderr });
  const digest = crypto.createHash('sha256');
  const put = (target, file) => {
    const content = fs.readFileSync(file);
    pyodide.FS.mkdirTree(path.posix.dirname(target));
    pyodide.FS.writeFile(target, content);
    digest.update(`${target}\0`).update(content);
  };
  for (const pkg of PACKAGES) {
    for (const file of pythonFiles(path.join(ROOT, pkg))) {
      put(`${SITE}/${path.relative(ROOT, file).split(path.sep).join('/')}`, file);
    }
  }
  // the op families the registry is built from (families/*.json): the harness that starts this testee has
  // checked them against their schema
  for (const file of fs.readdirSync(path.join(ROOT, 'families')).filter((name) => name.endsWith('.json')).sort()) {
    put(`${SITE}/families/${file}`, path.join(ROOT, 'families', file));
  }
  put(`${STAND_INS}/unicodedata2.py`, path.join(__dirname, 'unicodedata2_stand_in.py'));
  put(`${SITE}/memgate_pyodide_boot.py`, path.join(__dirname, 'boot.py'));
  pyodide.runPython(`import sys; sys.path[:0] = [${JSON.stringify(STAND_INS)}, ${JSON.stringify(SITE)}]`);
  const boot = pyodide.pyimport('memgate_pyodide_boot');
  boot.start(`${projectVersion()}+sha256.${digest.digest('hex').slice(0, 12)}`, pyodide.version);
  return { pyodide, boot, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

module.exports = { LoadError, loadReference };
