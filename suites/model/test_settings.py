"""The settings table (harness/model/settings.py): every PARITY_* variable and every number of the command line in
its range, or a usage error naming it; the order a value is found in (command line, environment, the project's
pyproject.toml, default); the [tool.memgate-parity] table's keys; README.md's section "Settings" is the table."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from harness.model import paths, project_option, settings
from harness.model.status import PREFLIGHT, UsageError
from harness.testees import impls

ROOT = Path(__file__).resolve().parents[2]

BAD_ENVIRONMENT = [
    ("PARITY_REQUEST_TIMEOUT", "nan"), ("PARITY_REQUEST_TIMEOUT", "-1"), ("PARITY_REQUEST_TIMEOUT", "abc"),
    ("PARITY_REQUEST_TIMEOUT", "0"), ("PARITY_REQUEST_TIMEOUT", "inf"), ("PARITY_REQUEST_TIMEOUT", "3601"),
    ("PARITY_STARTUP_TIMEOUT", "inf"), ("PARITY_STARTUP_TIMEOUT", "0"), ("PARITY_STARTUP_TIMEOUT", "-inf"),
    ("PARITY_REQUIRE_ALL", "maybe"), ("PARITY_REQUIRE_ALL", "true"), ("PARITY_REQUIRE_ALL", " 1"),
    ("PARITY_REQUIRE_PYTHONS", "yes"), ("PARITY_REQUIRE_BROWSER", "2"), ("PARITY_INSTALL_TOOLCHAIN", "on"),
    ("PARITY_REQUIRE_WASM_TOOLCHAIN", "01"), ("PARITY_REQUIRE_PYODIDE", "True"), ("PARITY_NPM_WARM", "-1"),
    ("PARITY_CI_EXAMPLES", "0"), ("PARITY_CI_EXAMPLES", "1.5"), ("PARITY_CI_EXAMPLES", "abc"),
    ("PARITY_CI_EXAMPLES", "10000001"), ("PARITY_CI_EXAMPLES", "9" * 5000),
]


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No PARITY_* setting from the session's environment, and no project pyproject.toml."""
    for setting in settings.SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    monkeypatch.setattr(settings, "pyproject_file", lambda: None)
    return monkeypatch


def _project(monkeypatch: pytest.MonkeyPatch, folder: Path, table: str) -> Path:
    """A project whose pyproject.toml holds ``table`` (TOML text), found as paths.py finds the checked one."""
    (folder / "implementations").mkdir(parents=True, exist_ok=True)
    (folder / "fixtures").mkdir(exist_ok=True)
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(f'[project]\nname = "someone-else"\n\n{table}\n', encoding="utf-8")
    monkeypatch.setattr(settings, "pyproject_file", _real_pyproject_file)
    monkeypatch.setattr(paths, "ROOT", folder)
    monkeypatch.setattr(paths, "PROBLEM", None)
    return pyproject


_real_pyproject_file = settings.pyproject_file


@pytest.mark.parametrize(("name", "raw"), BAD_ENVIRONMENT, ids=lambda part: str(part)[:20])
def test_a_bad_environment_value_is_a_usage_error_naming_it(name: str, raw: str, clean: pytest.MonkeyPatch) -> None:
    clean.setenv(name, raw)
    with pytest.raises(UsageError) as caught:
        settings.check()
    message = str(caught.value)
    assert message.startswith(f"{name}={raw[:20]}") and "must be" in message and "\n" not in message, message
    with pytest.raises(UsageError, match=name):
        settings.value(name)


def test_the_message_of_the_issue(clean: pytest.MonkeyPatch) -> None:
    clean.setenv("PARITY_REQUEST_TIMEOUT", "nan")
    with pytest.raises(UsageError) as caught:
        settings.check()
    assert str(caught.value) == ("PARITY_REQUEST_TIMEOUT=nan: must be a finite number of seconds more than 0 and at "
                                 "most 3600")


