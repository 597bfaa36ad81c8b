"""nox -s parity cannot pass without testing what it was asked for (harness/tools/parity_plan.py): a broken or
unknown implementation that was asked for stops it, a failing build stops it (never drops that
implementation and goes on), and an implementation that ran no test fails it. The declarations are the
harness's (read_declarations runs harness/testees/impls.py); suites/testees/test_outside_impl.py runs the
noxfile's sessions on one declared outside the project."""

from __future__ import annotations

import ast
import json
import os
import shutil
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
    # the matrix: each run's counts record it (a failing run's too: in a finally), from the interpreters found
    assert {"_matrix", "parity_plan.record_matrix"} <= calls("parity")
    assert "parity_plan.matrix" in calls("_matrix")
    recorded = [node for node in ast.walk(functions["parity"]) if isinstance(node, ast.Try)
                and any("record_matrix" in ast.unparse(stmt) for stmt in node.finalbody)]
    assert recorded and "pytest" in ast.unparse(recorded[0].body[0]), "the matrix is recorded whatever pytest did"
    module = [ast.unparse(node) for node in tree.body]
    assert any("parity_plan.link_pythons(PYTHONS" in line for line in module)  # at load: before nox resolves
    assert any("os.environ['PATH'] = parity_plan.path_with(PYTHON_LINKS" in line for line in module)
    order = [node.value.func.id for node in functions["parity"].body if isinstance(node, ast.Expr)
             and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)]
    assert order.index("_install_project") < order.index("_build_impls")  # the reader needs the project
    source = (ROOT / "noxfile.py").read_text()
    assert "\"implementations\"" not in source and "\"*.json\"" not in source  # no reader of its own


# -- the Python matrix is never silently smaller (issue 49, item 12) --------------------------------------------

