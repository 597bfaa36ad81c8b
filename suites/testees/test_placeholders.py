"""Issue 49, item 11: a declaration's placeholders. ``{python}``, ``{root}`` and ``{here}`` are expanded in
start.command, start.env, build, bare_bench and expected (harness/testees/impls.py); any other ``{name}`` there
(``{pyhton}``, ``{ROOT}``) used to reach the command as it is. It is a broken declaration: status 2 where it is
asked for, naming the file, the field and the placeholder, with the known ones listed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from harness.testees import impls
from suites.fake_impl import FAKE, declare, run

START = {"command": ["{python}", str(FAKE)], "env": {"FAKE_BUG": ""}}


@pytest.mark.parametrize(("changes", "field", "name"), [
    ({"start": {"command": ["{pyhton}", str(FAKE)]}}, "start/command/0", "pyhton"),
    ({"start": {"command": ["{python}", "{ROOT}/x.py"]}}, "start/command/1", "ROOT"),
    ({"start": {**START, "env": {"FAKE_BUG": "", "DATA": "{here}/{data}"}}}, "start/env/DATA", "data"),
    ({"build": [["{python}", "-c", "pass"], ["{python}", "{roots}/build.py"]]}, "build/1/1", "roots"),
    ({"bare_bench": ["{python}", "{bench}"]}, "bare_bench/1", "bench"),
    ({"expected": "{home}/expected.json"}, "expected", "home"),
])
def test_an_unknown_placeholder_is_a_broken_declaration_naming_the_field(  # type: ignore[no-untyped-def]
        tmp_path: Path, monkeypatch, changes: dict[str, Any], field: str, name: str) -> None:
    path = declare(tmp_path, **changes)
    monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path))
    assert "fake" not in impls.names() and "reference" in impls.names()
    with pytest.raises(impls.DeclarationError) as refused:
        impls.declaration("fake")
    message = str(refused.value)
    assert message.startswith(f"{path}: field {field}: unknown placeholder {{{name}}} in "), message
    assert "fix: use one of {python}, {root}, {here}" in message, message
    assert impls.broken()["fake"] == message


def test_a_misspelt_placeholder_gets_a_suggestion(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    declare(tmp_path, start={"command": ["{pyhton}", str(FAKE)]})
    monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path))
    assert "did you mean 'python'?" in impls.broken()["fake"]


@pytest.mark.parametrize("text", ["{}", '{"a": 1}', "${HOME}/x", "${here}", "{1}", "a{b c}", "{python}{root}{here}"])
def test_braces_that_are_no_placeholder_pass(tmp_path: Path, monkeypatch, text: str) -> None:  # type: ignore[no-untyped-def]
    """JSON in an env value, a shell's ``${NAME}``, braces around anything but a name: left as they are."""
    declare(tmp_path, start={**START, "env": {"FAKE_BUG": "", "X": text}})
    monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path))
    assert "fake" in impls.names(), impls.broken()


def test_every_expanded_field_is_checked() -> None:
    """The fields the check reads are the fields _load expands: a placeholder planted in every string of a full
    declaration is reported in each (the check stops at the first, so they are planted one at a time)."""
    data: dict[str, Any] = {"start": {"command": ["a", "b"], "env": {"K": "v"}}, "build": [["c"], ["d", "e"]],
                            "bare_bench": ["f"], "expected": "g"}
    assert [where for where, _ in impls._expanded_fields(data)] == [
        "start/command/0", "start/command/1", "start/env/K", "build/0/0", "build/1/0", "build/1/1", "bare_bench/0",
        "expected"]


def test_a_command_that_asks_for_it_stops_with_status_2(tmp_path: Path) -> None:
    path = declare(tmp_path, start={"command": ["{python}", "{here}/{testee}.py"]})
    asked = run(tmp_path, "-m", "harness", "check", "--impl", "fake", "--results", str(tmp_path / "r.json"))
    assert asked.returncode == 2 and "Traceback" not in asked.stderr, asked.stdout + asked.stderr
    said = [line for line in asked.stderr.splitlines() if line.startswith("error: ")]
    assert said and re.search(re.escape(f"{path}: field start/command/1: unknown placeholder {{testee}}"), said[0]), \
        asked.stderr
    assert not (tmp_path / "r.json").exists()
