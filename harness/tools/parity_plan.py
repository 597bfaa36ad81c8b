"""What `nox -s parity` builds and runs, as functions the noxfile calls and the tests check.

Standard library only: the noxfile imports it from nox's own virtualenv, where the project is not
installed. It reads no declaration itself: `read_declarations` runs the harness's one reader
(harness/testees/impls.py, `python -m harness.testees.impls`) with the session's interpreter, so every
session sees the declarations the harness sees (implementations/ and the folders of PARITY_IMPLEMENTATIONS),
broken ones the same, `{python}`, `{root}` and `{here}` expanded the same. Three jobs, each a place where a
parity run could pass without testing what was asked:

* `select`: the implementations a run covers (all declared, or `--impls=`); a broken or unknown one
  that was asked for is an error, never a silent leave-out;
* `build`: every declared build command of every selected implementation, in order; a command that
  fails stops the run (`PlanError`), it never drops that implementation and goes on with the rest;
* `check_ran`: after the suites, every selected implementation ran tests (the counts the suites'
  conftest writes with `--ran-report`): an implementation with no test that passed or failed is an error.

And the Python matrix is never silently smaller: `find_python` finds each Python of the matrix where nox does not
look (pyenv's and uv's installs, off PATH), `link_pythons` puts those on PATH by their versioned names (so the
sessions stay parity-3.11, -3.12, -3.13), and `matrix`/`record_matrix` write into the run's parity-ran.json which
Pythons of the matrix ran and which were asked for and not found (the verdict's "partial matrix").
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.model import untrusted

ROOT = Path(__file__).resolve().parents[2]


class PlanError(Exception):
    """The run must stop; the message says which implementation and why."""


READER = ("-m", "harness.testees.impls")  # prints harness.testees.impls.plan() as one JSON object
READ_TIMEOUT = 300  # seconds: it imports the harness and reads a few small files


def read_declarations(python: str, environ: dict[str, str] | None = None) -> tuple[dict[str, dict], dict[str, str]]:
    """(the declarations that load, by name, the oracle first: each its `source`, `start`, `build` and `hint`,
    placeholders expanded; the broken ones: name -> file, problem and fix), as the harness reads them: its
    reader run by `python` (an interpreter with the project installed; `{python}` is that interpreter), in
    `environ` (default: this process's, PARITY_IMPLEMENTATIONS included). PlanError when they cannot be read
    at all (a folder that does not exist, not exactly one oracle: the harness's message; no project there)."""
    command = [python, *READER]
    try:
        done = subprocess.run(command, cwd=ROOT, env=environ, capture_output=True, text=True, errors="replace",
                              timeout=READ_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PlanError(f"cannot read the implementation declarations with {python}: {exc}") from None
    said = done.stderr.strip().removeprefix("error: ")
    if done.returncode != 0:
        hint = "" if done.returncode == 2 else f"; is the project installed in {python}? (`pip install -e .`)"
        raise PlanError(f"the implementation declarations do not read ({' '.join(command)}: status "
                        f"{done.returncode}): {said[-3000:] or 'no message'}{hint}")
    try:
        plan = untrusted.loads(done.stdout, want=dict)
        found, broken = plan["found"], plan["broken"]
        if not isinstance(found, dict) or not isinstance(broken, dict):
            raise TypeError("found and broken are not objects")
    except (ValueError, KeyError, TypeError) as exc:
        raise PlanError(f"{' '.join(command)} printed no plan of the declarations ({exc})") from None
    return found, broken


def select(posargs: list[str], found: dict[str, dict], broken: dict[str, str],
           require_all: bool) -> tuple[list[str], list[str]]:
    """(the implementations to build and run, warnings to show). `--impls=a,b` in `posargs` asks for
    those; without it, every declared one. Raises PlanError for an asked-for implementation that is
    broken or unknown, and, with `require_all`, for any broken declaration at all."""
    names = list(found)
    asked = False
    for arg in posargs:
        if arg.startswith("--impls="):
            names = [n for n in arg.split("=", 1)[1].split(",") if n]
            asked = True
    warnings = []
    for name, problem in broken.items():
        if name in names or (not asked and require_all):
            raise PlanError(f"{name}: broken declaration: {problem}")
        warnings.append(f"left out: {name}: broken declaration: {problem}")
    unknown = [n for n in names if n not in found]
    if unknown:
        raise PlanError(f"unknown implementation(s) {unknown}; declared: {', '.join(found)}")
    if not names:
        raise PlanError("no implementation to run")
    return names, warnings


def build(names: list[str], found: dict[str, dict], run: Callable[[list[str], dict[str, str]], Any],
          env: dict[str, str]) -> None:
    """Run every build command of every implementation in `names`, in order, with `run(command, env)`
    (nox's session.run, or subprocess in tests), as `read_declarations` gives them (placeholders expanded
    by the harness). The program a start command names bare (`node`) must be on PATH first; one named by a
    path (`{here}/bin/testee`) may be what the build makes. A command that fails (run raises, or returns a
    non-zero status) stops everything with PlanError naming the implementation: never a run without it."""
    for name in names:
        declaration = found[name]
        program = (declaration["start"].get("command") or [None])[0]
        bare = program and "/" not in program and os.sep not in program
        if bare and shutil.which(program, path=env.get("PATH")) is None:
            raise PlanError(f"{name}: `{program}` is not on PATH; {declaration['hint']}")
        for command in declaration["build"]:
            try:
                status = run(list(command), env)
            except Exception as exc:  # nox raises its own CommandFailed; any failure stops the run
                raise PlanError(f"{name}: build command {' '.join(command)} failed: {exc}") from exc
            if isinstance(status, int) and not isinstance(status, bool) and status != 0:
                raise PlanError(f"{name}: build command {' '.join(command)} exited with status {status}")


REPORTS = {  # what the parity suites write, by option, into the run's reports folder
    "--junitxml": "parity-junit.xml",
    "--ran-report": "parity-ran.json",  # per implementation: tests passed, failed, skipped (check_ran)
    "--parity-report": "parity-report.json",  # the differential suite's divergence report (v2)
    "--fixture-results": "fixture-results.json",  # implementation x fixture case: pass, fail, skip
}


def pytest_args(names: list[str], suites: tuple[str, ...], reports: Path) -> list[str]:
    """The pytest command line of the parity suites: every selected implementation, once each; every
    report into ``reports`` (only the parity session writes them: a test run writes none)."""
    return [*suites, *(f"--impl={name}" for name in names), *(f"{option}={reports / file}"
                                                             for option, file in REPORTS.items())]


def check_ran(ran_report: Path, names: list[str]) -> list[str]:
    """One problem per selected implementation that ran no test (none passed or failed), or when the
    suites wrote no counts at all."""
    try:
        counts = untrusted.read_document(ran_report, "parity-ran report")["counts"]  # parity-ran-v1
        if not isinstance(counts, dict):
            raise TypeError("its counts are not an object")
    except (ValueError, KeyError, TypeError) as exc:
        return [f"{ran_report}: the suites wrote no per-implementation counts ({exc})"]
    problems = []
    for name in names:
        got = counts.get(name, {})
        if got.get("passed", 0) + got.get("failed", 0) == 0:
            problems.append(f"{name}: asked for, but no parity test ran on it ({got or 'no test at all'})")
    return problems


def install_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """PARITY_INSTALL_TOOLCHAIN for wasm_host/build.py: passed through when set (0 turns every install off,
    even as root); else 1 as root or in CI, so that a fresh machine provisions itself."""
    environ = dict(os.environ if environ is None else environ)
    if "PARITY_INSTALL_TOOLCHAIN" in environ:
        return {"PARITY_INSTALL_TOOLCHAIN": environ["PARITY_INSTALL_TOOLCHAIN"]}
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    return {"PARITY_INSTALL_TOOLCHAIN": "1"} if environ.get("CI") == "true" or root else {}


# -- the Python matrix ------------------------------------------------------------------------------------------

VERSION_CHECK = ("-c", "import sys; print('%d.%d' % sys.version_info[:2])")
VERSION_TIMEOUT = 20  # seconds: an interpreter that says its version
UV_TIMEOUT = 60  # seconds: `uv python find` (no download: UV_PYTHON_DOWNLOADS=never)


def _says(python: str, version: str) -> bool:
    """Whether `python` runs and is Python `version` (X.Y)."""
    try:
        done = subprocess.run([python, *VERSION_CHECK], capture_output=True, text=True, errors="replace",
                              timeout=VERSION_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and done.stdout.strip() == version


def _newest_first(folders: list[Path], prefix: str, version: str) -> list[Path]:
    """The folders named `prefix` + X.Y.Z (a release, nothing after it but a `-platform` tail), newest first."""
    pattern = re.compile(re.escape(prefix + version) + r"\.(\d+)(?:-.*)?$")
    releases = [(int(found.group(1)), folder) for folder in folders if (found := pattern.match(folder.name))]
    return [folder for _, folder in sorted(releases, key=lambda pair: pair[0], reverse=True)]


def find_python(version: str, environ: dict[str, str] | None = None) -> tuple[str | None, str]:
    """(Python `version`'s interpreter, where it was found), or (None, "") when it is nowhere: `pythonX.Y` on PATH
    (where nox looks), else pyenv's newest X.Y.Z ($PYENV_ROOT/versions/, ~/.pyenv/versions/), else uv's
    (`uv python find --system X.Y` when uv is on PATH; then $UV_PYTHON_INSTALL_DIR, $XDG_DATA_HOME/uv/python or
    ~/.local/share/uv/python: cpython-X.Y.Z-*). Each one found off PATH must run and say it is X.Y."""
    environ = dict(os.environ if environ is None else environ)
    name = f"python{version}"
    on_path = shutil.which(name, path=environ.get("PATH", ""))
    if on_path:
        return on_path, "PATH"
    home = Path(environ.get("HOME") or Path.home())
    pyenv_roots = [Path(root) for root in (environ.get("PYENV_ROOT"), home / ".pyenv") if root]
    for root in dict.fromkeys(pyenv_roots):
        folders = list((root / "versions").glob(f"{version}.*")) if (root / "versions").is_dir() else []
        for folder in _newest_first(folders, "", version):
            candidate = folder / "bin" / name
            if candidate.is_file() and _says(str(candidate), version):
                return str(candidate), f"pyenv ({root})"
    uv = shutil.which("uv", path=environ.get("PATH", ""))
    if uv:
        try:
            done = subprocess.run([uv, "python", "find", "--system", version], capture_output=True, text=True,
                                  errors="replace", timeout=UV_TIMEOUT, check=False,
                                  env={**environ, "UV_PYTHON_DOWNLOADS": "never"})
            said = done.stdout.strip()
            if done.returncode == 0 and said and _says(said, version):
                return said, "uv python find"
        except (OSError, subprocess.TimeoutExpired):
            pass
    data = Path(environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    uv_dirs = [Path(folder) for folder in (environ.get("UV_PYTHON_INSTALL_DIR"), data / "uv" / "python") if folder]
    for root in dict.fromkeys(uv_dirs):
        folders = list(root.glob(f"cpython-{version}.*")) if root.is_dir() else []
        for folder in _newest_first(folders, "cpython-", version):
            candidate = folder / "bin" / name
            if candidate.is_file() and _says(str(candidate), version):
                return str(candidate), f"uv ({root})"
    return None, ""


def link_pythons(versions: tuple[str, ...], links: Path, environ: dict[str, str] | None = None
                 ) -> dict[str, tuple[str | None, str]]:
    """Find each Python of `versions` (`find_python`, on PATH without `links`) and put the ones found off PATH
    into `links` as pythonX.Y (a symlink to it; a stale one replaced, one no longer found removed), so that nox,
    with `links` on PATH (`path_with`), finds them as it finds any: by their versioned names. Returns each
    version's (interpreter, where) as `find_python` gives it."""
    environ = dict(os.environ if environ is None else environ)
    environ["PATH"] = path_without(links, environ.get("PATH", ""))
    found = {}
    for version in versions:
        python, where = find_python(version, environ)
        found[version] = (python, where)
        link = links / f"python{version}"
        if python is None or where == "PATH":
            if link.is_symlink() or link.exists():
                link.unlink()
            continue
        if link.is_symlink() and os.readlink(link) == python:
            continue
        try:
            links.mkdir(parents=True, exist_ok=True)
            fresh = links / f".python{version}.{os.getpid()}"
            fresh.unlink(missing_ok=True)
            fresh.symlink_to(python)
            os.replace(fresh, link)  # atomic: two nox processes at once each see a whole link
        except OSError as exc:  # a read-only checkout: nox will not find it, so neither does the record
            found[version] = (None, f"{python} found ({where}) but not linked into {links}: {exc.strerror or exc}")
    return found


def path_without(links: Path, path: str) -> str:
    return os.pathsep.join(entry for entry in path.split(os.pathsep) if entry and Path(entry) != links)


def path_with(links: Path, path: str) -> str:
    """PATH with `links` last (once): it adds interpreters, it never shadows one found earlier."""
    return os.pathsep.join([entry for entry in [path_without(links, path)] if entry] + [str(links)])


MATRIX_STATES = {  # a Python of the matrix, as one parity run's parity-ran.json records it
    "this run": "the Python this report's tests ran on",
    "own session": "asked for in the same nox run, its interpreter found: its own session, reports/python-X.Y/",
    "not found": "asked for, no interpreter found: its session was skipped (the verdict: partial matrix)",
    "not asked": "not selected in this nox run (`nox -s parity-X.Y` runs one)",
}


def matrix(versions: tuple[str, ...], this: str, asked: set[str],
           found: dict[str, str | None]) -> dict[str, dict[str, str | None]]:
    """The parity-ran report's `matrix`: each Python of `versions`, its state (MATRIX_STATES) and interpreter."""
    out: dict[str, dict[str, str | None]] = {}
    for version in versions:
        python = found.get(version)
        state = ("this run" if version == this else "not asked" if version not in asked
                 else "own session" if python else "not found")
        out[version] = {"state": state, "interpreter": python}
    return out


def not_run(record: dict[str, dict[str, str | None]]) -> list[str]:
    """The Pythons of a `matrix` record that were asked for and did not run."""
    return [version for version, got in record.items() if got.get("state") == "not found"]


def record_matrix(ran_report: Path, record: dict[str, dict[str, str | None]]) -> None:
    """Add `record` (`matrix`) to the run's parity-ran.json, rewritten whole (atomically). A report the suites did
    not write, or that does not read, is left as it is: check_ran names it."""
    try:
        document = untrusted.read_document(ran_report, "parity-ran report")
        if not isinstance(document, dict):
            return
    except (ValueError, KeyError, TypeError):
        return
    document["matrix"] = record
    fresh = ran_report.with_name(f".{ran_report.name}.{os.getpid()}")
    fresh.write_text(json.dumps(document, indent=2, sort_keys=True), encoding="utf-8")
    os.replace(fresh, ran_report)
