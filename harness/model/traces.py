"""Step traces as data (schemas/trace-v1.schema.json): reading one, comparing two, finding where they part.

A trace is ``{"schema": "trace-v1", "op", "steps": [{"step", "value"}, ...], "outcome"}``: step ``args``
first (each argument in the host view: ``reference/tracing.py::host_view``, the Rust core's
``host::host_view``), then the op's steps in the order it ran them, then its outcome (``{"result"}`` or
``{"error", "step"}``).

Two implementations' traces agree at a step when its values are equal, with the rules of ``ARGS_RULES``
at step ``args`` only: hosts hand the same argument over as different host types (a JavaScript number
is a float where Python has an int), and a value no parameter accepts is named by its host's type name
(``NoneType``, ``null``). Past ``args`` every value is the core's own and must be equal exactly (floats
are compared by their bits, as ``{"$f64": hex}`` texts). The outcomes compare as ``same_outcome``: a JSON-result
op's result text by the JSON value it holds, as every comparison of a result (``compare.same_result``).

Pure data: no process machinery, no jsonschema (harness/testees/traces.py validates), so it runs wherever
the reference runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from harness.model import untrusted
from harness.model.compare import same_result
from harness.model.registry import OPS

SCHEMA = "trace-v1"
ARGS = "args"
TRACE_OP = "trace"  # the protocol's diagnostic request: {"op": "trace", "args": {"op": ..., "args": {...}}}


class TraceError(ValueError):
    """A trace that is not a trace-v1 document; the message says what is wrong."""


def parse(text: Any) -> dict[str, Any]:
    """A trace's JSON text as a document (shape checked lightly here; harness/testees/traces.py validates)."""
    if not isinstance(text, str):
        raise TraceError(f"a trace is a JSON text, got {type(text).__name__}")
    try:  # the untrusted reader (a trace is a testee's text): NaN refused, no RecursionError; the depth is
        # the contract's business (a step's value may nest as deep as an argument may), not the reader's
        document = untrusted.loads(text, max_depth=None)
    except untrusted.Refused as exc:
        raise TraceError(f"a trace is not JSON: {exc}") from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA or \
            not isinstance(document.get("steps"), list) or not isinstance(document.get("outcome"), dict):
        raise TraceError(f"not a {SCHEMA} document: {text[:120]!r}")
    return document


def host_value(value: Any) -> Any:
    """A value as a trace writes it, back as the host value it stands for: ``{"$codepoints": [...]}`` (a string
    holding a surrogate) as that string, ``{"$f64": hex}`` as that float, inside lists too; anything else as it
    is. A written form that stands for nothing (a code point out of range) stays as it is, equal to no host
    value."""
    if isinstance(value, list):
        return [host_value(item) for item in value]
    if isinstance(value, dict) and len(value) == 1:
        points, bits = value.get("$codepoints"), value.get("$f64")
        try:
            if isinstance(points, list) and all(type(p) is int and 0 <= p <= 0x10FFFF for p in points):
                return "".join(map(chr, points))
            if isinstance(bits, str):
                return float.fromhex(bits)
        except (ValueError, OverflowError):
            return value
    return value


def strict_equal(a: Any, b: Any) -> bool:
    """JSON equality where a boolean, an integer and a float are three things (Python's == has True == 1 ==
    1.0), objects compare by their members and arrays in order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _exact(value: Any) -> Fraction | float | None:
    """The number a host-view value denotes, exactly (an integer, ``{"$int"}``, a finite ``{"$f64"}``), a
    non-finite float as itself, None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), str):
        if "$int" in value:
            return Fraction(int(value["$int"]))
        if "$f64" in value:
            text = value["$f64"]
            number = float(text) if text.lstrip("-") in ("inf", "nan") else float.fromhex(text)
            return Fraction(number) if math.isfinite(number) else number
    return None


def _exact_number(a: Any, b: Any) -> bool:
    """An integer and a float (or any two spellings) that are the same number exactly."""
    x, y = _exact(a), _exact(b)
    if x is None or y is None:
        return False
    if isinstance(x, float) or isinstance(y, float):
        return isinstance(x, float) and isinstance(y, float) and (x == y or (math.isnan(x) and math.isnan(y)))
    return x == y


def _binary64_rounding(a: Any, b: Any) -> bool:
    """An integer and the binary64 float it rounds to (to nearest, ties to even; past the largest finite
    float, infinity): what a host whose numbers are all binary64 (a JavaScript number) holds for it."""
    for integer, other in ((a, b), (b, a)):
        number = _exact(integer) if isinstance(integer, int) or (isinstance(integer, dict) and "$int" in integer) \
            else None
        if isinstance(number, Fraction) and isinstance(other, dict) and "$f64" in other:
            try:
                rounded = float(number)
            except OverflowError:
                rounded = math.inf if number > 0 else -math.inf
            if _exact_number({"$f64": rounded.hex() if math.isfinite(rounded) else str(rounded)}, other):
                return True
    return False


def _beyond_i128(a: Any, b: Any) -> bool:
    """An integer outside [-2^127, 2^127) and ``{"$type": "int"}``: a host that hands the core only the fact
    that it is an integer that large (the PyO3 binding: HostValue::Int(None))."""
    for integer, other in ((a, b), (b, a)):
        number = _exact(integer) if isinstance(integer, int) or (isinstance(integer, dict) and "$int" in integer) \
            else None
        if isinstance(number, Fraction) and not -2**127 <= number < 2**127 and other == {"$type": "int"}:
            return True
    return False


