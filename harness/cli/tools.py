"""Helpers for the command line: choosing implementations, decoding escaped arguments."""

from __future__ import annotations

import json
import re
import sys
from typing import Any, TextIO

from harness.model import hostvalues, settings
from harness.model.status import CommandError, Unavailable, UsageError
from harness.testees import impls
from harness.testees.errors import UnknownImplementation

REQUIRE_ALL_ENV = "PARITY_REQUIRE_ALL"  # CI sets it: leaving a declared implementation out is an error
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[nrt0\\'\"])")
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "0": "\0", "\\": "\\", "'": "'", '"': '"'}


def unescape(text: str) -> str:
    r"""Decode Python-style escapes (\x1c, \u00e9, \U0001f600, \n, \t, \\) in a shell argument.

    \ud800 gives a lone surrogate, as in Python source.
    """
    def replace(match: re.Match[str]) -> str:
        body = match.group(1)
        if body[0] in "xuU":
            return chr(int(body[1:], 16))
        return _SIMPLE[body]

    return _ESCAPE.sub(replace, text)


def parse_typed(text: str, quiet: bool = False) -> Any:
    """A typed argument given as host-value JSON: -1, 2.5, true, null, "x", {"$float": "NaN"}. Not one: exit
    with an error, or (``quiet``) raise ValueError."""
    try:
        return hostvalues.decode(json.loads(text))
    except ValueError as exc:
        if quiet:
            raise
        raise UsageError(f"{text!r} is not a host value in JSON ({exc})") from None


def open_impls(names: list[str] | None, cutoff: float | None = None, require_all: bool = False,
               stream: TextIO = sys.stderr) -> dict[str, Any]:
    """The requested implementations (default: every available one, each one left out named on a line;
    ``require_all`` makes leaving one out an error); the oracle always first. ``cutoff``: a
    time.monotonic() after which no command testee waits (the run's budget)."""
    require_all = require_all or bool(settings.value(REQUIRE_ALL_ENV))  # the option first, then env, pyproject
    if names:
        chosen = list(dict.fromkeys([*_oracles_of(names), *names]))
        started = impls.start_each(chosen, cutoff)
        opened = {name: testee for name, testee in started.items() if not isinstance(testee, Exception)}
        failed = next((error for error in started.values() if isinstance(error, Exception)), None)
        if failed is not None:
            close_all(opened)
            raise impl_error(failed) from None
        return opened
    opened = {}
    left_out = []
    for name, testee in impls.start_each([*impls.oracles(), *impls.names()], cutoff).items():
        if isinstance(testee, impls.DeclarationError):
            close_all(opened)
            raise testee
        if isinstance(testee, Exception):
            left_out.append(f"{name}: {str(testee).splitlines()[0][:300]}")
        else:
            opened[name] = testee
    left_out += [f"{name}: broken declaration: {problem}" for name, problem in impls.broken().items()]
    for line in left_out:
        stream.write(f"left out of 'all available': {line}\n")
    if left_out and require_all:
        close_all(opened)
        kind = UsageError if impls.broken() else Unavailable  # a broken declaration is a configuration error
        raise kind(f"{len(left_out)} implementation(s) left out of 'all available' and --require-all (or "
                   f"{REQUIRE_ALL_ENV}=1) is set")
    return opened


def _oracles_of(names: list[str]) -> list[str]:
    """The oracle of every op the named implementations serve (an op family's own, or this run's)."""
    out: dict[str, None] = {}
    for name in names:
        try:
            served = impls.declaration(name).ops
        except (impls.ImplementationUnavailable, impls.DeclarationError):
            continue  # named when it is opened
        out.update(dict.fromkeys(impls.oracle(op) for op in served))
    return list(out) or impls.oracles()[:1]


def impl_error(exc: Exception) -> CommandError:
    """The command error for an implementation that cannot be had: an unknown name or a broken declaration is
    a usage error (status 2), one that is declared and cannot start is unavailable (status 3)."""
    if isinstance(exc, UnknownImplementation | impls.DeclarationError):
        return UsageError(str(exc))
    return Unavailable(str(exc))


def request_deadline(names: list[str] | None) -> float:
    """The largest request deadline of the implementations a command will open (D of a budget)."""
    chosen = names or impls.names()
    found = []
    for name in dict.fromkeys([*impls.oracles(), *chosen]):
        try:
            found.append(impls.request_deadline_of(impls.declaration(name)))
        except (impls.ImplementationUnavailable, impls.DeclarationError):
            continue
    return max(found, default=0.0)


def close_all(opened: dict[str, Any]) -> None:
    for impl in opened.values():
        impl.close()


def split_names(value: str | None) -> list[str] | None:
    return [n for n in value.split(",") if n] if value else None
