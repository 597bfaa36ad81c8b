"""Where docs/contract.md defines a step's value as a function of the value the step before it produced: that
function, written from the contract's words (its sets are the contract's: reference/unicode_data.py).

``FOLLOWS`` maps a step to (the step whose value it is computed from, the function). The trace check
(harness/testees/traces.py, run by ``tracecheck``, ``selftest`` and every trace a run reads) holds each trace to
it wherever the two steps stand side by side: a trace whose join is not the join of its own trimmed pieces says
one thing and did another (a fused collapse that split on its own break set), whatever its output. Steps that
read Unicode data (NFC, the case mappings) are left out: their values differ rightly between Unicode versions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .unicode_data import EDGE_PUNCTUATION, QUOTE_DASH_MAP, WHITE_SPACE

_RUN = re.compile("[" + "".join(re.escape(ch) for ch in sorted(WHITE_SPACE)) + "]+")


def _runs_to_one_space(text: str) -> str:
    """norm.white_space: every maximal run of White_Space becomes one U+0020."""
    return _RUN.sub(" ", text)


def _strip(text: str, drop: Callable[[str], bool]) -> str:
    start, end = 0, len(text)
    while start < end and drop(text[start]):
        start += 1
    while end > start and drop(text[end - 1]):
        end -= 1
    return text[start:end]


FOLLOWS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "norm.quote_dash": ("norm.nfc", lambda text: text.translate(QUOTE_DASH_MAP)),
    "norm.white_space": ("norm.nfc_again", _runs_to_one_space),
    "norm.edges": ("norm.white_space",
                   lambda text: _strip(text, lambda ch: ch in WHITE_SPACE or ch in EDGE_PUNCTUATION)),
    "ctx.trim": ("ctx.split", lambda pieces: [_strip(piece, lambda ch: ch in WHITE_SPACE) for piece in pieces]),
    "ctx.join": ("ctx.trim", lambda pieces: " ".join(piece for piece in pieces if piece)),
}
