"""Findings about testees: what an implementation did wrong as a program, not as an implementation of the
contract. They are never divergences and never go to the cause classifier.

The verdict stage decides them before anything is compared: the command client
(``harness/testees/command.py``) for protocol faults, crashes and hangs, the reproduction gate
(``harness/differential/verdict.py``) for answers that do not come again, or that a fresh instance answers
otherwise. Each finding is kept once per (implementation, kind), with a count and the first evidence (the first
bytes of the offending line, the stderr tail, the exit status, the request).

``KINDS`` is the table of kinds, with what each means; reports carry it (schema: the ``findings``
section of ``schemas/divergence-report-v2.schema.json``).
"""

from __future__ import annotations

import copy
from typing import Any

# kind -> (family, what it means). Families: "protocol" (the testee broke the protocol),
# "process" (it died or hung on a request a fresh process then answered), "answers" (its answers
# do not come again), "run" (what the harness did about it).
KINDS: dict[str, tuple[str, str]] = {
    "not_json": ("protocol", "a line on stdout that is not a JSON object"),
    "not_utf8": ("protocol", "a line on stdout that is not valid UTF-8"),
    "line_too_long": ("protocol", "a line over the implementation's line limit (read no further than the limit)"),
    "wrong_id": ("protocol", "an answer whose id is not that of the request it answers, nor a repeat"),
    "duplicate_answer": ("protocol", "a request answered twice (the same answer again)"),
    "out_of_order": ("protocol", "answers not in the order of their requests"),
    "missing_answers": ("protocol", "a batch answered with fewer answers than it had requests, and no trap"),
    "extra_answers": ("protocol", "a batch answered with more answers than it had requests"),
    "malformed_answer": ("protocol",
                         "an answer that is neither {ok} nor {error: {code, message}}, or not a host value"),
    "refused_op": ("protocol", "a well-formed request of an op of the table answered bad_request"),
    "stderr_flood": ("protocol", "more bytes on stderr than the line limit, from one process (read and dropped)"),
    "oversized_answer": ("protocol", "an answer's value, error code or message over its cap (harness/model/caps.py): "
                                     "kept as its first characters, its length and its sha256, compared by the digest"),
    "oversized_description": ("protocol", "a self-description with a string over its cap: kept as its first "
                                          "characters, its length and its sha256; the run goes on"),
    "startup_deadline": ("protocol", "no answer to the start handshake within the start-up deadline"),
    "handshake_lie": ("protocol", "a self-description that contradicts the declaration or the testee's own answers"),
    "flaky_crash": ("process", "died or trapped on a request that a fresh process then answered"),
    "flaky_timeout": ("process", "hung on a request that a fresh process then answered"),
    "restart_failed": ("process", "a fresh process could not be started after a failure"),
    "batch_context": ("answers",
                      "an answer that differs only inside a batch: alone, the same request is answered otherwise"),
    "nondeterministic": ("answers", "the same request answered differently when sent again"),
    "history_dependent": ("answers", "answered otherwise after earlier requests than when fresh: a fresh instance "
                                     "answers the same request otherwise, as the others do (a host that memoizes "
                                     "by ==); later disagreements of that candidate class are counted here"),
    "trace_mismatch": ("answers", "a trace that is not a trace-v1 document of the op in the specification's step "
                                  "order, or that does not end in the op's own output"),
    "taken_out": ("run", "too many protocol faults, or crashes and hangs, in a row: left out of the rest of the run"),
}

# Faults in a row (no good answer between them) after which a testee is taken out of a run.
DEFAULT_MAX_FAULTS = 20
EVIDENCE_BYTES = 200  # of an offending line


def line_evidence(line: bytes) -> str:
    """The first bytes of a line, printable and ASCII (what a report shows of it): a byte outside ASCII as
    ``\\xNN``, a control byte (newline, CR and ESC among them) as its escape (harness/model/printable.py)."""
    from harness.model.printable import printable

    head = line[:EVIDENCE_BYTES]
    text = printable(head.decode("ascii", "backslashreplace"))
    return text + ("..." if len(line) > EVIDENCE_BYTES else "")


class Findings:
    """Findings by (implementation, kind): a count and the first one's message and evidence."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str], dict[str, Any]] = {}

    def add(self, impl: str, kind: str, message: str, count: int = 1, **evidence: Any) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown finding kind {kind!r}; known: {', '.join(KINDS)}")
        key = (impl, kind)
        if key in self._by_key:
            self._by_key[key]["count"] += count
            return
        self._by_key[key] = {"impl": impl, "kind": kind, "family": KINDS[kind][0], "count": count,
                             "message": message, "evidence": {k: v for k, v in evidence.items() if v is not None}}

    def merge(self, items: list[dict[str, Any]]) -> None:
        """Add findings in their JSON form (from a worker process, a checkpoint, another report)."""
        for item in items:
            self.add(item["impl"], item["kind"], item["message"], item["count"], **item.get("evidence", {}))

    def to_json(self) -> list[dict[str, Any]]:
        return [copy.deepcopy(self._by_key[key]) for key in sorted(self._by_key)]

    def take(self) -> list[dict[str, Any]]:
        """Every finding so far, in JSON form, and forget them (a worker ships what is new since last time)."""
        items = self.to_json()
        self._by_key.clear()
        return items

    def impls(self) -> set[str]:
        return {impl for impl, _ in self._by_key}

    def __len__(self) -> int:
        return len(self._by_key)

    def __bool__(self) -> bool:
        return bool(self._by_key)


def render(items: list[dict[str, Any]]) -> str:
    """Findings for people: one line each, then its evidence, every text safe to print
    (harness/model/printable.py): the FINDING line is one line; an evidence field keeps its line breaks (a
    stderr tail) as lines of its own, indented."""
    from harness.model.printable import printable, printable_block

    lines = []
    for item in items:
        lines.append(printable(f"FINDING {item['impl']}: {item['kind']} x{item['count']}: {item['message']}"))
        for name, value in item.get("evidence", {}).items():
            lines.append(f"    {printable(str(name))}: {printable_block(str(value), '      ', limit=600)}")
    return "\n".join(lines)
