"""Settings: every environment variable the harness, its nox sessions, its builds and its tests read, in one
table (``SETTINGS``: name, type, range, default, meaning), each value checked before a command starts.

A setting comes, first found wins, from the command line (where an option sets it: ``--require-all``,
``--project``, ``--oracle``, ``--context``), the environment (``PARITY_*``), the checked project's
``pyproject.toml`` (the project harness/model/paths.py finds; a ``[tool.memgate-parity]`` table, keys such as
``request-timeout = 5``, for the settings the harness's own commands read: those with a ``key``), then its default.
An empty variable is the same as an unset one.

A value out of its range is a usage error (status 2) naming the variable, or the file and the key, before anything
runs: ``check`` is registered in ``status.PREFLIGHT`` when this module is imported (every command that reads a
setting imports it), and ``value`` raises the same error where a setting is read outside a command (a test
session). A number is finite and bounded: NaN or a negative deadline would never expire, infinity overflows a
timer. A flag is exactly ``0`` or ``1``. The strings (paths, names) are checked where they are used (paths.py,
impls.py, families.py name a missing folder or an unknown implementation).

The command line's numbers have their ranges here too (``OPTIONS``: ``fuzz --seconds``, ``--workers``, ...),
checked before a command runs (harness/cli/main.py ``check_budgets``). README.md, section "Settings", renders both
tables (``markdown``, ``options_markdown``); suites/model/test_settings.py keeps them the same.

This module reads the standard library and the model only: the noxfile may import it. It imports harness.model.paths
only when it reads the project's file, so importing it does not fix the project before ``--project`` is taken.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.model.names import did_you_mean
from harness.model.printable import printable
from harness.model.status import PREFLIGHT, UsageError

TABLE = "memgate-parity"  # the project's pyproject.toml: [tool.memgate-parity]
MAX_PYPROJECT = 1 << 20  # bytes: a pyproject.toml larger than this is refused, not read
MAX_SHOWN = 60  # characters of a bad value shown in its error


def number_text(number: float) -> str:
    """A bound as a message shows it: 3600, 0.5, 1000000 (never 1e+06)."""
    return str(int(number)) if float(number).is_integer() and abs(number) < 1e15 else f"{number:g}"


@dataclass(frozen=True)
class Range:
    """The values a number may take: ``low`` < value (``low_open``) or ``low`` <= value, value <= ``high``;
    whole numbers only when ``whole``. Every value in range is finite."""

    low: float
    high: float
    low_open: bool = False
    whole: bool = False
    unit: str = ""  # "seconds", "minutes", ...: how the value reads in a message

    def admits(self, value: float) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.whole and not isinstance(value, int):
            return False
        if not math.isfinite(value) or value > self.high:
            return False
        return value > self.low if self.low_open else value >= self.low

    def describe(self) -> str:
        """What the value must be, for messages and the documentation: "a finite number of seconds more than 0
        and at most 3600", "a whole number at least 1 and at most 1000000"."""
        low, high = number_text(self.low), number_text(self.high)
        bound = f"{'more than' if self.low_open else 'at least'} {low} and at most {high}"
        if self.whole:
            return f"a whole number {bound}"
        return f"a finite number{' of ' + self.unit if self.unit else ''} {bound}"

    def short(self) -> str:
        """The range in a few characters, for a table: "0 < s <= 3600", "1 <= n <= 1000000"."""
        symbol = "n" if self.whole else (self.unit[:1] or "x")
        return f"{number_text(self.low)} {'<' if self.low_open else '<='} {symbol} <= {number_text(self.high)}"


SECONDS = Range(0, 3600, low_open=True, unit="seconds")  # a deadline: more than nothing, at most an hour
EXAMPLES = Range(1, 1_000_000, whole=True)

# The kinds of setting: how a value is read from the environment (text) and from pyproject.toml (TOML).
SECONDS_KIND, FLAG, COUNT, TEXT = "seconds", "flag", "count", "text"


