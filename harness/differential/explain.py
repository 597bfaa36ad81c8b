"""Differential machinery: run one input on several implementations, decide whether they agree,
and explain a disagreement (the cause, the code points involved).

Causes (a fixed list, in the order they are tried). Each counterfactual cause holds only when,
with exactly what it names replaced (characters by stand-ins of the same role, see ``stand_in``),
the implementations agree on an outcome that one side already had:

* ``crash``: a side crashed, trapped or hung (harness codes ``crash``/``timeout``);
* ``boundary_coercion``: a host value at a boundary (negative, >= 2^32, fractional, NaN, boolean, a
  lone surrogate, a wrong type) is validated by one side and coerced by another; replacing that
  argument by a plain value removes the divergence;
* ``unicode_version_skew``: replacing every character whose Unicode data differs between the versions
  in play (assigned after 14.0, or with changed properties) removes it;
* ``whitespace_definition``: replacing every White_Space character and near miss (U+001C-U+001F,
  U+FEFF, U+180E, U+200B, ...) removes it;
* ``float_rounding``: every side returns a decision and they differ in a similarity or in the
  action for a similarity next to the threshold;
* ``validation_order``: every side rejects the input, with different codes;
* ``error_versus_result``: one side raises where another returns;
* ``other``.

Nothing here asks the reference how to read an input: JSON is parsed with the standard library and
the contract's character sets come from harness/model/contract_sets.py.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import unicodedata

import unicodedata2

from generators.unicode_stability import unstable_reason

from harness.model import hostvalues
from harness.model.compare import parse_result, same_json
from harness.model.registry import OPS, Op, get_op
from harness.model.contract_sets import white_space_like
from harness.model.unicode_info import assigned_in, describe, has_surrogate, interesting, is_surrogate
from harness.testees.impls import ImplementationUnavailable, declaration, oracle as oracle_name
from harness.testees.testee import Testee

CAUSES = (
    "crash",
    "boundary_coercion",
    "unicode_version_skew",
    "whitespace_definition",
    "float_rounding",
    "validation_order",
    "error_versus_result",
    "other",
)

Responses = dict[str, dict[str, Any]]


def expressible(name: str, args: dict[str, Any]) -> bool:
    """Whether implementation ``name``'s host can hold ``args`` as they are (see Implementation.can_express);
    an implementation without a declaration (a test double) is taken to hold code points."""
    try:
        return declaration(name).can_express(args)
    except ImplementationUnavailable:
        return True


def observe(impls: dict[str, Testee], op_name: str, args: dict[str, Any]) -> Responses:
    """Every implementation's response; one whose host cannot express ``args`` is left out."""
    return {name: impl.call(op_name, args) for name, impl in impls.items() if expressible(name, args)}


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
    return kind_a == kind_b and same_json(value_a, value_b)


def divergent(op_name: str, responses: Responses) -> list[str]:
    """Implementations whose outcome differs from the oracle's (or from the first one's)."""
    names = list(responses)
    if not names:
        return []
    oracle = oracle_name() if oracle_name() in responses else names[0]
    return [n for n in names if n != oracle and not same_outcome(op_name, responses[oracle], responses[n])]


# ---- cause classification ------------------------------------------------------------------------

def _is_boundary_host_value(param_kind: str, value: Any) -> bool:
    if isinstance(value, bool):
        return param_kind != "force"
    if value is None:
        return True
    if isinstance(value, float):
        return not math.isfinite(value) or value != math.floor(value) or value < 0 or value >= 2**32 or \
            math.copysign(1.0, value) < 0
    if isinstance(value, int):
        return value < 0 or value >= 2**32
    if isinstance(value, str):
        return has_surrogate(value)
    return True


PLAIN_VALUES = {"text": "plain text", "embedding_json": "null", "candidates_json": "null", "section_json": "null",
                "threshold": 0.85, "mode": "auto", "force": False, "cap": 30}


def _parse_json(value: str) -> Any:
    """The value of a JSON text by the standard library (never an implementation's parser, so a JSON bug
    in the reference cannot bend the explanation); None when it is not JSON."""
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return None


def _map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """Apply ``fn`` to a host string's characters, then, when it is a JSON text whose strings still hold
    characters ``fn`` changes (written as escapes), to every string inside it (the text is then
    rewritten compactly)."""
    if not isinstance(value, str):
        return value
    value = fn(value)
    parsed = _parse_json(value)
    if not isinstance(parsed, (list, dict)):
        return value

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return fn(item)
        if isinstance(item, list):
            return [walk(x) for x in item]
        if isinstance(item, dict):
            return {fn(k): walk(v) for k, v in item.items()}
        return item

    walked = walk(parsed)
    return value if walked == parsed else json.dumps(walked, ensure_ascii=False, separators=(",", ":"))


# A stand-in of the same role for a replaced character: the same case (cased or not), still a mark, a
# digit, punctuation or a format character, so that a counterfactual removes what the cause names and
# not the context around it (a final-sigma context, an edge character, the text itself). Each stand-in
# is stable across every Unicode version in play and in no set the contract names.
_STAND_INS = {"Lu": "X", "Lt": "X", "Ll": "x", "Lm": "\u05d0", "Lo": "\u05d0", "Mn": "\u0334", "Mc": "\u0334",
              "Me": "\u0334", "Nd": "0", "Nl": "0", "No": "0", "Cf": "\u00ad"}


