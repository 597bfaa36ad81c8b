"""What the implementations answered, and whether they agree: one call everywhere, the outcome compared,
the implementations that differ from the oracle."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.model.compare import canonical_digest, parse_result, same_json, same_value
from harness.testees.errors import answered
from harness.testees.fanout import expressible, serves
from harness.testees.impls import context
from harness.testees.impls import oracle as oracle_name
from harness.testees.testee import Testee

Responses = dict[str, dict[str, Any]]

# The harness's codes for a side that gave no contract answer: it crashed, trapped or hung.
FAILURES = frozenset({"crash", "timeout"})


def observe(impls: dict[str, Testee], op_name: str, args: dict[str, Any]) -> Responses:
    """Every implementation's response; one that does not serve the op or whose host cannot express ``args`` is
    left out, and so is one
    that gave no answer (harness/testees/errors.NO_ANSWER: a finding, or work cut by the budget)."""
    got = {name: impl.call(op_name, args) for name, impl in impls.items()
           if serves(name, op_name) and expressible(name, args)}
    return {name: response for name, response in got.items() if answered(response)}


def agreeing(op_name: str, responses: Responses) -> bool:
    """Whether every response has the same outcome (fast path: identical results)."""
    values = list(responses.values())
    if all("ok" in r for r in values) and all(r["ok"] == values[0]["ok"] for r in values[1:]) and \
            isinstance(values[0]["ok"], str):
        return True
    return not divergent(op_name, responses)


def outcome(op_name: str, response: dict[str, Any]) -> tuple[str, Any]:
    """What is compared: ("error", code) or ("ok", parsed value)."""
    if "error" in response:
        return "error", response["error"]["code"]
    ok, value = parse_result(op_name, response["ok"])
    return ("ok", value) if ok else ("unparseable", response["ok"])


def same_outcome(op_name: str, a: dict[str, Any], b: dict[str, Any]) -> bool:
    kind_a, value_a = outcome(op_name, a)
    kind_b, value_b = outcome(op_name, b)
    # an oversized answer (harness/model/caps.py) on either side: both compared by their digests, exactly
    return kind_a == kind_b and same_value(op_name, value_a, value_b, parsed=kind_a == "ok")


def oracle_of(op_name: str, responses: Responses) -> str:
    """The oracle of these responses: the op's oracle (``impls.oracle``) where it answered, else the first one
    (responses need not start with it: the sweep's gate orders them by name)."""
    chosen = oracle_name(op_name)
    return chosen if chosen in responses else next(iter(responses))


def divergent(op_name: str, responses: Responses) -> list[str]:
    """Implementations whose outcome differs from the oracle's (or from the first one's), but for those the run
    shows for context only (``--context``)."""
    names = list(responses)
    if not names:
        return []
    oracle = oracle_of(op_name, responses)
    shown = context()  # shown beside the witness, never judged (--context)
    return [n for n in names
            if n != oracle and n not in shown and not same_outcome(op_name, responses[oracle], responses[n])]


def kind(op_name: str, response: dict[str, Any]) -> tuple[str, Any]:
    """An outcome's kind: ("ok", None) or ("error", code)."""
    found, value = outcome(op_name, response)
    return (found, value) if found == "error" else (found, None)


# ---- the shape of a difference: what one side's outcome has that the other's lacks ------------------------
#
# Two differences of one op are two details when their shapes differ: a list that gains an item on the divergent
# side is not a list that loses one (a token one side drops, another it splits), nor a text made longer one made
# shorter. ``outcome_shape`` is pure (no call, no registry state but the op's result kind): the sweep's grouping
# and the classifier read it alike.

SAME = "same"
SHAPES = ("same", "oracle-refuses", "divergent-refuses", "codes-differ", "unparseable", "gains-item", "loses-item",
          "changes-item", "gains-changed", "loses-changed", "longer", "shorter", "changes-text", "changes-fields",
          "changes-value", "changes-type")


def _as_outcome(op_name: str, value: Any) -> tuple[str, Any]:
    """A response ({"ok": ...} or {"error": {...}}) as ``outcome`` reads it."""
    if isinstance(value, dict) and len(value) == 1 and ("ok" in value or (
            "error" in value and isinstance(value["error"], dict) and "code" in value["error"])):
        return outcome(op_name, value)
    raise ValueError(f"not a response of {op_name}: {str(value)[:80]!r} (want {{'ok': ...}} or {{'error': {{...}}}})")


def _counted(items: list[Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        key = canonical_digest(item)
        counts[key] = counts.get(key, 0) + 1
    return counts


def value_shape(a: Any, b: Any) -> str:
    """The shape of the difference between two parsed results, ``a`` the oracle's and ``b`` the divergent
    side's: for lists (items compared as JSON values, as multisets) ``gains-item`` (``b`` holds every item of
    ``a`` and more), ``loses-item`` (the other way round), ``changes-item`` (as many items, some different),
    ``gains-changed``/``loses-changed`` (more or fewer items, and some of ``a``'s missing); for texts ``longer``,
    ``shorter`` or ``changes-text`` (in code points); ``changes-fields`` for objects, ``changes-value`` for other
    values of one type, ``changes-type`` across types; ``same`` when equal."""
    if same_json(a, b):
        return SAME
    if isinstance(a, list) and isinstance(b, list):
        left, right = _counted(a), _counted(b)
        missing = any(right.get(key, 0) < n for key, n in left.items())
        extra = any(left.get(key, 0) < n for key, n in right.items())
        if len(a) == len(b):
            return "changes-item"
        if len(b) > len(a):
            return "gains-changed" if missing else "gains-item"
        return "loses-changed" if extra else "loses-item"
    if isinstance(a, str) and isinstance(b, str):
        return "longer" if len(b) > len(a) else "shorter" if len(b) < len(a) else "changes-text"
    if isinstance(a, dict) and isinstance(b, dict):
        return "changes-fields"
    numbers = (int, float)
    if type(a) is type(b) or (isinstance(a, numbers) and isinstance(b, numbers)
                              and not isinstance(a, bool) and not isinstance(b, bool)):
        return "changes-value"
    return "changes-type"


def outcome_shape(op_name: str, oracle_response: dict[str, Any], divergent_response: dict[str, Any]) -> str:
    """The shape of a difference between the oracle's response and a divergent side's (each {"ok": ...} or
    {"error": {"code": ...}} as a testee answers): ``oracle-refuses``/``divergent-refuses`` (an error against a
    result), ``codes-differ`` (two errors), ``unparseable`` (a JSON result that does not parse on some side),
    else ``value_shape`` of the two parsed results (``gains-item``, ``loses-item``, ``changes-item``, ``longer``,
    ``shorter``...). One of ``SHAPES``; ValueError for what is not a response."""
    (kind_a, a), (kind_b, b) = _as_outcome(op_name, oracle_response), _as_outcome(op_name, divergent_response)
    if kind_a == kind_b == "error":
        return SAME if a == b else "codes-differ"
    if kind_a == "error" or kind_b == "error":
        return "oracle-refuses" if kind_a == "error" else "divergent-refuses"
    if kind_a == "unparseable" or kind_b == "unparseable":
        return SAME if kind_a == kind_b and a == b else "unparseable"
    return value_shape(a, b)


def lost_piece(op_name: str, before: Responses, after: Responses,
               plain: dict[str, Any] | Callable[[], dict[str, Any] | None] | None = None) -> bool:
    """Whether responses that agree after a rewrite of the input (``after``) agree only because every side lost
    the piece they differed in (``before``), which is no evidence that the rewrite's characters are what they
    differed about: an item count changed on every side (a token vanished, or appeared, on both); an agreement
    on absence (the common list is as long as a side that only lacks items another side has: the item the other
    kept vanished there too); an empty common text or list where some side had something; the output of the op's
    plain input (``plain``: a response to it, or what gives one, asked only when nothing else settled it) that
    no side gave before."""
    if not after:
        return False
    kind_c, c = outcome(op_name, next(iter(after.values())))
    if kind_c != "ok":
        return False
    values = [value for found, value in (outcome(op_name, r) for r in before.values()) if found == "ok"]
    if not values:
        return False
    if isinstance(c, (str, list)) and not c and any(isinstance(v, (str, list)) and v for v in values):
        return True
    if isinstance(c, list) and all(isinstance(v, list) for v in values):
        if all(len(c) != len(v) for v in values):
            return True
        counts = [_counted(v) for v in values]
        for number, mine in enumerate(counts):
            others = [other for k, other in enumerate(counts) if k != number]
            only_lacks = all(all(other.get(key, 0) >= n for key, n in mine.items()) for other in others) and \
                any(len(values[k]) > len(values[number]) for k in range(len(values)) if k != number)
            if only_lacks and len(c) == len(values[number]):
                return True
    response = plain() if callable(plain) else plain
    if response is not None:
        kind_p, p = outcome(op_name, response)
        if kind_p == "ok" and same_json(c, p) and not any(same_json(v, p) for v in values):
            return True
    return False
