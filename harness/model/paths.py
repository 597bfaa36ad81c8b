"""Where things are: one place for every path the harness reads or writes.

Two roots, as pytest has its own code and a rootdir:

* the harness's own data (``SCHEMAS``, ``DATA``: JSON Schemas, Unicode tables, NormalizationTest files)
  ships with it: in an installed wheel under ``harness/resources/`` (pyproject.toml maps the checkout's
  ``schemas/`` and ``data/`` there), in a source checkout at the checkout's root;
* the project it checks (``ROOT``: its declarations, fixtures, expected lists and reports) is found, in this
  order, from ``PARITY_PROJECT`` (``--project DIR`` sets it), then from the working directory and each of its
  parents (the first folder holding ``implementations/`` beside ``fixtures/`` or ``expected/``), then, when the
  harness runs from a source checkout, that checkout. ``project_problem()`` says why none was found; the
  commands that need a project stop with it (status 2).
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # the harness package (harness/)
SOURCE = PACKAGE.parent  # a source checkout's root, when the harness runs from one
ENV = "PARITY_PROJECT"  # --project DIR sets it, before this module is imported


def resource(name: str) -> Path:
    """The harness's own data folder ``name``: in a wheel under harness/resources/, else in the checkout."""
    installed = PACKAGE / "resources" / name
    return installed if installed.is_dir() else SOURCE / name


def is_project(folder: Path) -> bool:
    """A project folder: its declarations (``implementations/``) beside its fixtures or expected lists."""
    return (folder / "implementations").is_dir() and ((folder / "fixtures").is_dir() or (folder / "expected").is_dir())


def find_project(start: Path) -> Path | None:
    """The first project folder from ``start`` up (``start`` itself included), or None."""
    start = start.resolve()
    return next((folder for folder in (start, *start.parents) if is_project(folder)), None)


def _project() -> tuple[Path, str | None]:
    """(the project root, why it is not a project or None)."""
    named = os.environ.get(ENV)
    if named:
        folder = Path(named).expanduser().resolve()
        if not is_project(folder):
            return folder, (f"{ENV}={named} (--project): {folder} is not a project folder (it needs "
                            "implementations/ beside fixtures/ or expected/)")
        return folder, None
    try:
        here = Path.cwd()
    except OSError:  # a working directory removed under the process
        here = None
    found = find_project(here) if here is not None else None
    if found is not None:
        return found, None
    if is_project(SOURCE):  # run from a source checkout, from anywhere
        return SOURCE, None
    return (here or SOURCE), (f"no project found from {here} up (a folder holding implementations/ beside "
                              "fixtures/ or expected/): run the harness inside a project, or name one with "
                              f"--project DIR (or {ENV})")


SCHEMAS = resource("schemas")  # every JSON Schema of the harness
DATA = resource("data")  # data tables the harness reads (Unicode tables and ages, NormalizationTest.txt)
ROOT, PROBLEM = _project()  # the project root, and why it is not one (None when it is)
FIXTURES = ROOT / "fixtures"  # fixture files and their release pins
IMPLEMENTATIONS = ROOT / "implementations"  # one declaration per implementation
EXPECTED = ROOT / "expected"  # expected-divergence lists
REPORTS = ROOT / "reports"  # what runs write (gitignored)


def project_problem() -> str | None:
    """Why there is no project to check (``PROBLEM``), or None."""
    return PROBLEM


def data_problem() -> str | None:
    """Why the harness's own data is not there (a broken install, a checkout missing its folders), or None."""
    missing = [str(folder) for folder in (SCHEMAS, DATA) if not folder.is_dir()]
    if missing:
        return (f"the harness's own data is missing ({', '.join(missing)}): reinstall memgate-parity, or restore "
                "schemas/ and data/ in the checkout from version control")
    return None
