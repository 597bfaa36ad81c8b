"""Suggestions for a misspelt name (an op, an implementation, a template, a command)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """'; did you mean X?' when one of ``choices`` is close to ``name``, else ''."""
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
