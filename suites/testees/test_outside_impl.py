"""An implementation declared outside the project (PARITY_IMPLEMENTATIONS) is seen by every reader as the
harness sees it: docs/implementers.md's lines ("An implementation outside the project") run as written,
`python -m harness impls|selftest|check` and the noxfile's own `parity` session (run here with a stand-in
for nox's Session: the test environment has no nox), whose plan comes from the harness's one reader
(harness/testees/impls.py), `{here}` expanded in start and build. A malformed outside declaration is one
clear error naming the file, in the harness (status 2) and in nox, never a traceback."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from harness.testees import impls
from harness.tools import parity_plan

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "implementers.md"
HEADING = "## An implementation outside the project"


def _doc_blocks() -> tuple[dict[str, Any], list[str]]:
    """(the declaration, the shell lines) of the doc's section on an outside implementation."""
    text = DOC.read_text(encoding="utf-8")
    assert HEADING in text, f"{DOC} has no section {HEADING!r}"
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    declaration = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))  # type: ignore[union-attr]
    shell = re.search(r"```sh\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]
    return declaration, [line for line in shell.splitlines() if line.strip()]


class SessionFailed(Exception):
    """What nox's session.error raises (its _SessionQuit): the session fails with this message."""


class CommandFailed(Exception):
    """What nox's session.run raises when a command fails."""


class FakeSession:
    """Enough of nox.Session for the noxfile's sessions: installs are recorded (the test's interpreter has
    the project), builds are run (or only recorded with ``execute=False``), the parity suites' pytest
    command is recorded and answered with counts for every implementation it names."""

    def __init__(self, posargs: list[str], execute: bool = True) -> None:
        self.posargs = posargs
        self.execute = execute
        self.bin = str(Path(sys.executable).parent)
        self.installed: list[tuple[str, ...]] = []
        self.commands: list[list[str]] = []
        self.pytest: list[str] | None = None
        self.said: list[str] = []

    def install(self, *args: str, **_: Any) -> None:
        self.installed.append(args)

    def run(self, *args: str, env: dict[str, str] | None = None, success_codes: list[int] | None = None,
            **_: Any) -> None:
        if list(args[:3]) == ["python", "-m", "pytest"]:
            self.pytest = list(args[3:])
            ran = Path(next(a for a in args if a.startswith("--ran-report=")).split("=", 1)[1])
            ran.parent.mkdir(parents=True, exist_ok=True)
            counts = {a.split("=", 1)[1]: {"passed": 1, "failed": 0, "skipped": 0}
                      for a in args if a.startswith("--impl=")}
            ran.write_text(json.dumps({"schema": "parity-ran-v1", "counts": counts}), encoding="utf-8")
            return
        self.commands.append(list(args))
        if self.execute:
            done = subprocess.run(args, env={**os.environ, **(env or {})}, capture_output=True, text=True,
                                  timeout=300, check=False)
            if done.returncode not in (success_codes or [0]):
                raise CommandFailed(f"Returned code {done.returncode}: {done.stderr[-500:]}")

    def error(self, *args: Any) -> None:
        raise SessionFailed(" ".join(map(str, args)))

    def warn(self, *args: Any) -> None:
        self.said.append(" ".join(map(str, args)))

    log = warn


@pytest.fixture
def noxfile(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> types.ModuleType:
    """The project's noxfile.py, loaded with a stand-in `nox` module; its reports go to tmp_path."""
    stub = types.ModuleType("nox")
    stub.sessions = {}  # type: ignore[attr-defined]

    def session(func: Any = None, **options: Any) -> Any:
        def register(f: Any) -> Any:
            stub.sessions[options.get("name", f.__name__)] = f  # type: ignore[attr-defined]
            return f
        return register(func) if func is not None else register

    stub.session = session  # type: ignore[attr-defined]
    stub.options = types.SimpleNamespace()  # type: ignore[attr-defined]
    stub.Session = FakeSession  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "nox", stub)
    monkeypatch.setattr(sys, "path", list(sys.path))  # it puts the project first
    monkeypatch.setenv("PIP_CONSTRAINT", os.environ.get("PIP_CONSTRAINT", ""))  # it sets it: restored after
    spec = importlib.util.spec_from_file_location("noxfile_under_test", ROOT / "noxfile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.nox_sessions = stub.sessions  # type: ignore[attr-defined]
    monkeypatch.setattr(module, "ROOT", tmp_path)  # the parity session's reports: tmp_path/reports
    return module


def _nox(noxfile: types.ModuleType, line: str, execute: bool = True) -> FakeSession:
    """`nox -s NAME -- ARGS` of a shell line, run through the noxfile's own session function."""
    words = shlex.split(line, comments=True)
    assert words[:2] == ["nox", "-s"] and (len(words) == 3 or words[3] == "--"), line
    session = FakeSession(words[4:], execute=execute)
    noxfile.nox_sessions[words[2]](session)  # type: ignore[attr-defined]
    return session


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder holding ~/outside/outside.json, the doc's declaration (the testee not yet copied)."""
    home = tmp_path / "home"
    (home / "outside").mkdir(parents=True)
    declaration, _ = _doc_blocks()
    (home / "outside" / "outside.json").write_text(json.dumps(declaration, indent=2), encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv(impls.EXTRA_ENV, raising=False)
    return home


def _harness(*args: str, folder: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PARITY_IMPLEMENTATIONS=str(folder))
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600, check=False)


def test_the_docs_lines_run_as_written(home: Path, noxfile: types.ModuleType,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    declaration, lines = _doc_blocks()
    assert declaration["name"] == "outside" and "{here}" in declaration["start"]["command"][1]
    assert any("{here}" in token for command in declaration["build"] for token in command)
    nox_lines = [line for line in lines if line.startswith("nox ")]
    assert [shlex.split(line, comments=True) for line in nox_lines] == [
        ["nox", "-s", "parity", "--", "--impls=reference,outside"]]
    script = "set -e\n" + "\n".join(line for line in lines if not line.startswith("nox "))
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.split()[:1] == ["outside"])
    assert row.split()[1:6] == ["Python", "command", "testee", "v1", "yes,"], done.stdout
    assert "selftest outside: passed" in done.stdout
    assert re.search(r"outside: (\d+)/\1 fixture cases pass", done.stdout), done.stdout[-2000:]
    assert json.loads((home / "outside" / "check.json").read_text())["schema"].startswith("fixture-results")

    # the nox line: its export is the shell's above
    monkeypatch.setenv(impls.EXTRA_ENV, str(home / "outside"))
    session = _nox(noxfile, nox_lines[0])
    python = str(Path(session.bin) / "python")
    here = str(home / "outside")
    assert session.commands == [[python, "-m", "py_compile", f"{here}/testee.py"]]  # {here}, {python} expanded
    # where py_compile wrote it: beside the source, or under PYTHONPYCACHEPREFIX (nox -s tests sets one)
    compiled = Path(importlib.util.cache_from_source(str(home / "outside" / "testee.py")))
    assert compiled.is_file(), f"the build did not run on ~/outside (no {compiled})"
    assert session.pytest is not None
    assert [a for a in session.pytest if a.startswith("--impl=")] == ["--impl=reference", "--impl=outside"]
    assert session.said[-1].startswith("parity: ran on reference, outside"), session.said


def test_nox_plans_what_the_harness_reads(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One reader: the plan nox gets is the harness's declarations, broken ones and expansions included."""
    outside = home / "outside"
    (outside / "unreadable.json").write_text("{not json", encoding="utf-8")
    wrong = json.loads((outside / "outside.json").read_text())
    (outside / "wrong.json").write_text(json.dumps({**wrong, "name": "wrong",
                                                    "deadlines": {"startup": 0, "request": 10}}))
    again = tmp_path / "again"
    again.mkdir()
    (again / "outside.json").write_text((outside / "outside.json").read_text())  # a second `outside`
    (tmp_path / "lone").mkdir()
    (tmp_path / "lone" / "lone.json").write_text(json.dumps({**wrong, "name": "lone"}))
    monkeypatch.setenv(impls.EXTRA_ENV, os.pathsep.join([str(outside), str(tmp_path / "lone")]))
    found, broken = parity_plan.read_declarations(sys.executable)
    assert list(found) == impls.names() and broken == impls.broken()
    assert {"outside", "lone"} <= set(found) and set(broken) == {"unreadable", "wrong"}
    assert "deadlines/startup" in broken["wrong"] and str(outside / "wrong.json") in broken["wrong"]
    for name in found:
        declared = impls.declaration(name)
        assert found[name]["build"] == [list(command) for command in declared.build]
        assert found[name]["start"] == ({"python": declared.python_module} if declared.in_process
                                        else {"command": list(declared.command or ())})
    assert found["lone"]["start"]["command"] == [sys.executable, f"{tmp_path / 'lone'}/testee.py"]

    monkeypatch.setenv(impls.EXTRA_ENV, os.pathsep.join([str(outside), str(again)]))
    found, broken = parity_plan.read_declarations(sys.executable)
    assert "outside" not in found and "already declared" in broken["outside"] and broken == impls.broken()


@pytest.mark.parametrize(("text", "said"), [
    ("{not json", "cannot read the declaration: not JSON"),
    ("[" * 100_000 + "]" * 100_000, "cannot read the declaration: nesting deeper"),
    ('{"schema": "implementation-v1", "schema": "implementation-v1"}', 'the key "schema" twice'),
    (None, "field deadlines/startup: 0 is less than or equal to the minimum of 0"),
])
def test_a_malformed_outside_declaration_is_named_in_nox_and_the_harness(
        home: Path, noxfile: types.ModuleType, monkeypatch: pytest.MonkeyPatch, text: str | None, said: str) -> None:
    outside = home / "outside"
    if text is None:  # the schema refuses it
        declaration = json.loads((outside / "outside.json").read_text())
        text = json.dumps({**declaration, "name": "bad", "deadlines": {"startup": 0, "request": 10}})
    (outside / "bad.json").write_text(text, encoding="utf-8")
    monkeypatch.setenv(impls.EXTRA_ENV, str(outside))

    with pytest.raises(SessionFailed) as failed:
        _nox(noxfile, "nox -s parity -- --impls=reference,bad")
    message = str(failed.value)
    assert message.startswith(f"bad: broken declaration: {outside / 'bad.json'}: ") and said in message, message
    assert "Traceback" not in message

    checked = _harness("check", "--impl", "bad", "--results", str(home / "r.json"), folder=outside)
    assert checked.returncode == 2 and "Traceback" not in checked.stderr, checked.stderr
    assert checked.stderr.startswith(f"error: {outside / 'bad.json'}: ") and said in checked.stderr
    assert not (home / "r.json").exists()

    # not asked for: left out by name, the run goes on with what was asked; all asked for, as CI does: an error
    session = _nox(noxfile, "nox -s parity -- --impls=reference,outside", execute=False)
    assert any(line.startswith("left out: bad: broken declaration:") for line in session.said), session.said
    assert session.pytest is not None and "--impl=outside" in session.pytest
    monkeypatch.setenv("PARITY_REQUIRE_ALL", "1")
    with pytest.raises(SessionFailed, match="^bad: broken declaration: "):
        _nox(noxfile, "nox -s parity", execute=False)


def test_unknown_and_missing_are_named_in_nox_and_the_harness(home: Path, tmp_path: Path,
                                                              noxfile: types.ModuleType,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(impls.EXTRA_ENV, str(home / "outside"))
    with pytest.raises(SessionFailed, match=r"unknown implementation\(s\) \['ghost'\]; declared: .*outside"):
        _nox(noxfile, "nox -s parity -- --impls=reference,ghost")

    nowhere = tmp_path / "nowhere"
    monkeypatch.setenv(impls.EXTRA_ENV, str(nowhere))
    with pytest.raises(SessionFailed) as failed:
        _nox(noxfile, "nox -s parity -- --impls=reference")
    assert f"{nowhere}: no such folder of implementation declarations" in str(failed.value)
    assert "status 2" in str(failed.value) and "Traceback" not in str(failed.value)
    listed = _harness("impls", folder=nowhere)
    assert listed.returncode == 2 and listed.stderr.startswith(f"error: {nowhere}: no such folder"), listed.stderr


@pytest.mark.parametrize("line", ["nox -s bench", "nox -s fuzz", "nox -s sweep", "nox -s plants"])
def test_every_session_that_builds_builds_the_outside_one(home: Path, noxfile: types.ModuleType,
                                                          monkeypatch: pytest.MonkeyPatch, line: str) -> None:
    """The sessions that build every declared implementation build an outside one too, `{here}` expanded
    (commands recorded, not run)."""
    monkeypatch.setenv(impls.EXTRA_ENV, str(home / "outside"))
    session = _nox(noxfile, line, execute=False)
    python = str(Path(session.bin) / "python")
    assert [python, "-m", "py_compile", f"{home / 'outside'}/testee.py"] in session.commands, session.commands


def test_the_plan_says_why_it_cannot_read(tmp_path: Path) -> None:
    """An interpreter without the project: a PlanError saying so, not a traceback of nox's."""
    bare = tmp_path / "bare-python"
    bare.write_text("#!/bin/sh\necho 'ModuleNotFoundError: No module named harness' >&2\nexit 1\n")
    bare.chmod(0o755)
    with pytest.raises(parity_plan.PlanError, match="status 1.*No module named harness.*is the project installed"):
        parity_plan.read_declarations(str(bare))
    with pytest.raises(parity_plan.PlanError, match="cannot read the implementation declarations"):
        parity_plan.read_declarations(str(tmp_path / "no-such-python"))