@dataclass(frozen=True)
class Setting:
    env: str  # the environment variable
    kind: str  # SECONDS_KIND, FLAG, COUNT or TEXT
    default: Any  # the typed value when unset (None: unset means what ``meaning`` says)
    meaning: str  # what it does, and who reads it
    key: str | None = None  # its key in [tool.memgate-parity], or None: the environment only
    option: str | None = None  # the command-line option that sets it too
    range: Range | None = None  # SECONDS_KIND and COUNT
    form: str = ""  # TEXT: what the string holds
    unset: str = "unset"  # the default's text when it is None

    def type_text(self) -> str:
        if self.kind == FLAG:
            return "0 or 1"
        if self.kind == TEXT:
            return self.form
        assert self.range is not None
        return self.range.short()

    def default_text(self) -> str:
        if self.default is None:
            return self.unset
        if self.kind == FLAG:
            return "1" if self.default else "0"
        return number_text(self.default) if isinstance(self.default, int | float) else str(self.default)


SETTINGS: tuple[Setting, ...] = (
    Setting("PARITY_REQUEST_TIMEOUT", SECONDS_KIND, None, "every command testee's request deadline, in place of "
            "each declaration's", key="request-timeout", range=SECONDS, unset="the declaration's"),
    Setting("PARITY_STARTUP_TIMEOUT", SECONDS_KIND, None, "every command testee's start-up deadline, in place of "
            "each declaration's", key="startup-timeout", range=SECONDS, unset="the declaration's"),
    Setting("PARITY_REQUIRE_ALL", FLAG, False, "leaving a declared implementation out of 'all available' is an "
            "error (commands; nox's parity sessions read the environment only); CI sets it",
            key="require-all", option="--require-all"),
    Setting("PARITY_CI_EXAMPLES", COUNT, 1000, "examples per property of the Hypothesis `ci` profile "
            "(harness/differential/profiles.py)", key="ci-examples", range=EXAMPLES),
    Setting("PARITY_REQUIRE_PYTHONS", FLAG, False, "nox: a Python of the matrix that cannot be found fails the run "
            "(as on CI, `CI=true`)"),
    Setting("PARITY_REQUIRE_BROWSER", FLAG, False, "nox's test sessions: a missing headless browser fails the page's "
            "tests instead of skipping them"),
    Setting("PARITY_REQUIRE_WASM_TOOLCHAIN", FLAG, False, "tests: a missing WASM toolchain fails the build tests "
            "instead of skipping them"),
    Setting("PARITY_REQUIRE_PYODIDE", FLAG, False, "tests: a missing Pyodide fails its tests instead of skipping "
            "them"),
    Setting("PARITY_INSTALL_TOOLCHAIN", FLAG, None, "builds and the browser tool: 1 installs what is missing "
            "(apt-get), 0 never does, even as root; unset: as root or on CI only"),
    Setting("PARITY_NPM_WARM", FLAG, False, "pyodide_host/build.py on CI: install Pyodide through the npm cache "
            "(otherwise CI's is made cold)"),
    Setting("PARITY_IMPLEMENTATIONS", TEXT, None, "more implementation declarations, from outside the project",
            form="folders, `:`-separated"),
    Setting("PARITY_FAMILIES", TEXT, None, "more op family files, after the harness's and the project's",
            form="files or folders, `:`-separated"),
    Setting("PARITY_ORACLE", TEXT, None, "this run's oracle (default: the declared one)", option="--oracle",
            form="an implementation"),
    Setting("PARITY_CONTEXT", TEXT, None, "implementations shown beside a witness, never judged",
            option="--context", form="implementations, `,`-separated"),
    Setting("PARITY_PROJECT", TEXT, None, "the project to check (default: found from the working directory up)",
            option="--project", form="a folder"),
    Setting("PARITY_CACHE", TEXT, None, "the tools' download and build cache (default: ~/.cache/memgate-parity)",
            form="a folder"),
    Setting("PARITY_IMPLS", TEXT, None, "the pytest suites' implementations (default: the oracle)", option="--impl",
            form="implementations, `,`-separated"),
    Setting("PARITY_ARTIFACTS", TEXT, None, "the page's browser tests put their screenshots here", form="a folder"),
    Setting("PARITY_SPEED_BASELINE", TEXT, None, ".ci/run's speed gate compares with this revision (default: the "
            "last commit before a gap of an hour)", form="a git revision"),
)
BY_ENV = {setting.env: setting for setting in SETTINGS}
BY_KEY = {setting.key: setting for setting in SETTINGS if setting.key}


