"""nox -s parity cannot pass without testing what it was asked for (harness/tools/parity_plan.py): a broken or
unknown implementation that was asked for stops it, a failing build stops it (never drops that
implementation and goes on), and an implementation that ran no test fails it. The declarations are the
harness's (read_declarations runs harness/testees/impls.py); suites/testees/test_outside_impl.py runs the
noxfile's sessions on one declared outside the project."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.model.schemas import problems
from harness.tools import parity_plan
from harness.tools.parity_plan import PlanError

ROOT = Path(__file__).resolve().parents[2]


def _declare(folder: Path, name: str, build: list[list[str]], start: list[str] | None = None,
             hint: str = "") -> None:
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps({
        "schema": "implementation-v1", "name": name, "description": "a test declaration", "language": "Python",
        "oracle": False, "contracts": ["v1"], "start": {"command": start or ["{python}", "-c", "pass"]},
        "build": build, "expected": None, "deadlines": {"startup": 10, "request": 10},
        "hint": hint or f"build {name}"}))


def _read(folder: Path) -> tuple[dict[str, dict], dict[str, str]]:
    """The declarations as nox gets them: the project's and those of `folder` (PARITY_IMPLEMENTATIONS)."""
    return parity_plan.read_declarations(sys.executable, dict(os.environ, PARITY_IMPLEMENTATIONS=str(folder)))


def _subprocess_run(command: list[str], env: dict[str, str]) -> int:
    return subprocess.run(command, env=env, check=False).returncode


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    decl = tmp_path / "implementations"
    _declare(decl, "good", [["{python}", "-c", "open('{here}/good-built', 'w')"]])
    _declare(decl, "broken-build", [["{python}", "-c", "raise SystemExit(3)"]])
    _declare(decl, "later", [["{python}", "-c", "open('{here}/later-built', 'w')"]])
    (decl / "unreadable.json").write_text("{not json")
    return decl


def test_a_failing_build_stops_the_run_and_names_the_implementation(folder: Path) -> None:
    found, _ = _read(folder)
    env = {"PATH": str(Path(sys.executable).parent)}
    with pytest.raises(PlanError, match="broken-build: build command .* exited with status 3"):
        parity_plan.build(["good", "broken-build", "later"], found, _subprocess_run, env)
    assert (folder / "good-built").exists() and not (folder / "later-built").exists()  # {here}: its folder


def test_a_runner_that_raises_stops_the_run(folder: Path) -> None:
    """nox's session.run raises on a failing command; that must stop the run too, named."""
    found, _ = _read(folder)

    def nox_like(command: list[str], env: dict[str, str]) -> None:
        if _subprocess_run(command, env):
            raise RuntimeError("Returned code 3")

    with pytest.raises(PlanError, match="broken-build: build command .* failed: Returned code 3"):
        parity_plan.build(["broken-build"], found, nox_like, {"PATH": ""})


def test_a_start_program_missing_from_path_is_named(folder: Path) -> None:
    _declare(folder, "nowhere", [], start=["no-such-program-x"], hint="install it")
    _declare(folder, "made", [["{python}", "-c", "open('{here}/made-testee', 'w')"]], start=["{here}/made-testee"])
    found, _ = _read(folder)
    with pytest.raises(PlanError, match="nowhere: `no-such-program-x` is not on PATH; install it"):
        parity_plan.build(["nowhere"], found, _subprocess_run, {"PATH": "/nonexistent"})
    parity_plan.build(["made"], found, _subprocess_run, {"PATH": "/nonexistent"})  # a path: the build makes it
    assert (folder / "made-testee").exists()


def test_selection(folder: Path) -> None:
    found, broken = _read(folder)
    assert set(broken) == {"unreadable"} and str(folder / "unreadable.json") in broken["unreadable"]
    names, warnings = parity_plan.select([], found, broken, require_all=False)
    assert names[0] == "reference" and {"broken-build", "good", "later"} <= set(names)  # the oracle first
    assert warnings and "unreadable" in warnings[0]
    assert parity_plan.select(["--impls=good"], found, broken, require_all=True)[0] == ["good"]
    with pytest.raises(PlanError, match="unreadable: broken declaration"):
        parity_plan.select([], found, broken, require_all=True)
    with pytest.raises(PlanError, match="unreadable: broken declaration"):
        parity_plan.select(["--impls=good,unreadable"], found, broken, require_all=False)
    with pytest.raises(PlanError, match="unknown implementation"):
        parity_plan.select(["--impls=good,ghost"], found, broken, require_all=False)


def test_every_selected_implementation_goes_to_pytest(tmp_path: Path) -> None:
    args = parity_plan.pytest_args(["a", "b", "c"], ("suites/x.py",), tmp_path)
    assert [arg for arg in args if arg.startswith("--impl=")] == ["--impl=a", "--impl=b", "--impl=c"]
    assert f"--parity-report={tmp_path / 'parity-report.json'}" in args
    assert f"--fixture-results={tmp_path / 'fixture-results.json'}" in args


def test_an_implementation_that_ran_no_test_fails(tmp_path: Path) -> None:
    ran = tmp_path / "ran.json"
    ran.write_text(json.dumps({"schema": "parity-ran-v1", "counts": {
        "reference": {"passed": 5, "failed": 0, "skipped": 1}, "wasm": {"passed": 0, "failed": 0, "skipped": 9}}}))
    assert parity_plan.check_ran(ran, ["reference"]) == []
    problems = parity_plan.check_ran(ran, ["reference", "wasm", "pyo3"])
    assert len(problems) == 2 and problems[0].startswith("wasm:") and problems[1].startswith("pyo3:")
    assert "wrote no per-implementation counts" in parity_plan.check_ran(tmp_path / "missing.json", ["reference"])[0]


def test_the_suites_write_the_counts(tmp_path: Path) -> None:
    ran = tmp_path / "ran.json"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "suites/parity/test_fixtures.py", "-k", "norm-ascii-lowercase", "--impl=reference",
                           f"--ran-report={ran}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    written = json.loads(ran.read_text())
    assert written["counts"]["reference"]["passed"] >= 1
    assert problems(written) == []  # parity-ran-v1, its run named


def test_the_parity_session_uses_the_plan() -> None:
    """The noxfile's parity session goes through select, build, pytest_args and check_ran (read from its
    syntax tree: the noxfile needs nox, which the test environment does not install)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text())
    functions = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}

    def calls(function: str) -> set[str]:
        return {f"{node.func.value.id}.{node.func.attr}" if isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) else getattr(node.func, "id", "")
                for node in ast.walk(functions[function]) if isinstance(node, ast.Call)}

    assert {"_install_project", "_impls_from_posargs", "_build_impls", "parity_plan.pytest_args",
            "parity_plan.check_ran"} <= calls("parity")
    assert {"parity_plan.select", "_declared"} <= calls("_impls_from_posargs")
    assert {"parity_plan.build", "_declared"} <= calls("_build_impls")
    assert "parity_plan.read_declarations" in calls("_declared")  # the harness's reader, nowhere else
    order = [node.value.func.id for node in functions["parity"].body if isinstance(node, ast.Expr)
             and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)]
    assert order.index("_install_project") < order.index("_build_impls")  # the reader needs the project
    source = (ROOT / "noxfile.py").read_text()
    assert "\"implementations\"" not in source and "\"*.json\"" not in source  # no reader of its own
