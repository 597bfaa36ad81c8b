"""The requirements of the op families' references (family-v2 ``"requires"``), for the nox sessions: each
session installs them into its environment before it plans, since the harness imports every family's reference
when it builds its op registry (``nox -s parity`` reads the declarations through it).

Standard library only: noxfile.py imports this in nox's own interpreter, where the project is not installed.
``collect`` is a pure function of the family files and constraints.txt's text:

* every pinned requirement the files declare, in file order, each once (family-v1 files declare none);
* an entry that is not a PEP 508 requirement pinned with ``==`` is a FamilyError (status 2) naming the family
  file and the entry;
* a package constraints.txt pins too is installed at its pin there (every install of a session is held to
  constraints.txt through PIP_CONSTRAINT): a family pinning it to another version is a FamilyError naming both;
  a package constraints.txt does not hold is installed at the family's own pin.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from harness.model import families

# A pinned line of constraints.txt (uv pip compile's output): name==version, an optional marker, a comment.
_PINNED = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;#]+)")


def constraint_pins(text: str) -> dict[str, set[str]]:
    """Each package constraints.txt's text pins (its name as pip compares names) -> the versions it pins it to
    (two where markers pin it per Python)."""
    pins: dict[str, set[str]] = {}
    for line in text.splitlines():
        match = _PINNED.match(line)
        if match:
            pins.setdefault(families.project_name(match.group(1)), set()).add(match.group(2))
    return pins


def collect(files: Iterable[Path], constraints: str) -> list[str]:
    """Every requirement of the family files' references, in file order, each once; a FamilyError for an entry
    that is not pinned, or whose pin constraints.txt contradicts."""
    pins = constraint_pins(constraints)
    out: list[str] = []
    for path in files:
        for index, requirement in enumerate(families.pinned_requirements(path)):
            name, version = families.pin(requirement)
            if name in pins and version not in pins[name]:
                held = ", ".join(f"{name}=={pinned}" for pinned in sorted(pins[name]))
                raise families.FamilyError(
                    f"family file {path}: requires/{index}: {requirement!r}, but constraints.txt pins {held} (every "
                    f"package of the harness's environment is held to it); fix: pin the version constraints.txt "
                    f"has, or move constraints.in's pin and re-lock (nox -s lock)")
            if requirement not in out:
                out.append(requirement)
    return out


def example_family_files(root: Path) -> list[Path]:
    """The family files of the documented example families (docs/examples/<name>/families/), whose tests
    `nox -s tests` runs: their references' requirements are installed there too."""
    return sorted((root / "docs" / "examples").glob("*/families/*.json"))