def _both_other(a: Any, b: Any) -> bool:
    """Two values of no accepted kind, each named by its host's type name."""
    return all(isinstance(v, dict) and set(v) == {"$type"} and v["$type"] != "int" for v in (a, b))


# The rules under which two implementations' `args` values agree (past `args`, only equality does).
ARGS_RULES: tuple[tuple[str, Callable[[Any, Any], bool]], ...] = (
    ("equal", strict_equal),
    ("same number in another host type (JavaScript has no integers)", _exact_number),
    # Where the rounding changes an output, the traces part at the first step that uses the argument
    # (gate.threshold, ctx.cap), which shows the rounded value: the cause stays in view.
    ("an integer as a host with binary64 numbers holds it (JavaScript)", _binary64_rounding),
    ("an integer beyond i128, handed over as only that", _beyond_i128),
    ("both a value no parameter accepts, by their hosts' type names", _both_other),
)


def differing_args(a: Any, b: Any) -> list[str]:
    """The arguments two `args` step values show differently (``ARGS_RULES``, per argument), by name; an
    argument one of them lacks differs. A value that is not an object shows no argument."""
    a, b = a if isinstance(a, dict) else {}, b if isinstance(b, dict) else {}
    return [name for name in sorted(set(a) | set(b))
            if name not in a or name not in b or not any(rule(a[name], b[name]) for _, rule in ARGS_RULES)]


def same_args(a: Any, b: Any) -> bool:
    """Whether two `args` step values show the same arguments."""
    return isinstance(a, dict) and isinstance(b, dict) and not differing_args(a, b)


def same_outcome(op: str, a: Any, b: Any) -> bool:
    """Whether two traces' outcomes of ``op`` agree: the same error code at the same step, or the same result
    as ``compare.same_result`` judges one (a JSON-result op's texts by their JSON values: Node's ``["a","b"]``
    and Python's ``["a", "b"]`` agree, as they do in ``diff``); strictly equal for an op the registry lacks."""
    if isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b) == {"result"} and op in OPS:
        left, right = host_value(a["result"]), host_value(b["result"])
        if isinstance(left, str) and isinstance(right, str):
            return same_result(op, left, right)
    return strict_equal(a, b)


def same_entry(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a.get("step") != b.get("step"):
        return False
    if a.get("step") == ARGS:
        return same_args(a.get("value"), b.get("value"))
    return strict_equal(a.get("value"), b.get("value"))


@dataclass(frozen=True)
class Parting:
    """Where two traces part: the index of the first differing entry (``len(steps)`` for the outcome), the
    step named there in each trace, and the step they part at: when the two name different steps of the op,
    the one the specification puts first (one trace ran a step the other skipped), else the first trace's."""

    index: int
    step: str
    steps: tuple[str, str] = ("", "")


def _earlier(op: str, a: str, b: str) -> str:
    order = [step.id for step in OPS[op].steps] if op in OPS else []
    if a != b and a in order and b in order:
        return min(a, b, key=order.index)
    return a


def first_difference(a: dict[str, Any], b: dict[str, Any]) -> Parting | None:
    """The first entry where two traces differ (steps, then the outcome), or None when they agree."""
    steps_a, steps_b = a["steps"], b["steps"]
    for index in range(max(len(steps_a), len(steps_b))):
        name_a = str(steps_a[index].get("step")) if index < len(steps_a) else "outcome"
        name_b = str(steps_b[index].get("step")) if index < len(steps_b) else "outcome"
        if index >= len(steps_a) or index >= len(steps_b) or not same_entry(steps_a[index], steps_b[index]):
            step = _earlier(str(a.get("op")), name_a, name_b)
            if step == "outcome":
                step = name_b if name_a == "outcome" else name_a
            # One trace ended in an error of a step the other then passes (a check run inside another step's
            # code, gate.binary32 within the embedding check): they part at that check.
            for ended, other in ((a, steps_b), (b, steps_a)):
                failed = ended["outcome"].get("step")
                if index >= len(ended["steps"]) and isinstance(failed, str) and \
                        any(entry.get("step") == failed for entry in other[index:]):
                    step = failed
            return Parting(index, step, (name_a, name_b))
    if not same_outcome(str(a.get("op")), a["outcome"], b["outcome"]):
        return Parting(len(steps_a), "outcome", ("outcome", "outcome"))
    return None


def entry_at(trace: dict[str, Any], index: int) -> dict[str, Any]:
    """A trace's entry at ``index`` as a report shows it: ``{"index", "step", "value"}``; past its last step,
    its outcome (step ``outcome``)."""
    steps = trace["steps"]
    if index < len(steps):
        return {"index": index, "step": str(steps[index].get("step")), "value": steps[index].get("value")}
    return {"index": len(steps), "step": "outcome", "value": trace["outcome"]}


def parting_entries(step: str | None, oracle: dict[str, Any], other: dict[str, Any]) -> tuple[dict, dict] | None:
    """The two traces' entries where they part at ``step`` (the first differing entry that names it; else
    the first differing entry, ``first_difference``): what each side recorded there. None when they agree."""
    steps_a, steps_b = oracle["steps"], other["steps"]
    for index in range(min(len(steps_a), len(steps_b))):
        if step in (steps_a[index].get("step"), steps_b[index].get("step")) and \
                not same_entry(steps_a[index], steps_b[index]):
            return entry_at(oracle, index), entry_at(other, index)
    parting = first_difference(oracle, other)
    if parting is None:
        return None
    return entry_at(oracle, parting.index), entry_at(other, parting.index)
