"""Bad settings and numbers through the real command line (python -m harness, a process of its own): each is
status 2 with one ``error:`` line naming it, within seconds, before anything runs (harness/model/settings.py; the
values a user found hanging ``check`` for minutes or ending in tracebacks)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.model import settings
from harness.model.status import USAGE

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 60  # seconds: a run past this is a hang (each case below ends in about a second)


PYTHON_M = [sys.executable, "-m", "harness"]
MEMGATE_PARITY = [sys.executable, "-c", "from harness.cli.entry import run; run()"]  # the console script


def _harness(argv: list[str], extra_env: dict[str, str], cwd: Path = ROOT,
             launcher: list[str] = PYTHON_M) -> tuple[int, str]:
    env = {key: value for key, value in os.environ.items() if key not in settings.BY_ENV}
    env.update(extra_env)
    done = subprocess.run([*launcher, *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=LIMIT, check=False)  # a hang fails the test: TimeoutExpired
    return done.returncode, done.stderr


ENVIRONMENT = [
    ("PARITY_REQUEST_TIMEOUT", "nan"), ("PARITY_REQUEST_TIMEOUT", "-1"), ("PARITY_REQUEST_TIMEOUT", "abc"),
    ("PARITY_STARTUP_TIMEOUT", "inf"), ("PARITY_STARTUP_TIMEOUT", "0"), ("PARITY_REQUIRE_ALL", "maybe"),
]


@pytest.mark.parametrize(("name", "raw"), ENVIRONMENT, ids=lambda part: part)
def test_a_bad_variable_stops_check_at_once(name: str, raw: str, tmp_path: Path) -> None:
    status, err = _harness(["check", "--impl", "pyo3", "--results", str(tmp_path / "results.json")], {name: raw})
    assert status == USAGE, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {name}={raw}: must be ") and "Traceback" not in err, err
    assert not (tmp_path / "results.json").exists()


OPTIONS = [
    ("fuzz", "--seconds", "inf"), ("fuzz", "--minutes", "inf"), ("fuzz", "--seconds", "nan"),
    ("fuzz", "--seconds", "1e308"), ("fuzz", "--workers", "100000"), ("fuzz", "--max-examples", "0"),
    ("fuzz", "--stop-after-new", "inf"), ("bench", "--seconds", "inf"),
]


@pytest.mark.parametrize(("command", "option", "raw"), OPTIONS, ids=lambda part: part)
def test_a_bad_number_stops_the_command_at_once(command: str, option: str, raw: str, tmp_path: Path) -> None:
    where = {"fuzz": "--report", "bench": "--out"}[command]
    status, err = _harness([command, option, raw, where, str(tmp_path / "out.json")], {})
    assert status == USAGE, err
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"error: {option} ") and "Traceback" not in err, err
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("launcher", [PYTHON_M, MEMGATE_PARITY], ids=["python -m harness", "memgate-parity"])
def test_a_bad_key_in_the_projects_pyproject_is_named(launcher: list[str], tmp_path: Path) -> None:
    """The project --project names (from elsewhere: not the working directory's) is the one whose file is read."""
    project = tmp_path / "project"
    for folder in ("implementations", "fixtures"):
        (project / folder).mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.memgate-parity]\nrequest-timout = 5\n', encoding="utf-8")
    status, err = _harness(["--project", str(project), "impls"], {}, launcher=launcher)
    assert status == USAGE, err
    assert err.strip().splitlines() == [
        f"error: {project / 'pyproject.toml'} [tool.memgate-parity]: unknown key 'request-timout'; did you mean "
        "'request-timeout'? (its keys: request-timeout, startup-timeout, require-all, ci-examples)"], err


def test_every_subcommand_of_memgate_parity_checks_the_settings_first(tmp_path: Path) -> None:
    """A build or a tool, not only the harness's commands: PARITY_INSTALL_TOOLCHAIN=yes is named before
    wasm_host/build.py reads it as "not 0"."""
    status, err = _harness(["build", "wasm", "--check"], {"PARITY_INSTALL_TOOLCHAIN": "yes"}, launcher=MEMGATE_PARITY)
    assert status == USAGE and err.strip() == "error: PARITY_INSTALL_TOOLCHAIN=yes: must be 0 or 1 (or unset)", err