def _shown(raw: str) -> str:
    return printable(raw, MAX_SHOWN)


def _must(setting: Setting) -> str:
    if setting.kind == FLAG:
        return "must be 0 or 1 (or unset)"
    assert setting.range is not None
    return f"must be {setting.range.describe()}"


def from_environment(setting: Setting, raw: str) -> Any:
    """The typed value of a non-empty environment value; UsageError naming the variable when out of range."""
    if setting.kind == TEXT:
        return raw
    if setting.kind == FLAG:
        if raw in ("0", "1"):
            return raw == "1"
        raise UsageError(f"{setting.env}={_shown(raw)}: {_must(setting)}")
    assert setting.range is not None
    try:
        number: float = int(raw) if setting.kind == COUNT else float(raw)
    except ValueError:
        number = math.nan
    if not setting.range.admits(number):
        raise UsageError(f"{setting.env}={_shown(raw)}: {_must(setting)}")
    return number


def from_pyproject(setting: Setting, value: Any, where: str) -> Any:
    """The typed value of a [tool.memgate-parity] key; UsageError naming the file and the key when of a wrong type
    or out of range."""
    ok = {TEXT: isinstance(value, str), FLAG: isinstance(value, bool),
          COUNT: setting.range is not None and setting.range.admits(value),
          SECONDS_KIND: setting.range is not None and setting.range.admits(value)}[setting.kind]
    if not ok:
        must = "must be true or false" if setting.kind == FLAG else "must be a string" if setting.kind == TEXT else \
            _must(setting)
        raise UsageError(f"{where}: {setting.key} = {_shown(repr(value))}: {must}")
    return float(value) if setting.kind == SECONDS_KIND else value


def pyproject_file() -> Path | None:
    """The checked project's pyproject.toml, or None (no project found, or it has none)."""
    from harness.model import paths  # here: importing this module must not fix the project before --project is taken

    if paths.PROBLEM:
        return None
    path = paths.ROOT / "pyproject.toml"
    return path if path.is_file() else None