def test_every_bad_value_is_named_on_one_line_and_control_characters_are_escaped(clean: pytest.MonkeyPatch) -> None:
    clean.setenv("PARITY_REQUIRE_ALL", "maybe")
    clean.setenv("PARITY_STARTUP_TIMEOUT", "1\x1b[2J\n")
    with pytest.raises(UsageError) as caught:
        settings.check()
    message = str(caught.value)
    assert "PARITY_REQUIRE_ALL=maybe" in message and "PARITY_STARTUP_TIMEOUT=1\\u001B[2J\\u000A" in message
    assert "\n" not in message and "\x1b" not in message


GOOD_ENVIRONMENT = [
    ("PARITY_REQUEST_TIMEOUT", "2.5", 2.5), ("PARITY_REQUEST_TIMEOUT", "3600", 3600.0),
    ("PARITY_STARTUP_TIMEOUT", "0.01", 0.01), ("PARITY_REQUIRE_ALL", "1", True), ("PARITY_REQUIRE_ALL", "0", False),
    ("PARITY_REQUIRE_ALL", "", False), ("PARITY_CI_EXAMPLES", "25", 25), ("PARITY_INSTALL_TOOLCHAIN", "", None),
    ("PARITY_IMPLEMENTATIONS", "/a:/b", "/a:/b"),
]


@pytest.mark.parametrize(("name", "raw", "expected"), GOOD_ENVIRONMENT, ids=lambda part: str(part))
def test_a_good_value_is_read_typed(name: str, raw: str, expected: object, clean: pytest.MonkeyPatch) -> None:
    clean.setenv(name, raw)
    settings.check()
    assert settings.value(name) == expected and type(settings.value(name)) is type(expected)


def test_the_check_runs_before_every_command() -> None:
    assert settings.check in PREFLIGHT


# -- where a value comes from: command line, environment, pyproject.toml, default --------------------------------------

def test_environment_over_pyproject_over_default(tmp_path: Path, clean: pytest.MonkeyPatch) -> None:
    assert settings.value("PARITY_REQUEST_TIMEOUT") is None and settings.value("PARITY_CI_EXAMPLES") == 1000
    declared = 7.0
    assert impls._override("REQUEST", declared) == declared  # the default: each declaration's
    _project(clean, tmp_path, "[tool.memgate-parity]\nrequest-timeout = 5\nrequire-all = true\nci-examples = 40\n")
    assert impls._override("REQUEST", declared) == 5.0
    assert settings.value("PARITY_REQUIRE_ALL") is True and settings.value("PARITY_CI_EXAMPLES") == 40
    assert impls._override("STARTUP", declared) == declared  # a key the file leaves out: the default
    clean.setenv("PARITY_REQUEST_TIMEOUT", "3")
    clean.setenv("PARITY_REQUIRE_ALL", "0")
    assert impls._override("REQUEST", declared) == 3.0 and settings.value("PARITY_REQUIRE_ALL") is False
    clean.setenv("PARITY_REQUEST_TIMEOUT", "")  # empty: unset, the file's again
    assert impls._override("REQUEST", declared) == 5.0


def test_the_command_line_over_the_environment(clean: pytest.MonkeyPatch) -> None:
    """--oracle, --context and --project replace their variables (project_option, before anything reads one)."""
    clean.setenv("PARITY_ORACLE", "from-environment")
    clean.setenv("PARITY_CONTEXT", "a,b")
    rest = project_option.take_project(["--oracle", "from-command-line", "--context=c", "check"])
    assert rest == ["check"]
    assert settings.value("PARITY_ORACLE") == "from-command-line" and settings.value("PARITY_CONTEXT") == "c"


class _Opened:
    def close(self) -> None:
        pass


