"""What a divergence class is known by: ``ClassKey``, one record, built in one place with the step's
collapse done once (``class_step``: every JSON argument's parse is one step; at ``args`` a binding's
conversion is one class whatever argument a witness shows it changing)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from harness.model.registry import step_titles
from harness.model.traces import ARGS

# Causes whose classes are one per op and share, whatever step a witness parts at: a validation order is one
# difference of the op (the threshold checked before candidates_json parts at gate.candidates_json on one witness,
# at the outcome on another).
STEPLESS_CAUSES = frozenset({"validation_order"})


def class_step(step: str | None, cause: str | None = None) -> str | None:
    """The step a class is known by: where the traces part, except that every JSON argument's parse is one
    parse (the strictness rules, harness/model/registry.JSON_RULES), whichever argument shows it, and that a
    cause of ``STEPLESS_CAUSES`` has none."""
    if cause in STEPLESS_CAUSES:
        return None
    declared = step_titles().get(step or "")
    return "json" if declared is not None and declared.role == "json" else step


@dataclass(frozen=True)
class ClassKey:
    """(op, the implementations of the share in run order, cause, detail, the class step). Fuzz runs, sweeps
    and shard merges group by it; a report diff across runs knows a class by its ``identity``."""

    op: str
    impls: tuple[str, ...]
    cause: str
    detail: str | None
    step: str | None

    @classmethod
    def of(cls, op: str, impls: Iterable[str], cause: str, detail: str | None, step: str | None) -> ClassKey:
        known = class_step(step, cause)
        # At args a binding's conversion is one step, whichever arguments a witness shows it changing (a JSON
        # round trip in a host changes a text's lone surrogates and, on another witness, a huge threshold too).
        return cls(op, tuple(impls), cause, None if known == ARGS else detail, known)

    @classmethod
    def of_report(cls, divergence: dict[str, Any]) -> ClassKey:
        """The key of a divergence as a report holds it (its JSON form)."""
        return cls.of(divergence["op"], divergence["divergent"], divergence["cause"], divergence["detail"],
                      divergence.get("step"))

    def named_by(self, impls: Iterable[str]) -> ClassKey:
        """The same class named by other implementations (a class that grew)."""
        return replace(self, impls=tuple(impls))

    @property
    def identity(self) -> tuple[Any, ...]:
        """The class across runs: the implementations as a set (two runs may open them in another order)."""
        return self.op, tuple(sorted(self.impls)), self.cause, self.detail, self.step

    @property
    def unstepped(self) -> tuple[Any, ...]:
        """The identity but for the step: a class that moved to another step between two runs keeps it."""
        return self.identity[:4]

    @property
    def anchor(self) -> str:
        """A name for the class, the same in every run that sees it (the page's anchor of its card): a digest
        of its identity, never its place in a report."""
        digest = hashlib.sha256(json.dumps(self.identity, ensure_ascii=True).encode("ascii")).hexdigest()
        return f"class-{digest[:12]}"
