"""One rule of a cause classifier: a name, the causes it can name, and when it fires.

Both classifiers are tables of these: the one that reads step traces (``Rule[Facts]``, harness/differential/
causes/) and the counterfactual one for black boxes (``Rule[Probe]``, harness/differential/counterfactual/).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

Seen = TypeVar("Seen")  # what a rule reads: where two traces part, or a divergence to probe


@dataclass(frozen=True)
class Verdict:
    cause: str
    detail: str | None  # narrows the cause: the Unicode step of a skew, the parameter of a coercion
    why: str  # one line for a person
    chars: tuple[str, ...] = ()  # the characters the step treated differently (a character cause), in order
    at: str | None = None  # the step the cause is at when a check that holds it is where the traces part


@dataclass(frozen=True)
class Rule(Generic[Seen]):
    name: str  # stable: reports and the statistics name it
    causes: tuple[str, ...]  # every cause it can name
    fires: Callable[[Seen], Any]  # a Verdict, None when it does not fire (a counterfactual rule: or Again)
    doc: str  # when it fires, in a few words (docs/fuzzing.md lists them in their classifier's order)