@pytest.mark.parametrize(("option", "environment", "table", "required"), [
    (True, "0", "", True), (False, "1", "", True), (False, "0", "require-all = true", False),
    (False, "", "require-all = true", True), (False, "", "", False), (False, "", "require-all = false", False),
])
def test_require_all_is_the_option_then_the_environment_then_the_project(
        option: bool, environment: str, table: str, required: bool, tmp_path: Path, clean: pytest.MonkeyPatch) -> None:
    """open_impls (harness/cli/tools.py) with one implementation that cannot start: --require-all, else
    PARITY_REQUIRE_ALL, else the project's require-all makes it an error."""
    from harness.cli import tools
    from harness.model.status import Unavailable
    from harness.testees.errors import ImplementationUnavailable

    _project(clean, tmp_path, f"[tool.memgate-parity]\n{table}\n")
    clean.setenv("PARITY_REQUIRE_ALL", environment)
    clean.setattr(impls, "start_each", lambda names, cutoff=None: {"a": _Opened(),
                                                                   "b": ImplementationUnavailable("b is not built")})
    clean.setattr(impls, "oracles", lambda: ["a"])
    clean.setattr(impls, "names", lambda: ["a", "b"])
    clean.setattr(impls, "broken", lambda: {})
    if required:
        with pytest.raises(Unavailable, match="--require-all"):
            tools.open_impls(None, require_all=option, stream=io.StringIO())
    else:
        assert list(tools.open_impls(None, require_all=option, stream=io.StringIO())) == ["a"]


# -- the project's [tool.memgate-parity] ----------------------------------------------------------------------------

BAD_PYPROJECT = [
    ("request-timout = 5", "unknown key 'request-timout'; did you mean 'request-timeout'?"),
    ("install-toolchain = true", "PARITY_INSTALL_TOOLCHAIN is read from the environment only"),
    ('request-timeout = "5"', "request-timeout = '5': must be a finite number of seconds"),
    ("request-timeout = nan", "request-timeout = nan: must be a finite number"),
    ("request-timeout = inf", "request-timeout = inf: must be a finite number"),
    ("startup-timeout = 0", "startup-timeout = 0: must be"),
    ("startup-timeout = true", "startup-timeout = True: must be"),
    ("require-all = 1", "require-all = 1: must be true or false"),
    ('require-all = "1"', "require-all = '1': must be true or false"),
    ("ci-examples = 2.0", "ci-examples = 2.0: must be a whole number"),
    ("ci-examples = 0", "ci-examples = 0: must be a whole number"),
]


@pytest.mark.parametrize(("line", "expected"), BAD_PYPROJECT, ids=lambda part: part)
def test_a_bad_pyproject_key_is_a_usage_error_naming_the_file_and_the_key(line: str, expected: str, tmp_path: Path,
                                                                         clean: pytest.MonkeyPatch) -> None:
    pyproject = _project(clean, tmp_path, f"[tool.memgate-parity]\n{line}\n")
    with pytest.raises(UsageError) as caught:
        settings.check()
    message = str(caught.value)
    assert message.startswith(f"{pyproject} [tool.memgate-parity]: ") and expected in message, message


@pytest.mark.parametrize(("text", "expected"), [
    ("[tool.memgate-parity\n", "not TOML"),
    ('[tool]\nmemgate-parity = 3\n', "tool.memgate-parity must be a table"),
])
def test_a_pyproject_that_cannot_be_read_is_named(text: str, expected: str, tmp_path: Path,
                                                  clean: pytest.MonkeyPatch) -> None:
    pyproject = _project(clean, tmp_path, "")
    pyproject.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        settings.check()
    assert str(caught.value).startswith(f"{pyproject}: {expected}"), caught.value


def test_a_pyproject_without_the_table_or_no_project_is_no_setting(tmp_path: Path, clean: pytest.MonkeyPatch) -> None:
    _project(clean, tmp_path, "[tool.other]\nrequest-timeout = nan\n")
    settings.check()
    assert settings.value("PARITY_REQUEST_TIMEOUT") is None
    clean.setattr(paths, "PROBLEM", "no project here")
    (tmp_path / "pyproject.toml").write_text("not toml [", encoding="utf-8")
    settings.check()  # not the checked project's file: not read


# -- the command line's numbers ------------------------------------------------------------------------------------

BAD_OPTIONS = [
    ("fuzz", "--seconds", float("inf")), ("fuzz", "--seconds", float("nan")), ("fuzz", "--seconds", 1e308),
    ("fuzz", "--seconds", 0.0), ("fuzz", "--minutes", float("inf")), ("fuzz", "--minutes", -1.0),
    ("fuzz", "--minutes", 1e9), ("fuzz", "--stop-after-new", float("inf")), ("fuzz", "--stop-after-new", -1.0),
    ("fuzz", "--workers", 0), ("fuzz", "--workers", 10**6), ("fuzz", "--max-examples", 0),
    ("fuzz", "--max-examples", 10**30), ("sweep", "--workers", -3), ("bench", "--seconds", float("inf")),
    ("bench", "--seconds", 7200.0), ("tracecheck", "--examples", 10**12),
]


