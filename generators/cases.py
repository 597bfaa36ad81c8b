"""A fixture case (``Case``: its inputs, never its expectation) and small helpers for writing case lists: JSON
texts, candidates, vectors."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Case:
    id: str
    op: str
    comment: str
    flags: tuple[str, ...]
    args: dict[str, Any]  # Python host values, exactly as passed to the binding function
    steps: tuple[str, ...] = ()  # steps it pins besides those derived (generators/steps.py)


def js(value: Any) -> str:
    """A JSON text as a caller would build it (compact, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def cand(cid: Any, text: Any, embedding: Any = None, pinned: Any = None, **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"id": cid, "text": text}
    if embedding is not None:
        item["embedding"] = embedding
    if pinned is not None:
        item["pinned"] = pinned
    item.update(extra)
    return item


def unit_at(cosine: float) -> list[float]:
    """A 2-D vector whose cosine with [1, 0] is ``cosine`` to about binary32 precision."""
    return [cosine, round(math.sqrt(1.0 - cosine * cosine), 9)]


class CaseList:
    """Collects cases; ids are written out in full so that they never depend on position."""

    def __init__(self) -> None:
        self.cases: list[Case] = []

    def add(self, case_id: str, op: str, comment: str, flags: str | tuple[str, ...] = (),
            steps: str | tuple[str, ...] = (), **args: Any) -> None:
        """One case; `steps` names steps it pins besides those its flags and its error give
        (generators/steps.py), as a space-separated string or a tuple."""
        if isinstance(flags, str):
            flags = tuple(flags.split())
        if isinstance(steps, str):
            steps = tuple(steps.split())
        self.cases.append(Case(case_id, op, comment, tuple(flags), args, tuple(steps)))
