#!/usr/bin/env python3
"""Install the pinned Pyodide for the reference-on-Pyodide testee, and check that it starts (stdlib only).

Steps:
1. Node.js (20 or newer) and npm on PATH, else exit 2 naming what is missing.
2. ``npm ci`` in pyodide_host/: exactly the versions of package-lock.json (the npm package ``pyodide``,
   pinned), from the npm registry, with install scripts off. With CI=true (or ``--cold``) npm gets an
   empty cache, so the download is really made, as on a fresh machine; unless PARITY_NPM_WARM=1 (the
   GitHub workflow, whose ~/.npm a cache keeps: .ci/run proves the cold path there).
3. A smoke start of pyodide_host/testee.js: the `start` handshake, answered with the testee's
   self-description (CPython and Pyodide versions, the Unicode versions the reference reports there).

Exit status: 0 ready; 1 a step failed; 2 Node.js or npm is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIN_NODE = 20  # and any newer: the testee runs on 20 and on the LTS 24 (nox -s parity-node, harness/tools/node_lts.py)
START = {"id": "smoke", "op": "start", "args": {"protocol": 2, "ops": {}, "codes": []}}


def log(message: str) -> None:
    print(f"[build-pyodide] {message}", flush=True)


def fail(message: str, status: int = 1) -> None:
    print(f"[build-pyodide] ERROR: {message}", file=sys.stderr, flush=True)
    sys.exit(status)


def check_tools() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    missing = [name for name, path in (("node", node), ("npm", npm)) if path is None]
    if missing:
        fail(f"{' and '.join(missing)} not found on PATH: install Node.js {MIN_NODE} or newer, e.g. the LTS 22 or 24 "
             "(it comes with npm; Debian: `apt-get install nodejs npm`)", 2)
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    try:
        major = int(version.lstrip("v").split(".")[0])
    except ValueError:
        major = 0
    if major < MIN_NODE:
        fail(f"Node.js {version or '(unknown version)'} is too old: the testee needs Node.js {MIN_NODE} or newer", 2)
    log(f"node {version}, "
        f"npm {subprocess.run([npm, '--version'], capture_output=True, text=True, check=False).stdout.strip()}")
    return node, npm  # type: ignore[return-value]


def npm_ci(npm: str, cold: bool) -> None:
    pinned = json.loads((HERE / "package-lock.json").read_text(encoding="utf-8"))["packages"]["node_modules/pyodide"]
    log(f"npm ci: pyodide {pinned['version']} ({pinned['integrity'][:22]}...) from package-lock.json")
    with tempfile.TemporaryDirectory(prefix="npm-cache-") as cache:
        command = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"] + (["--cache", cache] if cold else [])
        log("$ " + " ".join(command) + (" (empty npm cache: the cold path)" if cold else ""))
        started = time.monotonic()
        if subprocess.run(command, cwd=HERE, check=False).returncode != 0:
            fail("npm ci failed (above): the npm registry must be reachable, and package-lock.json must match "
                 "package.json (to change the pin: edit package.json, run `npm install` in pyodide_host/, commit both)")
        log(f"npm ci took {time.monotonic() - started:.1f} s")


def smoke(node: str) -> None:
    started = time.monotonic()
    proc = subprocess.run([node, str(HERE / "testee.js")], input=json.dumps(START) + "\n", capture_output=True,
                          text=True, timeout=120, check=False)
    lines = proc.stdout.strip().splitlines()
    try:
        answer = json.loads(lines[0])["ok"]
    except (IndexError, ValueError, KeyError, TypeError):
        fail(f"the testee did not answer start (exit status {proc.returncode}); stdout: {proc.stdout[:300]!r}; "
             f"stderr: {proc.stderr.strip()[-800:]}")
    log(f"started in {time.monotonic() - started:.1f} s: {answer['language']}")
    log(f"unicode: {json.dumps(answer['unicode'], sort_keys=True)}; version {answer['version']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", action="store_true", help="npm ci with an empty cache (default when CI=true, "
                        "unless PARITY_NPM_WARM=1)")
    parser.add_argument("--check", action="store_true", help="only check the installed package (no npm ci)")
    args = parser.parse_args(argv)
    node, npm = check_tools()
    if not args.check:
        npm_ci(npm, args.cold or (os.environ.get("CI") == "true" and os.environ.get("PARITY_NPM_WARM") != "1"))
    elif not (HERE / "node_modules" / "pyodide").is_dir():
        fail("pyodide is not installed in pyodide_host/node_modules: run `python pyodide_host/build.py`")
    smoke(node)
    return 0


if __name__ == "__main__":
    sys.exit(main())