@pytest.mark.parametrize(("command", "option", "number"), BAD_OPTIONS, ids=lambda part: str(part))
def test_a_number_out_of_range_is_a_usage_error_naming_the_option(command: str, option: str, number: float) -> None:
    with pytest.raises(UsageError) as caught:
        settings.check_options(command, {option: number})
    assert str(caught.value).startswith(f"{option} ") and "must be" in str(caught.value), caught.value


def test_numbers_in_range_pass() -> None:
    settings.check_options("fuzz", {"--seconds": 0.5, "--minutes": 10080.0, "--stop-after-new": 0.0, "--workers": 256,
                                    "--max-examples": 1, "--shard": None})
    settings.check_options("bench", {"--seconds": 3600.0})
    settings.check_options("sweep", {"--workers": None})


# -- the documentation is the table --------------------------------------------------------------------------------

def test_the_readme_shows_the_tables() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    assert settings.markdown() in section, "README.md's settings table differs from harness/model/settings.py"
    assert settings.options_markdown() in section, "README.md's options table differs from settings.OPTIONS"
    documented = set(re.findall(r"^\| `(PARITY_[A-Z_]+)` \|", section, re.M))
    assert documented == {setting.env for setting in settings.SETTINGS}


# Names that look like settings and are not: constants of the code, and variables the tests set for themselves.
NOT_SETTINGS = {"PARITY_SUITES", "PARITY_FOLDER", "PARITY_REPORTS_GUARD", "PARITY_POOL_START_PROBE"}
READERS = ["harness", "noxfile.py", "wasm_host/build.py", "pyodide_host/build.py", ".ci/run", ".github/workflows",
           "suites/conftest.py", "suites/builds", "suites/cli/test_page_browser.py"]


def test_every_variable_the_project_reads_is_in_the_table() -> None:
    found: set[str] = set()
    for reader in READERS:
        where = ROOT / reader
        for path in ([where] if where.is_file() else sorted(where.rglob("*"))):
            if path.is_file() and path.suffix in ("", ".py", ".yml", ".sh"):
                found |= set(re.findall(r"\bPARITY_[A-Z][A-Z_]*[A-Z]\b", path.read_text(encoding="utf-8")))
    missing = found - NOT_SETTINGS - {setting.env for setting in settings.SETTINGS}
    assert not missing, f"read but not in harness/model/settings.py SETTINGS: {sorted(missing)}"


def test_nox_stops_on_a_bad_setting_before_any_session() -> None:
    """noxfile.py checks the table when it loads (loaded here with a stand-in `nox`: the test's interpreter has
    none), so `nox -s parity` with PARITY_REQUIRE_ALL=maybe does not run as if it were unset."""
    import os
    import subprocess
    import sys

    script = "import runpy, sys, types; sys.modules['nox'] = types.ModuleType('nox'); runpy.run_path(sys.argv[1])"
    env = {key: value for key, value in os.environ.items() if key not in settings.BY_ENV}
    done = subprocess.run([sys.executable, "-c", script, str(ROOT / "noxfile.py")], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False, env={**env, "PARITY_REQUIRE_ALL": "maybe"})
    assert done.returncode == 1 and done.stderr.strip().splitlines()[-1] == (
        "noxfile.py: error: PARITY_REQUIRE_ALL=maybe: must be 0 or 1 (or unset)"), done.stderr


def test_a_bad_pyproject_value_is_refused_where_it_is_read_too(tmp_path: Path, clean: pytest.MonkeyPatch) -> None:
    """Read outside a command (a test session, no preflight): the deadline is refused, named, never used."""
    pyproject = _project(clean, tmp_path, "[tool.memgate-parity]\nrequest-timeout = nan\n")
    with pytest.raises(UsageError, match=re.escape(f"{pyproject} [tool.memgate-parity]: request-timeout = nan")):
        impls._override("REQUEST", 7.0)
