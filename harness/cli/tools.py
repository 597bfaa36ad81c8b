"""Helpers for the command line: choosing implementations, decoding escaped arguments."""

from __future__ import annotations

import json
import re
from typing import Any

from harness.model import hostvalues

from harness.testees import impls

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


def parse_typed(text: str) -> Any:
    """A typed argument given as host-value JSON: -1, 2.5, true, null, "x", {"$float": "NaN"}."""
    try:
        return hostvalues.decode(json.loads(text))
    except ValueError as exc:
        raise SystemExit(f"error: {text!r} is not a host value in JSON ({exc})") from None


def open_impls(names: list[str] | None) -> dict[str, Any]:
    """The requested implementations (default: every available one); the oracle always first."""
    if names:
        chosen = list(dict.fromkeys([impls.oracle(), *names]))
        opened = {}
        for name in chosen:
            try:
                opened[name] = impls.get_impl(name)
            except impls.ImplementationUnavailable as exc:
                for impl in opened.values():
                    impl.close()
                raise SystemExit(f"error: {exc}") from None
        return opened
    opened = {}
    for name in [impls.oracle(), *[n for n in impls.names() if n != impls.oracle()]]:
        try:
            opened[name] = impls.get_impl(name)
        except impls.ImplementationUnavailable:
            continue
    return opened


def close_all(opened: dict[str, Any]) -> None:
    for impl in opened.values():
        impl.close()


def split_names(value: str | None) -> list[str] | None:
    return [n for n in value.split(",") if n] if value else None
