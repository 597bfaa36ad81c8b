"""``memgate-parity``: one command for everything a maintainer runs (pyproject.toml, [project.scripts]).

    memgate-parity COMMAND [ARGS...]      a command of the harness (python -m harness COMMAND)
    memgate-parity --project DIR ...      the project to check (default: found from the working directory up)
    memgate-parity fixtures ...           the fixture generators (python -m generators)
    memgate-parity TOOL ...               a maintainer tool (python -m harness.tools.TOOL): plants, mutants, ...
    memgate-parity build wasm|pyodide ... an implementation's build script (wasm_host/build.py, ...)

Each subcommand runs the module the older form runs, with the same arguments and the same exit statuses
(harness/model/status.py); ``python -m harness``, ``python -m generators``, ``python -m harness.tools.NAME`` and
``python wasm_host/build.py`` keep working as they are. The modules are named here as a table and imported
only when their subcommand runs.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import runpy
import sys
from collections.abc import Callable
from typing import Any

from harness.model import settings  # noqa: F401 - its check of every PARITY_* joins the preflight of every subcommand
from harness.model.names import did_you_mean
from harness.model.project_option import QUIET, take_project
from harness.model.status import STATUSES, USAGE, UsageError, exit_with, preflight

# subcommand -> (module whose main(argv) it runs, what it does)
MODULES: dict[str, tuple[str, str]] = {
    "fixtures": ("generators.__main__", "write, check, list or release the fixture files"),
    "plants": ("harness.tools.plants", "planted divergences: the fuzzer must find each, once, with its cause"),
    "mutants": ("harness.tools.mutants", "planted bugs in the reference, the core and the bindings: cases catch each"),
    "trace-plants": ("harness.tools.trace_plants", "a bug planted in each op of the Rust core shows at its step"),
    "coverage": ("harness.tools.coverage", "the branches of the reference and the core the workload takes, or why not"),
    "hostile": ("harness.tools.hostile", "hostile testees: timed, weighed fuzz runs, one fault each"),
    "cargo-features": ("harness.tools.cargo_features", "do the Rust tests compile the core as it ships?"),
    "bench-baseline": ("harness.tools.bench_baseline", "the Rust core's bare cost per op against another revision"),
    "harness-baseline": ("harness.tools.harness_baseline",
                         "the speed gate: the harness's speed against another revision, failing on a slowdown"),
    "chaos": ("harness.tools.chaos", "requests streamed through harness run while its testee is killed from outside"),
    "reports-check": ("harness.tools.reports_check", "every file in reports/ names its session and run"),
    "browser": ("harness.tools.browser", "find or install the headless browser of the page's tests"),
    "page-bench": ("harness.tools.page_bench", "how fast the page opens with 300 and 3,000 classes (a browser figure)"),
    "actionlint": ("harness.tools.actionlint", "check the GitHub Actions workflows"),
    "workflow-rules": ("harness.tools.workflow_rules", "the workflow's own rules: pins, seeds, merges, retention"),
    "last-run": ("harness.tools.last_run", "the last successful run of a workflow on a branch (the CI baseline)"),
    "unicode-tables": ("harness.tools.make_unicode_tables", "regenerate the per-version Unicode tables (data/)"),
}
# build TARGET -> (script, what it builds)
BUILDS: dict[str, tuple[str, str]] = {
    "wasm": ("wasm_host/build.py", "the WASM core and its Node package (wasm_host/pkg/)"),
    "pyodide": ("pyodide_host/build.py", "the pinned Pyodide that runs the reference in WebAssembly"),
}


def _harness_commands() -> dict[str, str]:
    from harness.cli import commands  # the table (harness/cli/commands/): the help needs no parser

    return commands.summaries()


def usage() -> str:
    lines = [__doc__.split("\n\n")[0].replace("``", ""), "", "harness commands (python -m harness COMMAND):"]
    lines += [f"  {name:<16} {what}" for name, what in _harness_commands().items()]
    lines += ["", "fixtures and maintainer tools:"]
    lines += [f"  {name:<16} {what}" for name, (_, what) in MODULES.items()]
    lines += ["", "builds (memgate-parity build TARGET [ARGS...]):"]
    lines += [f"  build {name:<10} {what}" for name, (_, what) in BUILDS.items()]
    lines += ["", "memgate-parity SUBCOMMAND --help shows a subcommand's options.", "", "exit statuses:"]
    lines += [f"  {number}  {text}" for number, text in STATUSES.items()]
    return "\n".join(lines)


def _run_module(module: str, argv: list[str]) -> int:
    main: Callable[..., Any] = importlib.import_module(module).main
    preflight()  # the checks its imports registered (the op registry's), as `python -m` runs them
    if inspect.signature(main).parameters:
        return _status(lambda: main(argv))
    sys.argv = [module, *argv]  # a tool without an argv parameter reads sys.argv
    return _status(main)


def _run_script(path: str, argv: list[str]) -> int:
    from harness.model.paths import ROOT

    sys.argv = [str(ROOT / path), *argv]
    return _status(lambda: runpy.run_path(str(ROOT / path), run_name="__main__"))


def _status(run: Callable[[], Any]) -> int:
    """A main's status: its return value, or the status of the SystemExit it raised (argparse: 2)."""
    try:
        result = run()
    except SystemExit as exc:
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    return result if isinstance(result, int) else 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if argv else USAGE
    if argv[0] in ("-V", "--version"):
        from harness.model.envelope import version_line

        print(version_line())
        return 0
    quiet = list(itertools.takewhile(lambda word: word in QUIET, argv))  # -q before the command (the README)
    if quiet:
        argv = argv[len(quiet):]
        if argv and argv[0] in ("-h", "--help", "help", "-V", "--version"):
            return main(argv)  # `-q --help`: the help (or the version) as without -q; there is no verdict to keep
        commands = _harness_commands()
        if not argv or argv[0] not in commands:
            given = repr(argv[0]) if argv else "nothing"
            raise UsageError(f"-q comes with a harness command (python -m harness COMMAND: {', '.join(commands)}); "
                             f"it was followed by {given}" + (did_you_mean(argv[0], list(commands)) if argv else ""))
        from harness.cli import main as cli

        preflight()
        return cli.main([*quiet, *argv])
    name, rest = argv[0], argv[1:]
    if name in MODULES:
        return _run_module(MODULES[name][0], rest)
    if name == "build":
        if not rest or rest[0] not in BUILDS:
            raise UsageError(f"build takes a target: {', '.join(BUILDS)}"
                                     + (did_you_mean(rest[0], list(BUILDS)) if rest else ""))
        return _run_script(BUILDS[rest[0]][0], rest[1:])
    harness_commands = _harness_commands()
    if name in harness_commands:
        from harness.cli import main as cli

        preflight()
        return cli.main(argv)
    known = [*harness_commands, *MODULES, "build"]
    raise UsageError(f"unknown subcommand {name!r}{did_you_mean(name, known)}; memgate-parity --help "
                             "lists them")


def run() -> None:
    """The console script: ``main`` with the project's exit statuses (a usage error: 2, with its message). A
    leading ``--project DIR`` is taken before anything reads a path (harness/model/project_option.py)."""
    argv = take_project(sys.argv[1:])
    exit_with(lambda: main(argv))
