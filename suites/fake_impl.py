"""The fake implementation of the harness's own tests (suites/fakes/fake_testee.py, a command testee with a bug
planted on request): ``declare`` writes its declaration into a temporary folder, ``run`` runs the harness with
that folder in PARITY_IMPLEMENTATIONS."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "suites" / "fakes" / "fake_testee.py"


def declare(folder: Path, name: str = "fake", bug: str = "", **changes: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    declaration = {
        "schema": "implementation-v1",
        "name": name,
        "description": "a fake implementation (test double)",
        "language": "Python",
        "oracle": False,
        "contracts": ["v1"],
        "start": {"command": ["{python}", str(FAKE)], "env": {"FAKE_BUG": bug}},
        "build": [],
        "expected": None,
        "deadlines": {"startup": 30, "request": 10},
        "hint": "suites/fakes/fake_testee.py is part of the test suite",
        **changes,
    }
    path = folder / f"{name}.json"
    path.write_text(json.dumps(declaration, indent=2), encoding="utf-8")
    return path


def run(folder: Path, *command: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PARITY_IMPLEMENTATIONS=str(folder), HYPOTHESIS_PROFILE="ci")
    return subprocess.run([sys.executable, *command], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def planted_reference(tmp_path: Path, mutation: Any) -> object:
    """The reference with one of the plants' mutations (harness/tools/plants.py) applied, loaded in this
    process under a package name of its own (one per call: two plants in one session never share a module),
    traces and all, as an in-process implementation named "reference" (a plant without a scratch tree)."""
    import importlib
    import shutil
    import zlib

    name = f"planted_reference_{zlib.crc32(f'{tmp_path}:{mutation.name}'.encode()):08x}"

    from harness.testees.impls import get_impl
    from harness.testees.inprocess import InProcess

    copy = tmp_path / name
    shutil.copytree(ROOT / "reference", copy, ignore=shutil.ignore_patterns("__pycache__"))
    source = copy / Path(mutation.file).relative_to("reference")
    text = source.read_text(encoding="utf-8")
    for old, new in ((mutation.old, mutation.new), *mutation.more):
        assert text.count(old) == 1, f"the plant's text moved in {mutation.file}"
        text = text.replace(old, new)
    source.write_text(text, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))
    clean = get_impl("reference")
    return InProcess("reference", lambda op: getattr(module, op.name), tracer=module.trace,
                     description={**clean.description, "traces": list(module.TRACED)})
