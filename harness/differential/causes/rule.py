"""One rule of the cause classifier: a name, the cause it names, and when it fires."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness.differential.causes.facts import Facts


@dataclass(frozen=True)
class Verdict:
    cause: str
    detail: str | None  # narrows the cause: the Unicode step of a skew, the parameter of a coercion
    why: str  # one line for a person


@dataclass(frozen=True)
class Rule:
    name: str  # stable: reports and the statistics name it
    causes: tuple[str, ...]  # every cause it can name
    fires: Callable[[Facts], Verdict | None]
    doc: str  # when it fires, in a few words (docs/fuzzing.md lists them in ORDER)
