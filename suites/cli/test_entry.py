"""memgate-parity, the one command (harness/cli/entry.py): it lists every subcommand, runs each through the
module the older form runs, with the same exit statuses, and the older forms keep working."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import entry
from harness.cli import main as cli
from harness.model.status import AGREE, USAGE, UsageError

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "memgate-parity"


def _run(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


def test_the_console_script_lists_every_subcommand(tmp_path: Path) -> None:
    assert SCRIPT.is_file(), "the project is installed without its console script (pyproject.toml, [project.scripts])"
    done = _run(str(SCRIPT), "--help", cwd=tmp_path)  # from anywhere, not only the checkout
    assert done.returncode == AGREE, done.stderr
    for name in [*cli.summaries(), *entry.MODULES]:
        assert f"\n  {name} " in done.stdout, name
    for name in entry.BUILDS:
        assert f"\n  build {name} " in done.stdout, name
    assert "exit statuses:" in done.stdout


@pytest.mark.parametrize("name", sorted(entry.MODULES))
def test_every_tool_is_a_module_with_a_main(name: str) -> None:
    module = importlib.import_module(entry.MODULES[name][0])
    assert callable(module.main)


def test_every_build_script_is_there() -> None:
    for script, _ in entry.BUILDS.values():
        assert (ROOT / script).is_file(), script


@pytest.mark.parametrize("new, old, status", [
    (("impls", "--json"), (sys.executable, "-m", "harness", "impls", "--json"), AGREE),
    (("fixtures", "list"), (sys.executable, "-m", "generators", "list"), AGREE),
    (("reports-check", "/no/such/folder"), (sys.executable, "-m", "harness.tools.reports_check", "/no/such/folder"),
     USAGE),
    (("diff", "decide_writ", "x"), (sys.executable, "-m", "harness", "diff", "decide_writ", "x"), USAGE),
    (("build", "pyodide", "--help"), (sys.executable, "pyodide_host/build.py", "--help"), AGREE),
])
def test_a_subcommand_ends_as_its_older_form(new: tuple[str, ...], old: tuple[str, ...], status: int) -> None:
    assert _run(str(SCRIPT), *new).returncode == status
    assert _run(*old).returncode == status


@pytest.mark.parametrize("argv, said", [
    (["plantz"], "did you mean 'plants'"),
    (["build"], "build takes a target"),
    (["build", "wasn"], "did you mean 'wasm'"),
])
def test_a_misspelt_subcommand_is_a_usage_error(argv: list[str], said: str) -> None:
    with pytest.raises(UsageError, match=said):
        entry.main(argv)
    done = _run(str(SCRIPT), *argv)
    assert done.returncode == USAGE and said in done.stderr


@pytest.mark.parametrize("argv", [["--version"], ["-V"]])
def test_version_names_the_harness_its_python_and_where_it_runs_from(argv: list[str],
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    import platform
    from importlib import metadata

    assert entry.main(argv) == AGREE
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"memgate-parity {metadata.version('memgate-parity')} (Python {platform.python_version()}")
    assert str(Path(cli.__file__).resolve().parents[1]) in line
    with pytest.raises(SystemExit) as done:
        cli.main(argv)
    assert done.value.code == 0 and capsys.readouterr().out.strip() == line


def test_the_help_lists_each_command_once_by_use(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 36: the top help listed every command twice, the testee server first. Now once, by use: check,
    read results, search, maintain, serve; and memgate-parity --help in the same order."""
    assert sorted(cli.BY_USE) == sorted(cli.COMMANDS)
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.splitlines()
              if line.startswith("  ") and line.split()[0] in cli.COMMANDS and not line.startswith("   ")]
    assert listed == list(cli.BY_USE), listed
    assert list(cli.summaries()) == list(cli.BY_USE)
    assert "{run," not in out  # no unordered list of choices either
