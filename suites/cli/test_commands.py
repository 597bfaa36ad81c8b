"""The commands' table (harness/cli/commands/): every command is one module that declares every column (its
parser, its budgets, its verdict line, its place in the help, its run function), is listed once, and is what
harness/cli/main.py parses, checks, quiets and lists; main names no command of its own."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

from harness.cli import commands
from harness.cli import main as cli
from harness.model import settings
from harness.model.status import AGREE, FOUND, SHORT, USAGE

NAMES = list(commands.COMMANDS)


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = cli._parser()
    found = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    assert len(found) == 1
    return dict(found[0].choices)


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {string for action in parser._actions for string in action.option_strings}


def test_every_module_of_the_package_is_a_command_listed_once() -> None:
    """Defining a command's module is not enough: it is listed in MODULES, once, and named as its file is."""
    declaring = set()
    for info in pkgutil.iter_modules(commands.__path__):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        if hasattr(module, "COMMAND"):
            declaring.add(module)
            assert module.COMMAND.name == info.name, f"{info.name}.py declares the command {module.COMMAND.name}"
    assert len(commands.MODULES) == len(set(commands.MODULES))
    assert set(commands.MODULES) == declaring, "a command module not listed in MODULES, or one listed twice"
    assert sorted(commands.COMMANDS) == sorted(module.COMMAND.name for module in declaring)


def test_main_runs_and_lists_the_table_s_commands_in_its_order() -> None:
    assert list(cli.COMMANDS) == NAMES == list(cli.BY_USE)
    assert all(cli.COMMANDS[name] is commands.COMMANDS[name].run for name in NAMES)
    assert list(_subparsers()) == NAMES  # argparse's choices too (its "did you mean" list)
    assert list(cli.summaries()) == NAMES
    main_source = Path(cli.__file__).read_text(encoding="utf-8")
    for name in NAMES:  # main.py names no command: a command's columns are in its module only
        assert f'"{name}"' not in main_source and f"'{name}'" not in main_source, name


@pytest.mark.parametrize("name", NAMES)
def test_every_command_has_its_parser_and_its_place_in_the_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    command = commands.COMMANDS[name]
    parser = _subparsers()[name]
    assert parser.description == command.summary and command.examples
    assert {"-q", "--quiet"} <= _options(parser)
    assert command.use in commands.USES and command.listed.startswith(f"{name} ")
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0
    groups: dict[str, list[str]] = {}
    heading = ""
    for line in capsys.readouterr().out.split("its commands by use.\n\n", 1)[1].split("\n\n", 1)[0].splitlines():
        if line.startswith("  "):
            groups[heading].append(line)
        else:
            heading = line.removesuffix(":")
            groups[heading] = []
    assert list(groups) == list(commands.USES.values())
    assert f"  {command.listed}" in groups[commands.USES[command.use]], f"{name} is not listed under its use"
    listed = [line for lines in groups.values() for line in lines if line.split()[0] == name]
    assert len(listed) == 1, f"{name} listed {len(listed)} times"
    with pytest.raises(SystemExit) as done:
        cli.main([name, "--help"])
    assert done.value.code == 0 and f"python -m harness {name}" in capsys.readouterr().out


@pytest.mark.parametrize("name", NAMES)
def test_every_command_s_budgets_are_its_row_of_the_settings_and_options_of_its_parser(name: str) -> None:
    command = commands.COMMANDS[name]
    assert command.budgets == settings.OPTIONS.get(name, ()), "its budgets differ from harness/model/settings.py"
    assert {option.name for option in command.budgets} <= _options(_subparsers()[name])


def test_the_settings_table_budgets_only_registered_commands() -> None:
    assert set(settings.OPTIONS) <= set(commands.COMMANDS)
    assert [name for name in NAMES if commands.COMMANDS[name].budgets] == [n for n in NAMES if n in settings.OPTIONS]


BUDGETED = [(name, option.name) for name in NAMES for option in commands.COMMANDS[name].budgets]


@pytest.mark.parametrize(("name", "option"), BUDGETED, ids=lambda part: str(part))
def test_every_budget_is_checked_before_its_command_runs(name: str, option: str, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """-1 is out of every range (each starts at 0 or 1): a usage error naming the option, and nothing run."""
    ran = []
    monkeypatch.setitem(cli.COMMANDS, name, lambda args: ran.append(args) or AGREE)
    assert cli.main([name, option, "-1"]) == USAGE
    assert option in capsys.readouterr().err and not ran
    assert cli.main([name]) == AGREE and len(ran) == 1  # without it the planted command runs


# A line each command with a verdict prints last among its lines; -q shows it alone. A command left out here has
# no verdict line: -q sums it up by its status.
VERDICTS = {
    "check": "reference: 1,234/1,234 fixture cases pass",
    "report": "verdict: all agree on 3 inputs",
    "fuzz": "12,000 examples in 30s on 2 worker(s): 0 new divergence(s), 1 expected, 0 finding(s); report: r.json",
    "sweep": "4 class(es): 0 new, 4 expected",
}


# The least command line each command takes (its required arguments), for a planted run.
LEAST = {"check": ["--impl", "reference"], "diff": ["normalize_fact_text"], "expected": ["check"],
         "promote": ["--report", "r.json", "--index", "1", "--id", "x"], "report": ["show"], "run": ["--impl", "x"],
         "selftest": ["--impl", "x"], "trace": ["normalize_fact_text"]}


def test_the_commands_with_a_verdict_line_are_these() -> None:
    assert {name for name in NAMES if commands.COMMANDS[name].verdict is not None} == set(VERDICTS)


@pytest.mark.parametrize("name", NAMES)
def test_quiet_prints_the_verdict_line_alone_or_the_status(name: str, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    verdict = VERDICTS.get(name)

    def planted(args: argparse.Namespace) -> int:
        print("a table\n" + (verdict or "no verdict here") + "\n\nresults: somewhere")
        return FOUND

    monkeypatch.setitem(cli.COMMANDS, name, planted)
    assert cli.main(["-q", name, *LEAST.get(name, [])]) == FOUND
    out = capsys.readouterr().out
    assert out == (verdict or f"{name}: {SHORT[FOUND]} (status {FOUND})") + "\n", out
    if verdict is not None:
        assert re.match(r"\^", commands.COMMANDS[name].verdict.pattern), "a verdict pattern is anchored"


def test_report_alone_needs_no_project() -> None:
    assert [name for name in NAMES if not commands.COMMANDS[name].needs_project] == ["report"]


@pytest.mark.parametrize("name", NAMES)
def test_without_a_project_only_a_command_that_needs_none_runs(name: str, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """report reads only the files it is given: it runs outside a project; every other command is a usage error
    naming the problem, before it runs. The top help needs none."""
    from harness.model import paths

    ran = []
    monkeypatch.setitem(cli.COMMANDS, name, lambda args: ran.append(args) or AGREE)
    monkeypatch.setattr(paths, "PROBLEM", "no project found (planted)")
    status = cli.main([name, *LEAST.get(name, [])])
    if commands.COMMANDS[name].needs_project:
        assert status == USAGE and "no project found (planted)" in capsys.readouterr().err and not ran
    else:
        assert status == AGREE and len(ran) == 1
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0 and f"\n  {commands.COMMANDS[name].listed}\n" in capsys.readouterr().out
