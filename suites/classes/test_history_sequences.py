"""The page's memory by state sequence (issue 53, item 6): over every pattern of earlier runs that saw a class
or did not (seen, gone, seen again...), ``Past.first_seen`` names the first run of the newest unbroken stretch
that saw it, and ``Past.seen`` lists each run's presence, oldest first. A class gone in the last run is new
again in this one (None)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from harness.classes.history import Past

ANCHOR = "c-1"


def _summary(number: int, seen: bool) -> dict[str, Any]:
    classes = [{"anchor": ANCHOR, "op": "normalize_fact_text", "implementations": ["pyo3"], "cause": "crash",
                "detail": None, "step": None, "status": "new"}] if seen else []
    other = {"anchor": f"other-{number}", "op": "normalize_fact_text", "implementations": ["wasm"],
             "cause": "crash", "detail": None, "step": None, "status": "new"}
    return {"ended": f"2026-01-0{number + 1}T00:00:00Z", "number": number, "classes": [*classes, other]}


def _first_of_last_stretch(pattern: tuple[bool, ...]) -> int | None:
    """The reference rule, written out: the newest run without the class ends the stretch before it."""
    if not pattern or not pattern[-1]:
        return None
    start = len(pattern) - 1
    while start > 0 and pattern[start - 1]:
        start -= 1
    return start


PATTERNS = [p for n in range(0, 6) for p in itertools.product((True, False), repeat=n)]


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: "".join("S" if s else "-" for s in p) or "none")
def test_first_seen_restarts_after_every_gap(pattern: tuple[bool, ...]) -> None:
    past = Past([(Path(f"run-{i}.json"), _summary(i, seen)) for i, seen in enumerate(pattern)])
    assert past.seen(ANCHOR) == list(pattern)
    first = past.first_seen(ANCHOR)
    expected = _first_of_last_stretch(pattern)
    assert (None if first is None else first["number"]) == expected, pattern


def test_seen_gone_seen_again_is_the_newest_stretch() -> None:
    """The sequence the issue names, spelled out: seen in runs 0 and 1, gone in 2, seen again in 3 and 4."""
    past = Past([(Path(f"run-{i}.json"), _summary(i, seen)) for i, seen in enumerate((True, True, False, True, True))])
    first = past.first_seen(ANCHOR)
    assert first is not None and first["number"] == 3