def _fake_python(path: Path, says: str) -> Path:
    """An interpreter that says it is Python `says` (X.Y) when asked its version (find_python runs each found)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {says}\n")
    path.chmod(0o755)
    return path


def _bare_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """An environment whose PATH holds no Python (as .ci/run strips pyenv's) and whose home is tmp_path/home."""
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    return {"PATH": str(empty), "HOME": str(tmp_path / "home"), **extra}


def test_pyenv_pythons_off_path_are_found_newest_release_first(tmp_path: Path) -> None:
    """pyenv's interpreters (~/.pyenv/versions/X.Y.Z/bin/pythonX.Y), not on PATH: the newest release by number
    (3.12.10 after 3.12.9), one that does not say its version passed over, a free-threaded or pre-release build
    never taken; $PYENV_ROOT first."""
    versions = tmp_path / "home" / ".pyenv" / "versions"
    _fake_python(versions / "3.12.9" / "bin" / "python3.12", "3.12")
    newest = _fake_python(versions / "3.12.10" / "bin" / "python3.12", "3.12")
    _fake_python(versions / "3.12.11" / "bin" / "python3.12", "3.11")  # broken: not what its name says
    _fake_python(versions / "3.12.12t" / "bin" / "python3.12", "3.12")  # free-threaded: another build
    _fake_python(versions / "3.12-dev" / "bin" / "python3.12", "3.12")
    env = _bare_env(tmp_path)
    assert parity_plan.find_python("3.12", env) == (str(newest), f"pyenv ({tmp_path / 'home' / '.pyenv'})")
    assert parity_plan.find_python("3.13", env) == (None, "")
    other = _fake_python(tmp_path / "elsewhere" / "versions" / "3.13.0" / "bin" / "python3.13", "3.13")
    env["PYENV_ROOT"] = str(tmp_path / "elsewhere")
    assert parity_plan.find_python("3.13", env)[0] == str(other)
    on_path = _fake_python(tmp_path / "empty-bin" / "python3.12", "3.12")  # on PATH: nox finds it itself
    assert parity_plan.find_python("3.12", env) == (str(on_path), "PATH")


def test_uv_pythons_off_path_are_found(tmp_path: Path) -> None:
    """uv's: `uv python find --system X.Y` when uv is on PATH (no download), else its install folder."""
    data = tmp_path / "home" / ".local" / "share" / "uv" / "python"
    managed = _fake_python(data / "cpython-3.13.1-linux-x86_64-gnu" / "bin" / "python3.13", "3.13")
    _fake_python(data / "cpython-3.13.2+freethreaded-linux-x86_64-gnu" / "bin" / "python3.13", "3.13")
    env = _bare_env(tmp_path)
    assert parity_plan.find_python("3.13", env) == (str(managed), f"uv ({data})")
    told = _fake_python(tmp_path / "uv-said" / "python3.13", "3.13")
    uv = tmp_path / "empty-bin" / "uv"
    uv.write_text(f"#!/bin/sh\n[ \"$UV_PYTHON_DOWNLOADS\" = never ] && [ \"$*\" = 'python find --system 3.13' ] "
                  f"&& echo {told}\n")
    uv.chmod(0o755)
    assert parity_plan.find_python("3.13", env) == (str(told), "uv python find")
    assert parity_plan.find_python("3.12", env) == (None, "")


def test_pythons_found_off_path_are_linked_by_their_versioned_names(tmp_path: Path) -> None:
    """link_pythons puts each one found off PATH into a folder as pythonX.Y, which path_with puts last on PATH:
    nox then finds it as it finds any, and the sessions keep their names (parity-3.12). One on PATH is not linked;
    one no longer found is unlinked."""
    pyenv = _fake_python(tmp_path / "home" / ".pyenv" / "versions" / "3.12.1" / "bin" / "python3.12", "3.12")
    on_path = _fake_python(tmp_path / "empty-bin" / "python3.11", "3.11")
    links = tmp_path / "links"
    env = _bare_env(tmp_path)
    found = parity_plan.link_pythons(("3.11", "3.12", "3.13"), links, env)
    assert found == {"3.11": (str(on_path), "PATH"), "3.12": (str(pyenv), f"pyenv ({tmp_path / 'home' / '.pyenv'})"),
                     "3.13": (None, "")}
    path = parity_plan.path_with(links, env["PATH"])
    assert path.split(os.pathsep) == [env["PATH"], str(links)]
    assert parity_plan.path_with(links, path) == path  # once
    assert Path(str(shutil.which("python3.12", path=path))).resolve() == pyenv
    assert shutil.which("python3.11", path=path) == str(on_path) and shutil.which("python3.13", path=path) is None
    # found again with the links on PATH already: the same, never the link itself
    assert parity_plan.link_pythons(("3.12",), links, {**env, "PATH": path})["3.12"][0] == str(pyenv)
    shutil.rmtree(tmp_path / "home")
    assert parity_plan.link_pythons(("3.12",), links, env)["3.12"] == (None, "")
    assert not (links / "python3.12").is_symlink()
    # a folder it cannot link into: not found (nox would not find it either), and why
    _fake_python(tmp_path / "home" / ".pyenv" / "versions" / "3.12.1" / "bin" / "python3.12", "3.12")
    (tmp_path / "a-file").write_text("")
    python, why = parity_plan.link_pythons(("3.12",), tmp_path / "a-file" / "links", env)["3.12"]
    assert python is None and "but not linked into" in why


def test_the_matrix_is_recorded_in_the_runs_counts(tmp_path: Path) -> None:
    """Each Python of the matrix in parity-ran.json: this run's, the ones this nox run asked for (found: their own
    sessions; not found: skipped, a partial matrix), the ones it did not ask for; the report still validates."""
    record = parity_plan.matrix(("3.11", "3.12", "3.13"), "3.11", {"3.11", "3.12", "3.13"},
                                {"3.11": "/usr/bin/python3.11", "3.12": None, "3.13": None})
    assert record == {"3.11": {"state": "this run", "interpreter": "/usr/bin/python3.11"},
                      "3.12": {"state": "not found", "interpreter": None},
                      "3.13": {"state": "not found", "interpreter": None}}
    assert parity_plan.not_run(record) == ["3.12", "3.13"]
    one = parity_plan.matrix(("3.11", "3.12", "3.13"), "3.12", {"3.12"}, {"3.12": "/p/python3.12"})
    assert [got["state"] for got in one.values()] == ["not asked", "this run", "not asked"]
    assert parity_plan.not_run(one) == []  # `nox -s parity-3.12` asked for one: not a partial matrix
    found = parity_plan.matrix(("3.11", "3.12"), "3.11", {"3.11", "3.12"}, {"3.11": "/a", "3.12": "/b"})
    assert found["3.12"]["state"] == "own session"
    ran = tmp_path / "parity-ran.json"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "suites/parity/test_fixtures.py", "-k", "norm-ascii-lowercase", "--impl=reference",
                           f"--ran-report={ran}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    parity_plan.record_matrix(ran, record)
    written = json.loads(ran.read_text())
    assert written["matrix"] == record and written["counts"]["reference"]["passed"] >= 1
    assert problems(written) == []
    assert problems({**written, "matrix": {"3.12": {"state": "skipped", "interpreter": None}}}) != []
    parity_plan.record_matrix(tmp_path / "missing.json", record)  # no counts written: left to check_ran
    assert not (tmp_path / "missing.json").exists()
