"""The layers of the Python code (pyproject.toml, [tool.importlinter]) hold, and an upward import planted
in a copy of the tree breaks them: `lint-imports` must fail on it, naming the import."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")


def lint(tree: Path) -> subprocess.CompletedProcess[str]:
    if LINT is None:
        pytest.fail("lint-imports is not installed (pip install -e '.[test]' installs import-linter)")
    env = dict(os.environ, PYTHONPATH=str(tree))
    return subprocess.run([LINT, "--config", str(tree / "pyproject.toml"), "--no-cache"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def copy_tree(tmp_path: Path) -> Path:
    for name in ("harness", "generators", "reference"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_layers_are_kept(tmp_path: Path) -> None:
    result = lint(copy_tree(tmp_path))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "2 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(("module", "upward"), [
    ("harness/model/registry.py", "from harness.testees import impls"),  # the contract model reaching up
    ("harness/testees/impls.py", "from harness.fixtures.load import all_cases"),
    ("generators/framework.py", "from harness.fixtures import lint"),  # the old harness <-> generators cycle
])
def test_an_upward_import_breaks_them(tmp_path: Path, module: str, upward: str) -> None:
    tree = copy_tree(tmp_path)
    target = tree / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n\ndef planted():\n    {upward}\n", encoding="utf-8")
    result = lint(tree)
    assert result.returncode != 0, result.stdout[-3000:]
    assert "BROKEN" in result.stdout and upward.split()[1] in result.stdout, result.stdout[-3000:]


@pytest.mark.parametrize(("module", "planted"), [
    ("harness/testees/protocol.py", "import subprocess"),  # a process inside Pyodide
    ("harness/model/hostvalues.py", "import jsonschema"),  # not in Pyodide's standard library
    ("harness/testees/inprocess.py", "from harness.testees import command"),  # threads, through the client
])
def test_process_machinery_on_the_pyodide_path_breaks_them(tmp_path: Path, module: str, planted: str) -> None:
    """pyodide_host/boot.py imports the protocol's server side inside Pyodide: an import of process
    machinery there, direct or not, is refused before it fails a Pyodide start."""
    tree = copy_tree(tmp_path)
    target = tree / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n\ndef planted():\n    {planted}\n", encoding="utf-8")
    result = lint(tree)
    assert result.returncode != 0, result.stdout[-3000:]
    assert "the protocol's server side runs inside Pyodide BROKEN" in result.stdout, result.stdout[-3000:]


def test_the_harness_never_imports_the_suites() -> None:
    """The suites test the harness, never the other way round: an installed harness has no suites/ (its
    maintainer tools' test doubles, such as the hostile testee, live in harness/tools/)."""
    import re

    root = Path(__file__).resolve().parents[2]
    found = [f"{path.relative_to(root)}:{number}" for path in sorted((root / "harness").rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.match(r"\s*(from|import)\s+suites\b", line)]
    assert found == []


def test_the_harness_own_tests_are_laid_out_by_the_part_they_test() -> None:
    """suites/parity/ is what nox -s parity runs; every other test lives in the folder of the part of the harness
    it tests (each folder's __init__.py says which), none at the top of suites/."""
    import ast

    suites = ROOT / "suites"
    assert sorted(p.name for p in suites.glob("test_*.py")) == [], "a test at the top of suites/: give it a folder"
    folders = sorted(p for p in suites.iterdir() if p.is_dir() and p.name not in ("fakes", "__pycache__"))
    assert {"parity", "classes", "cli", "fuzzing", "testees", "model"} <= {p.name for p in folders}
    for folder in folders:
        init = folder / "__init__.py"
        assert init.is_file(), folder
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), f"{init}: say what it tests"
        assert list(folder.glob("test_*.py")), f"{folder}: no tests"