def stand_in(ch: str) -> str:
    return _STAND_INS.get(unicodedata2.category(ch), "#" if unicodedata2.category(ch)[0] in "PS" else "_")


def _replace_chars(args: dict[str, Any], predicate: Callable[[str], bool]) -> dict[str, Any]:
    def fn(text: str) -> str:
        return "".join(stand_in(ch) if predicate(ch) else ch for ch in text)

    return {name: _map_strings(value, fn) for name, value in args.items()}


def _version_sensitive(ch: str) -> bool:
    return unstable_reason(ch) is not None and not is_surrogate(ord(ch))


def _white_space_like(ch: str) -> bool:
    """White_Space, its near misses, and what Python or JavaScript calls space; plain U+0020 is kept
    (it is structure)."""
    return ch != " " and white_space_like(ch)


def _similarities(op_name: str, responses: Responses) -> list[Any]:
    sims = []
    for response in responses.values():
        kind, value = outcome(op_name, response)
        if kind != "ok" or not isinstance(value, dict):
            return []
        match = value.get("match")
        sims.append(match.get("similarity") if isinstance(match, dict) else None)
    return sims


_CASED = {"Lu", "Ll", "Lt"}
_CASE_IGNORABLE = {"Mn", "Me", "Cf", "Lm", "Sk"}


def _case_relevant(ch: str, text: str) -> bool:
    """Whether ``ch``'s case data can change a lowercase mapping of ``text``: it is cased in some version
    in play, or it sits in a text with a capital sigma and is case-ignorable (the final-sigma context)."""
    categories = {unicodedata.category(ch), unicodedata2.category(ch)}
    return bool(categories & _CASED) or ("\u03a3" in text and bool(categories & (_CASE_IGNORABLE | {"Lo", "Cn"})))


def skew_steps(args: dict[str, Any], versions: dict[str, dict[str, str]], op_name: str | None = None) -> str:
    """Which Unicode-dependent steps of the op can explain a skew on the input's characters.

    ``normalization`` when NFC of some string differs between the oldest and the newest Unicode data
    the harness has (Python's ``unicodedata`` and ``unicodedata2``) and the implementations report
    different normalization versions; ``case_mapping`` when a character whose data differs is cased
    (or case-ignorable next to a capital sigma) and the implementations report different case-mapping
    versions. An op only has the steps its registry entry names (``Op.unicode_steps``)."""
    steps = []
    op_steps = get_op(op_name).unicode_steps if op_name else ("case_mapping", "normalization")
    strings = _all_strings(args)

    def versions_differ(step: str) -> bool:
        return len({v[step] for v in versions.values() if step in v}) > 1

    if "case_mapping" in op_steps and versions_differ("case_mapping") and any(
            _version_sensitive(ch) and _case_relevant(ch, text) for text in strings for ch in text):
        steps.append("case_mapping")
    if "normalization" in op_steps and versions_differ("normalization") and any(
            unicodedata.normalize("NFC", text) != unicodedata2.normalize("NFC", text)
            for text in strings if not has_surrogate(text)):
        steps.append("normalization")
    return "+".join(steps) or "properties"


_FAILURES = {"crash", "timeout"}


