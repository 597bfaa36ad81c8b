"""A bytecode cache for the test session's subprocesses when the environment forbids writing one.

With ``PYTHONDONTWRITEBYTECODE`` set (these machines set it) every ``python -m harness ...`` a test runs compiled
the harness's modules again: about 0.8 s of CPU of a 1.5 s command. suites/conftest.py runs this file once per
session (its controller) with ``PYTHONPYCACHEPREFIX`` set to a folder outside the project and writing allowed,
then gives the session's subprocesses that prefix, writing still forbidden. So they read bytecode and write none.

The project's own files (harness/, reference/, suites/, families/, generators/) are compiled as checked-hash pycs: each
import hashes the source, so a file edited since, or a plant copied over it, is never run from stale bytecode.
Everything else they import (the standard library, site-packages, which do not change under a session) is
written by importing the harness's modules here, as ordinary timestamp pycs, and so are the files of the modules
the pytest controller has loaded (pytest, its plugins, Hypothesis), named one a line on stdin, for the xdist
workers and the child pytest runs. A copy of the harness in a tmp
folder (a plant) has no bytecode in the prefix and is compiled as before.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import py_compile
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {"node_modules", ".venv", ".nox", ".git", "__pycache__", "reports", "target"}


def project_sources() -> list[Path]:
    folders = [ROOT / name for name in ("harness", "reference", "suites", "families", "generators")]
    return sorted(path for folder in folders if folder.is_dir()
                  for path in folder.rglob("*.py") if not SKIP.intersection(path.parts))


def _fresh(source: Path) -> bool:
    """Its pyc in the prefix is a checked-hash one of this very source."""
    try:
        header = Path(importlib.util.cache_from_source(str(source))).read_bytes()[:16]
        data = source.read_bytes()
    except OSError:
        return False
    return (header[:4] == importlib.util.MAGIC_NUMBER and int.from_bytes(header[4:8], "little") == 0b11
            and header[8:16] == importlib.util.source_hash(data))


def main() -> int:
    if not sys.pycache_prefix or sys.flags.dont_write_bytecode:
        print("run with PYTHONPYCACHEPREFIX set and bytecode writing allowed", file=sys.stderr)
        return 2
    for source in project_sources():
        if not _fresh(source):
            try:
                py_compile.compile(str(source), invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
                                   doraise=True)
            except py_compile.PyCompileError:
                pass  # a file being edited: it is compiled where it is imported, as before
    for line in sys.stdin.read().splitlines():
        other = Path(line)
        installed = {Path(sys.prefix), Path(sys.base_prefix)}.intersection(other.parents)  # not a tmp plant
        if other.suffix == ".py" and other.is_file() and installed:
            cached = Path(importlib.util.cache_from_source(str(other)))
            try:
                stamp = int(other.stat().st_mtime) & 0xFFFF_FFFF
                if cached.read_bytes()[8:12] == stamp.to_bytes(4, "little"):
                    continue
            except OSError:
                pass
            try:
                py_compile.compile(str(other), doraise=True)  # timestamp-checked: these do not change
            except py_compile.PyCompileError:
                pass
    sys.path.insert(0, str(ROOT))
    for package in ("reference", "harness"):
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, package + "."):
            if info.name.rsplit(".", 1)[-1] == "__main__":
                continue
            try:
                importlib.import_module(info.name)
            except BaseException:  # noqa: BLE001  (a module that needs what is not here: its imports so far count)
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
