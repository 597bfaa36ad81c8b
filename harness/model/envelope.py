"""Every report's ``run`` (schemas/run-envelope-v1.schema.json): the command line, the nox session, the
project's commit and whether the tree was dirty, start and end time, the seed, each implementation's
self-description. Two reports can be compared, and a run replayed, from it alone."""

from __future__ import annotations

import os
import platform
import shlex
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.model import caps
from harness.model.ledger import Ledger
from harness.model.paths import ROOT

SCHEMA = "run-envelope-v1"
_started = datetime.now(UTC)  # the process's start, near enough; main() marks it exactly


def mark_start() -> None:
    """A command starts now (``python -m harness`` calls it first)."""
    global _started
    _started = datetime.now(UTC)


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _git(*args: str) -> str | None:
    try:
        proc = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def project() -> dict[str, Any]:
    """The checkout's HEAD and whether tracked files differ from it (nulls outside a git checkout)."""
    head = _git("rev-parse", "HEAD")
    if head is None:
        return {"commit": None, "dirty": None}
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {"commit": head.strip(), "dirty": None if status is None else bool(status.strip())}


def _harness_version() -> str:
    try:
        return metadata.version("memgate-parity")
    except metadata.PackageNotFoundError:
        return "unknown"


def version_line() -> str:
    """What ``--version`` prints: the harness's version, the Python it runs on and where it was imported from."""
    where = Path(__file__).resolve().parents[1]
    return f"memgate-parity {_harness_version()} (Python {platform.python_version()}, {where})"


def descriptions(opened: dict[str, Any]) -> dict[str, Any]:
    """Each implementation's self-description (its answer to start), every string in it capped (a command testee's
    is capped as it is read: harness/model/caps.py); None for a test double without one."""
    found = {}
    for name, impl in opened.items():
        description = getattr(impl, "description", None)
        found[name] = (caps.cap_description(description)[0] if isinstance(description, dict)
                       and "version" in description else None)
    return found


def build(described: dict[str, dict[str, Any] | None], seed: int | None = None,
          ledger: Ledger | None = None) -> dict[str, Any]:
    """The envelope of a report written now, by this process, about the implementations ``described``
    (name -> self-description, as ``descriptions`` gives them); ``ledger``: the run's account of its work
    (harness/model/ledger.py), where the run sent inputs to implementations."""
    out = {
        "schema": SCHEMA,
        "command": shlex.join(getattr(sys, "orig_argv", sys.argv)),
        "session": os.environ.get("NOX_CURRENT_SESSION") or None,
        "project": project(),
        "started": _stamp(_started),
        "ended": _stamp(datetime.now(UTC)),
        "seed": seed,
        "harness": {"version": _harness_version(), "python": platform.python_version()},
        "implementations": described,
    }
    if ledger is not None:
        out["ledger"] = ledger.to_json()
    return out


def ledger_of(report: dict[str, Any]) -> Ledger | None:
    """A report's ledger (its envelope's), or None where the run kept none (a report written before ledgers, or
    of a kind that sends no inputs)."""
    run = report.get("run")
    data = run.get("ledger") if isinstance(run, dict) else None
    return None if data is None else Ledger.from_json(data)