def classify(impls: dict[str, Testee], op_name: str, args: dict[str, Any], responses: Responses,
             versions: dict[str, dict[str, str]] | None = None) -> tuple[str, str, str | None]:
    """(cause, one-line explanation, detail) for a divergence, by counterfactual re-runs on the same impls.

    A counterfactual explains the divergence only when, with exactly what the cause names replaced,
    the implementations agree AND (for characters) their common outcome is one that some side had
    before, so the replacement removed the disagreement, not the whole trigger (an empty text, a
    broken JSON text).
    The detail narrows a cause: for unicode_version_skew, the steps whose data differs
    ("case_mapping", "normalization", both joined by "+"); for boundary_coercion, the parameter.
    """
    op = get_op(op_name)
    names = list(responses)
    codes = {name: outcome(op_name, r) for name, r in responses.items()}
    before = {_kind(op_name, r) for r in responses.values()}

    def explains(new_args: dict[str, Any], keep_outcome: bool = True) -> bool:
        after = observe(impls, op_name, new_args)
        if divergent(op_name, after):
            return False
        return not keep_outcome or bool({_kind(op_name, r) for r in after.values()} & before)

    failed = sorted(name for name, (kind, code) in codes.items() if kind == "error" and code in _FAILURES)
    if failed:
        return "crash", f"{', '.join(failed)} crashed, trapped or hung (a reported result, never a contract error)", \
            codes[failed[0]][1]
    for param in op.params:
        if param.name not in args or not _is_boundary_host_value(param.kind, args[param.name]):
            continue
        involved = any(kind == "error" and code in (param.error_code, "unexpected_exception")
                       for kind, code in codes.values())
        # The whole argument is what this cause names: any common outcome after replacing it will do.
        if involved and explains({**args, param.name: PLAIN_VALUES[param.kind]}, keep_outcome=False):
            return "boundary_coercion", (f"{param.name}={hostvalues.encode(args[param.name])!r} is validated by some "
                                         "implementations and coerced by others"), param.name
    if any(_version_sensitive(ch) for text in _all_strings(args) for ch in text):
        if explains(_replace_chars(args, _version_sensitive)):
            steps = skew_steps(args, versions or {}, op_name)
            return "unicode_version_skew", f"characters whose Unicode data differs between the versions in play " \
                f"({steps})", steps
    if any(_white_space_like(ch) for text in _all_strings(args) for ch in text):
        if explains(_replace_chars(args, _white_space_like)):
            return "whitespace_definition", "White_Space (or a near miss) is treated differently", None
    sims = _similarities(op_name, responses)
    if sims and any(not same_json(s, sims[0]) for s in sims):
        return "float_rounding", f"similarities differ: {dict(zip(names, sims))}", None
    if sims and op_name == "decide_write":
        threshold = args.get("threshold", 0.85)
        close = [s for s in sims if isinstance(s, float) and isinstance(threshold, float) and
                 abs(s - threshold) <= 1e-6]
        if close:
            return "float_rounding", "a similarity next to the threshold is compared differently", None
    kinds = {kind for kind, _ in codes.values()}
    if kinds == {"error"}:
        shown = ", ".join(f"{name} {code}" for name, (_, code) in codes.items())
        return "validation_order", f"every implementation rejects the input, with different codes ({shown})", None
    if "ok" in kinds and kinds & {"error", "unparseable"}:
        return "error_versus_result", "one implementation raises where another returns", None
    return "other", "no single cause explains it", None


def _kind(op_name: str, response: dict[str, Any]) -> tuple[str, Any]:
    """An outcome's kind: ("ok", None) or ("error", code)."""
    kind, value = outcome(op_name, response)
    return (kind, value) if kind == "error" else (kind, None)


def _all_strings(args: dict[str, Any]) -> list[str]:
    """Every host string of the arguments, and every string inside those that are JSON texts."""
    found: list[str] = []

    def walk(item: Any) -> None:
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, list):
            for x in item:
                walk(x)
        elif isinstance(item, dict):
            for key, x in item.items():
                found.append(key)
                walk(x)

    for value in args.values():
        if isinstance(value, str):
            found.append(value)
            parsed = _parse_json(value)
            if isinstance(parsed, (list, dict)):
                walk(parsed)
    return found


def code_points(args: dict[str, Any], versions: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    seen: list[int] = []
    for text in _all_strings(args):
        for ch in text:
            cp = ord(ch)
            if interesting(cp) and cp not in seen:
                seen.append(cp)
    return [describe(cp, versions) for cp in seen[:40]]


@dataclass
class Divergence:
    op: str
    args: dict[str, Any]
    responses: Responses
    divergent: list[str]
    cause: str
    explanation: str
    code_points: list[dict[str, Any]] = field(default_factory=list)
    detail: str | None = None  # narrows the cause (skewed Unicode steps, the coerced parameter)
    status: str = "new"  # "new" or "expected"
    expected_entry: str | None = None
    found_after: float | None = None  # seconds into a fuzz run
    extra: dict[str, Any] = field(default_factory=dict)  # a sweep class's extent (code points, templates, replay)

    @property
    def key(self) -> tuple[str, str, str | None, tuple[str, ...]]:
        return self.op, self.cause, self.detail, tuple(self.divergent)

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "args": hostvalues.encode_args(self.args),
            "outputs": {name: _encode_response(r) for name, r in self.responses.items()},
            "divergent": self.divergent,
            "cause": self.cause,
            "detail": self.detail,
            "explanation": self.explanation,
            "codePoints": self.code_points,
            "status": self.status,
            "expectedEntry": self.expected_entry,
            "foundAfterSeconds": None if self.found_after is None else round(self.found_after, 1),
            **self.extra,
        }


def _encode_response(response: dict[str, Any]) -> dict[str, Any]:
    if "ok" in response:
        return {"ok": hostvalues.encode(response["ok"])}
    return {"error": response["error"]}


def examine(impls: dict[str, Testee], op_name: str, args: dict[str, Any],
            versions: dict[str, dict[str, str]]) -> Divergence | None:
    """Run ``args`` everywhere; a Divergence with its cause when some implementation disagrees."""
    responses = observe(impls, op_name, args)
    names = divergent(op_name, responses)
    if not names:
        return None
    cause, explanation, detail = classify(impls, op_name, args, responses, versions)
    return Divergence(op_name, args, responses, names, cause, explanation, code_points(args, versions), detail)


def unicode_versions_of(impls: dict[str, Testee]) -> dict[str, dict[str, str]]:
    out = {}
    for name, impl in impls.items():
        response = impl.call("unicode_versions", {})
        try:
            out[name] = json.loads(response["ok"]) if "ok" in response else {}
        except (ValueError, TypeError):
            out[name] = {}
    return out


def differential_ops() -> list[Op]:
    return [op for op in OPS.values() if op.differential]
