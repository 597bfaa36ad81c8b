"""The harness installed anywhere (issue 52 item 1), in process: the parts suites/builds/test_wheel.py runs from a
wheel, each on its own. A family file found twice is one family when it is the same file or a copy with the same
name and content (harness/model/families.py); different content under one name is a problem naming both files.
``-q`` before the command (memgate-parity, python -m harness) as after it. Help needs no project."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli import entry
from harness.cli import main as cli
from harness.model import families, paths
from harness.model.project_option import take_project
from harness.model.status import AGREE, UsageError

OWN = families.OWN / "memgate.json"


def test_a_copy_of_the_harnesss_own_family_in_the_project_is_one_family(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The wheel's own memgate.json and the checkout's families/memgate.json: the same name and bytes, two paths."""
    installed = tmp_path / "site-packages" / "families"
    installed.mkdir(parents=True)
    shutil.copy2(paths.ROOT / "families" / "memgate.json", installed / "memgate.json")
    monkeypatch.setattr(families, "OWN", installed)
    assert (paths.ROOT / "families" / "memgate.json").is_file()
    files = families.family_files()
    assert [path.name for path in files].count("memgate.json") == 1, files
    assert files[0] == installed / "memgate.json"  # the harness's own comes first
    found, problems = families.load()
    assert problems == [] and [family.name for family in found].count("memgate") == 1, problems


def test_the_same_file_named_twice_is_one_family(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(families.ENV, f"{OWN}:{OWN.parent}")
    assert [path.resolve() for path in families.family_files()].count(OWN.resolve()) == 1
    found, problems = families.load()
    assert problems == [], problems


def test_another_family_under_the_same_name_is_a_problem_naming_both_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    installed = tmp_path / "site-packages" / "families"
    installed.mkdir(parents=True)
    document = json.loads((paths.ROOT / "families" / "memgate.json").read_text(encoding="utf-8"))
    document["description"] += " (an older release)"  # same name, other content
    (installed / "memgate.json").write_text(json.dumps(document), encoding="utf-8")
    monkeypatch.setattr(families, "OWN", installed)
    assert len([path for path in families.family_files() if path.name == "memgate.json"]) == 2
    found, problems = families.load()
    assert len(problems) == 1, problems
    project_file = paths.ROOT / "families" / "memgate.json"
    assert problems[0].startswith(f"family file {project_file}: family: ")
    assert str(installed / "memgate.json") in problems[0] and "other content" in problems[0]
    assert "reinstall memgate-parity" in problems[0]


def test_q_stays_among_the_leading_options(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PARITY_PROJECT", "")  # take_project sets it: monkeypatch restores its absence at the end
    monkeypatch.delenv("PARITY_PROJECT")
    assert take_project(["-q", "--project", str(tmp_path), "impls"]) == ["-q", "impls"]
    import os

    assert os.environ["PARITY_PROJECT"] == str(tmp_path)
    assert take_project(["--project=x", "--quiet", "fuzz", "-q"]) == ["--quiet", "fuzz", "-q"]


@pytest.mark.parametrize("argv", [["-q", "impls"], ["impls", "-q"], ["--quiet", "impls"]])
def test_memgate_parity_q_before_or_after_the_command(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert entry.main(argv) == AGREE
    out = capsys.readouterr().out
    assert out.splitlines() == ["impls: all agree (status 0)"], out


def test_q_before_something_that_is_not_a_harness_command_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"-q comes with a harness command .*'plants'"):
        entry.main(["-q", "plants"])
    with pytest.raises(UsageError, match="followed by nothing"):
        entry.main(["-q"])


@pytest.mark.parametrize("argv", [["fuzz", "--help"], ["--help"], ["-V"], ["diff", "x", "-h"], ["-q", "fuzz", "-h"]])
def test_help_needs_no_project(argv: list[str]) -> None:
    assert cli._command_of(argv).needs_project is False


def test_help_without_a_project_lists_the_ops_and_says_where_implementations_come_from(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(paths, "PROBLEM", "no project found from /nowhere up")
    with pytest.raises(SystemExit) as ended:
        cli.main(["fuzz", "--help"])
    assert ended.value.code == 0
    out = capsys.readouterr().out
    assert "ops: " in out and "implementations: those the project declares" in out, out


@pytest.mark.parametrize("argv", [["-q", "--help"], ["--quiet", "-h"], ["-q", "help"]])
def test_memgate_parity_q_then_help_prints_the_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert entry.main(argv) == AGREE
    out = capsys.readouterr().out
    assert out == entry.usage() + "\n" and "harness commands (python -m harness COMMAND):" in out, out


def test_help_without_a_project_reads_no_declarations(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Each command's help where no project is found: Command.accepted itself says the implementations are the
    project's (reading them would fail: there is no implementations/ to read)."""
    from harness.cli import commands
    from harness.testees import impls

    def no_declarations() -> list[str]:
        raise impls.DeclarationError("no project: nothing to read")

    monkeypatch.setattr(paths, "PROBLEM", "no project found from /nowhere up")
    monkeypatch.setattr(impls, "names", no_declarations)
    for command in commands.COMMANDS.values():
        accepted = command.accepted()
        assert "implementations: those the project declares (no project found here" in accepted, command.name
    with pytest.raises(SystemExit) as ended:
        entry.main(["fuzz", "--help"])
    assert ended.value.code == 0
    assert "ops: " in capsys.readouterr().out