def project_table() -> tuple[dict[str, Any], str]:
    """The project's [tool.memgate-parity] table ({} when it has none) and how to name it in an error.
    UsageError naming the file when it cannot be read, is not TOML, or the table is not one."""
    path = pyproject_file()
    if path is None:
        return {}, ""
    where = f"{path} [tool.{TABLE}]"
    try:
        if path.stat().st_size > MAX_PYPROJECT:
            raise UsageError(f"{path}: larger than {MAX_PYPROJECT} bytes; not read for [tool.{TABLE}]")
        with path.open("rb") as handle:
            document = tomllib.load(handle)
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not TOML ({printable(str(exc), 200)})") from None
    tool = document.get("tool", {})
    table = tool.get(TABLE, {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise UsageError(f"{path}: tool.{TABLE} must be a table ([tool.{TABLE}])")
    return table, where


def _key_problem(key: str, value: Any, where: str) -> str | None:
    setting = BY_KEY.get(key)
    if setting is None:
        env_only = BY_ENV.get("PARITY_" + key.upper().replace("-", "_"))
        if env_only is not None:
            return (f"{where}: {key}: not a project setting; {env_only.env} is read from the environment only "
                    f"(its keys: {', '.join(BY_KEY)})")
        return f"{where}: unknown key {_shown(key)!r}{did_you_mean(key, BY_KEY)} (its keys: {', '.join(BY_KEY)})"
    try:
        from_pyproject(setting, value, where)
    except UsageError as exc:
        return str(exc)
    return None


def value(env: str) -> Any:
    """A setting's value: from the environment, else the project's pyproject.toml (settings with a key), else its
    default. A bad value is a UsageError naming it (the command line, where an option sets it, is its caller's:
    it comes first)."""
    setting = BY_ENV[env]
    raw = os.environ.get(env)
    if raw:
        return from_environment(setting, raw)
    if setting.key is not None:
        table, where = project_table()
        if setting.key in table:
            return from_pyproject(setting, table[setting.key], where)
    return setting.default


def problems(environ: dict[str, str] | None = None) -> list[str]:
    """Every bad setting: the environment's (``environ``, default this process's), then the project's
    [tool.memgate-parity] keys (unknown, environment-only, of a wrong type or out of range)."""
    environ = dict(os.environ) if environ is None else environ
    found = []
    for setting in SETTINGS:
        raw = environ.get(setting.env)
        if raw:
            try:
                from_environment(setting, raw)
            except UsageError as exc:
                found.append(str(exc))
    try:
        table, where = project_table()
    except UsageError as exc:
        return [*found, str(exc)]
    found += [problem for key, item in table.items() if (problem := _key_problem(str(key), item, where))]
    return found


def check() -> None:
    """The preflight check: every setting in range, or a usage error naming each bad one (status 2)."""
    found = problems()
    if found:
        raise UsageError("; ".join(found))


@dataclass(frozen=True)
class Option:
    """A number of the command line and its range; ``budget``: more than 0 because a budget of nothing checks
    nothing (it would leave a report of no example)."""

    name: str
    range: Range
    budget: bool = False


WEEK = 7 * 24 * 3600  # seconds: the longest budget a run may be given (a campaign runs shards, not one endless run)
WORKERS = Range(1, 256, whole=True)
# command -> its numeric options: each finite and in range (NaN, infinity, 1e308 or a negative wait would never end
# or overflow a timer), checked before anything runs or is written (harness/cli/main.py check_budgets).
OPTIONS: dict[str, tuple[Option, ...]] = {
    "fuzz": (Option("--minutes", Range(0, WEEK // 60, low_open=True, unit="minutes"), budget=True),
             Option("--seconds", Range(0, WEEK, low_open=True, unit="seconds"), budget=True),
             Option("--stop-after-new", Range(0, WEEK, unit="seconds")),
             Option("--workers", WORKERS),
             Option("--max-examples", Range(1, 10**12, whole=True))),
    "sweep": (Option("--workers", WORKERS),),
    "bench": (Option("--seconds", Range(0, 3600, low_open=True, unit="seconds"), budget=True),),
    "tracecheck": (Option("--examples", Range(1, 10**7, whole=True)),
                   Option("--validate-every", Range(1, 10**9, whole=True))),
}


def check_options(command: str, given: dict[str, Any]) -> None:
    """A usage error naming the first of ``command``'s numeric options (``given``: option -> value, None when not
    given) that is out of its range."""
    for option in OPTIONS.get(command, ()):
        number = given.get(option.name)
        if number is None or option.range.admits(number):
            continue
        shown = f"{number:g}" if isinstance(number, float) else str(number)
        why = ": a budget of nothing checks nothing" if option.budget and number <= 0 else ""
        raise UsageError(f"{option.name} {shown}: must be {option.range.describe()}{why}")


def markdown(settings: Iterable[Setting] = SETTINGS) -> str:
    """The table README.md's section "Settings" shows (suites/model/test_settings.py checks they are the same)."""
    lines = ["| variable | pyproject key | option | type, range | default | meaning |",
             "| --- | --- | --- | --- | --- | --- |"]
    for setting in settings:
        lines.append(f"| `{setting.env}` | {f'`{setting.key}`' if setting.key else '-'} | "
                     f"{f'`{setting.option}`' if setting.option else '-'} | {setting.type_text()} | "
                     f"{setting.default_text()} | {setting.meaning} |")
    return "\n".join(lines)


def options_markdown() -> str:
    """The command line's numbers and their ranges (``OPTIONS``), as README.md shows them."""
    lines = ["| command | option | range |", "| --- | --- | --- |"]
    lines += [f"| {command} | `{option.name}` | {option.range.short()} |" for command, options in OPTIONS.items()
              for option in options]
    return "\n".join(lines)


if check not in PREFLIGHT:
    PREFLIGHT.append(check)

__all__ = ["OPTIONS", "SECONDS", "SETTINGS", "Option", "Range", "Setting", "check", "check_options", "markdown",
           "options_markdown", "problems", "value"]
