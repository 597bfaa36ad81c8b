"""The op registry: every op of the contract, declared once.

Fixture generators, the fixture runner, implementations and (later) the differential suites and the
fuzzer are generic over this table. Adding an op means one reference function, one entry here and its
bindings.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import reference
from harness.model.names import did_you_mean
from harness.model.unicode_info import has_surrogate

_REQUIRED = object()


@dataclass(frozen=True)
class Param:
    name: str  # the Python parameter name (also the key in fixture args and protocol requests)
    js_name: str  # the JavaScript parameter name
    error_code: str  # the code for a wrong value of this parameter
    kind: str  # what values it takes; harness/differential/strategies.py has one generator per kind
    default: Any = _REQUIRED

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED

    @property
    def codes(self) -> frozenset[str]:
        """Every error code a wrong value of it can give: its own, and those of what is read from it."""
        return frozenset((self.error_code, *LATER_CODES.get(self.error_code, ())))


# The codes a parameter's value can still give after its own check has passed (contract v1): a JSON text's
# value has a shape and embeddings; a text can normalize to nothing.
LATER_CODES: dict[str, tuple[str, ...]] = {"invalid_json": ("invalid_shape", "invalid_embedding"),
                                           "invalid_text": ("empty_text",)}


@dataclass(frozen=True)
class Decision:
    """Where a result that decides about candidates (decide_write) keeps its parts, for the cause rules that
    read them: the decision, the matched candidate and its similarity, the threshold it is compared with."""

    verdict: tuple[str, ...] = ("action", "reason")  # the result's fields that are the decision
    match: str = "match"  # the matched candidate: an object, or null
    match_key: tuple[str, ...] = ("id", "text")  # what tells a candidate apart (ids need not be unique)
    similarity: str = "similarity"  # the match's similarity: a number, or null for an exact match
    threshold: str = "threshold"  # the parameter the similarity is compared with
    flag: str = "pinned"  # the candidates' flag a mode's rule reads


@dataclass(frozen=True)
class Step:
    """One named step of an op, in the order the contract applies it (docs/contract.md lists the same
    ids in the same order; suites/model/test_contract_doc.py checks it). The id is stable: code, fixture cases
    and reports cite it; a step is never renamed, only added in a later contract version."""

    id: str  # "<prefix>.<name>": norm., gate., ctx., nfc., versions., json.
    title: str  # what it does, in a few words
    code: str | None = None  # the error code it can raise, None when it cannot fail
    # What kind of step it is, for naming the cause where two traces part here (harness/differential/
    # causes/, ROLES there): "host" (checks a host value: `param`), "json" (parses a JSON text), "shape"
    # (checks a parsed value's shape), a character step ("nfc", "quote_dash", "lowercase", "white_space",
    # "edges", "line_breaks", "trim"), a number step ("binary32", "similarity", "near"), or "rule".
    role: str = "rule"
    param: str | None = None  # the parameter a "host" or "json" step checks


# Each parameter kind's plain value: one every implementation takes alike (a counterfactual puts it in
# place of an argument to see whether that argument is what the implementations disagree about).
PLAIN_VALUES: dict[str, Any] = {"text": "plain text", "embedding_json": "null", "candidates_json": "null",
                                "section_json": "null", "threshold": 0.85, "mode": "auto", "force": False, "cap": 30}


def is_boundary_host_value(kind: str, value: Any) -> bool:
    """Whether a host value is at a host boundary for its parameter kind: the wrong host type, or a value
    a binding's conversion can coerce (a lone surrogate, a negative or huge number, a fraction, NaN)."""
    if kind in ("text", "embedding_json", "candidates_json", "section_json", "mode"):
        return not isinstance(value, str) or has_surrogate(value)
    if kind == "force":
        return not isinstance(value, bool)
    if isinstance(value, bool) or value is None or not isinstance(value, (int, float)):
        return True
    if isinstance(value, float):
        return not math.isfinite(value) or value != math.floor(value) or value < 0 or value >= 2**32 or \
            math.copysign(1.0, value) < 0
    return value < 0 or value >= 2**32


# Return types -> the check of a decoded host value. Every op of contract v1 returns a string (the JSON
# ops a JSON text); a trace answer is a string too (harness/model/traces.py).
RETURN_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda value: isinstance(value, str),
}


def _steps(*rows: tuple[str, ...]) -> tuple[Step, ...]:
    return tuple(Step(*row) for row in rows)


# The strictness rules of every JSON argument (docs/contract.md section 4), in the order the document
# gives them; the names are those harness/model/json_features.py reports. Every `*_json` step applies
# them all before looking at the shape of the value.
JSON_RULES = _steps(
    ("json.syntax", "RFC 8259 grammar: one value, nothing else", "invalid_json"),
    ("json.bom", "no leading byte order mark", "invalid_json"),
    ("json.whitespace", "only space, tab, line feed and carriage return between tokens", "invalid_json"),
    ("json.control_character", "no raw U+0000..U+001F inside a string", "invalid_json"),
    ("json.nan_literal", "no NaN, Infinity or -Infinity", "invalid_json"),
    ("json.numbers", "every number is the correctly rounded binary64 value of its text"),
    ("json.number_overflow", "no number whose binary64 value is infinite", "invalid_json"),
    ("json.lone_surrogate", "no lone surrogate, raw or escaped, in a key or a value", "invalid_json"),
    ("json.duplicate_key", "no two equal keys in one object, compared after unescaping", "invalid_json"),
    ("json.depth", "at most 100 levels of nested arrays and objects", "invalid_json"),
)

# normalize_fact_text's steps 1-7, shared by decide_write (gate.normalize, gate.normalize_candidates).
NORMALIZE_STEPS = _steps(
    ("norm.text", "a string of Unicode scalar values", "invalid_text", "host", "text"),
    ("norm.nfc", "NFC", None, "nfc"),
    ("norm.quote_dash", "typographic quotes and dashes to ASCII", None, "quote_dash"),
    ("norm.lowercase", "full default lowercase mapping, final sigma by context", None, "lowercase"),
    ("norm.nfc_again", "NFC again", None, "nfc"),
    ("norm.white_space", "every run of White_Space to one space", None, "white_space"),
    ("norm.edges", "strip White_Space and edge punctuation at both ends", None, "edges"),
)

DECIDE_WRITE_STEPS = _steps(
    ("gate.text", "text: a string of Unicode scalar values", "invalid_text", "host", "text"),
    ("gate.embedding_json", "embedding_json: a string holding strict JSON", "invalid_json", "json",
     "embedding_json"),
    ("gate.embedding", "embedding: null or a non-empty array of numbers", "invalid_embedding", "shape"),
    ("gate.binary32", "each embedding number: binary64 to binary32, never infinite", "invalid_embedding",
     "binary32"),
    ("gate.candidates_json", "candidates_json: a string holding strict JSON", "invalid_json", "json",
     "candidates_json"),
    ("gate.candidates", "candidates: null or an array", "invalid_shape", "shape"),
    ("gate.candidate.object", "each candidate, in array order: an object", "invalid_shape", "shape"),
    ("gate.candidate.id", "its id: a non-empty string", "invalid_shape", "shape"),
    ("gate.candidate.text", "its text: a string", "invalid_shape", "shape"),
    ("gate.candidate.pinned", "its pinned: absent, null or a boolean", "invalid_shape", "shape"),
    ("gate.candidate.embedding", "its embedding: absent, null or as gate.embedding and gate.binary32",
     "invalid_embedding", "shape"),
    ("gate.threshold", "threshold: a number in [0, 1], not a boolean", "invalid_threshold", "host", "threshold"),
    ("gate.mode", "mode: auto, explicit, mirror or reconcile", "invalid_mode", "host", "mode"),
    ("gate.force", "force: a boolean", "invalid_force", "host", "force"),
    ("gate.normalize", "the new text through norm.nfc .. norm.edges"),
    ("gate.empty_text", "a new text that normalizes to the empty string", "empty_text"),
    ("gate.normalize_candidates", "each candidate's text through norm.nfc .. norm.edges"),
    ("gate.exact", "exact match: the first candidate whose normalized text equals the new one"),
    ("gate.similarity", "cosine similarity of each compared candidate, plain binary64 sums", None, "similarity"),
    ("gate.near", "near match: the best compared candidate (auto leaves pinned out), if >= threshold", None,
     "near"),
    ("gate.decision", "action, reason and match from the mode table"),
)

BUILD_DEDUP_CONTEXT_STEPS = _steps(
    ("ctx.topical_json", "topical_json: a string holding strict JSON", "invalid_json", "json", "topical_json"),
    ("ctx.topical", "topical: null or an array of objects whose id and text are absent, null or strings",
     "invalid_shape", "shape"),
    ("ctx.pinned_json", "pinned_json: a string holding strict JSON", "invalid_json", "json", "pinned_json"),
    ("ctx.pinned", "pinned: as ctx.topical", "invalid_shape", "shape"),
    ("ctx.recent_json", "recent_json: a string holding strict JSON", "invalid_json", "json", "recent_json"),
    ("ctx.recent", "recent: as ctx.topical", "invalid_shape", "shape"),
    ("ctx.cap", "cap: an integral number in [0, 2^32 - 1], not a boolean", "invalid_cap", "host", "cap"),
    ("ctx.order", "items in the order pinned, topical, recent, each section in the caller's order"),
    ("ctx.cap_limit", "no more than cap lines: checked before each item, which stops the block"),
    ("ctx.split", "each id and text split on the line breaks", None, "line_breaks"),
    ("ctx.trim", "each piece trimmed of White_Space", None, "trim"),
    ("ctx.join", "empty pieces dropped, the rest joined with one space"),
    ("ctx.skip_empty", "an item whose collapsed id or text is empty is skipped"),
    ("ctx.skip_bracket", "an item whose collapsed id holds [ or ] is skipped"),
    ("ctx.skip_duplicate", "an item whose collapsed id was emitted before is skipped"),
    ("ctx.line", "the line: [ID: id] text, with the pinned mark for a pinned item"),
    ("ctx.output", "the header and the lines; the empty string when no line is left"),
    ("ctx.pin_note", "the pin note after the lines when a pinned line was emitted"),
)


def _version_number(contract: str) -> int:
    if not (contract.startswith("v") and contract[1:].isdigit()):
        raise ValueError(f"a contract version is v<number>, not {contract!r}")
    return int(contract[1:])


@dataclass(frozen=True)
class Op:
    name: str  # the Python name, used in requests, fixtures and reports
    js_name: str
    params: tuple[Param, ...]
    reference: Callable[..., str]
    result_kind: str  # "text": compared as a string; "json": parsed and compared as a JSON value
    fixture: str | None  # the fixture family that pins it, None when no fixture does
    differential: bool = True  # compared across implementations by the differential suites and the fuzzer
    # The reference's behaviour under later contract versions, where it changed: {"v2": function}. A
    # version not listed behaves as the latest one before it (`reference` is v1's).
    later: tuple[tuple[str, Callable[..., str]], ...] = ()
    # The Unicode-dependent steps it runs (the cause classifier names only these in a version skew).
    unicode_steps: tuple[str, ...] = ("case_mapping", "normalization")
    # The contract's character rules its inputs go through, in the order the cause classifier tries
    # them (harness/differential/counterfactual/characters.py, CHARACTER_RULES).
    char_rules: tuple[str, ...] = ("quote_dash_map", "final_sigma", "case_mapping", "normalization",
                                   "edge_punctuation", "whitespace_definition")
    # The op its texts go through (decide_write normalizes with normalize_fact_text): a character or
    # Unicode cause is only considered when that op itself disagrees on one of the input's strings.
    via: str | None = None
    # Plain arguments every implementation answers alike (the fillers of a batch the reproduction gate
    # sends, harness/differential/verdict.py).
    plain: tuple[tuple[str, Any], ...] = ()
    # Its named steps in the order the contract applies them (docs/contract.md).
    steps: tuple[Step, ...] = ()
    # Where its result keeps a decision about candidates, when it makes one.
    decision: Decision | None = None
    # The type of its return value (a key of RETURN_TYPES): an answer holding another type is a protocol
    # fault of the testee (malformed_answer), never compared.
    returns: str = "string"
    # The op family it belongs to: the ops one contract specifies, released together (a declaration may
    # name the family for all of its ops: "ops": ["memgate"]).
    family: str = "memgate"

    def returns_ok(self, value: Any) -> bool:
        """Whether a decoded return value is of the op's declared return type."""
        return RETURN_TYPES[self.returns](value)

    def step_ids(self) -> tuple[str, ...]:
        """Its own steps' ids, then the JSON rules when it takes a JSON argument: every id a fixture case
        of this op may cite."""
        own = tuple(step.id for step in self.steps)
        if any(param.kind.endswith("_json") for param in self.params):
            own += tuple(rule.id for rule in JSON_RULES)
        return own

    def reference_for(self, contract: str) -> Callable[..., str]:
        """The reference's function for this op under contract version `contract` ("v1", "v2", ...)."""
        wanted = _version_number(contract)
        chosen = self.reference
        for version, function in sorted(self.later, key=lambda item: _version_number(item[0])):
            if _version_number(version) <= wanted:
                chosen = function
        return chosen

    def param(self, name: str) -> Param:
        for param in self.params:
            if param.name == name:
                return param
        raise KeyError(name)

    def params_giving(self, code: str, args: dict[str, Any]) -> list[str]:
        """The given arguments an error code can come from, in signature order."""
        return [p.name for p in self.params if p.name in args and code in p.codes]


OPS: dict[str, Op] = {
    op.name: op
    for op in (
        Op(
            name="normalize_fact_text",
            js_name="normalizeFactText",
            params=(Param("text", "text", "invalid_text", "text"),),
            reference=reference.normalize_fact_text,
            result_kind="text",
            fixture="write-gate",
            plain=(("text", "The user likes tea"),),
            steps=NORMALIZE_STEPS,
        ),
        Op(
            name="decide_write",
            js_name="decideWrite",
            params=(
                Param("text", "text", "invalid_text", "text"),
                Param("embedding_json", "embeddingJson", "invalid_json", "embedding_json"),
                Param("candidates_json", "candidatesJson", "invalid_json", "candidates_json"),
                Param("threshold", "threshold", "invalid_threshold", "threshold", 0.85),
                Param("mode", "mode", "invalid_mode", "mode", "auto"),
                Param("force", "force", "invalid_force", "force", False),
            ),
            reference=reference.decide_write,
            result_kind="json",
            fixture="write-gate",
            via="normalize_fact_text",
            plain=(("text", "The user likes tea"), ("embedding_json", "[1,0]"), ("candidates_json", "null")),
            steps=DECIDE_WRITE_STEPS,
            decision=Decision(),
        ),
        Op(
            name="build_dedup_context",
            js_name="buildDedupContext",
            params=(
                Param("topical_json", "topicalJson", "invalid_json", "section_json"),
                Param("pinned_json", "pinnedJson", "invalid_json", "section_json"),
                Param("recent_json", "recentJson", "invalid_json", "section_json"),
                Param("cap", "cap", "invalid_cap", "cap", 30),
            ),
            reference=reference.build_dedup_context,
            result_kind="text",
            fixture="dedup-context",
            unicode_steps=(),  # line breaks and White_Space are the contract's fixed sets
            char_rules=("line_breaks", "whitespace_definition"),
            plain=(("topical_json", "null"), ("pinned_json", "null"), ("recent_json", "null")),
            steps=BUILD_DEDUP_CONTEXT_STEPS,
        ),
        Op(
            name="unicode_versions",
            js_name="unicodeVersions",
            params=(),
            reference=reference.unicode_versions,
            result_kind="json",
            fixture=None,
            differential=False,  # differs between implementations by design; reported, not compared
            steps=_steps(("versions.report", "the Unicode version of each Unicode-dependent step")),
        ),
        Op(
            # Diagnostic, not in contract v1: NFC alone, for the NormalizationTest.txt conformance check
            # (suites/parity/test_unicode_conformance.py); compared across implementations like the others.
            name="unicode_nfc",
            js_name="unicodeNfc",
            params=(Param("text", "text", "invalid_text", "text"),),
            reference=reference.unicode_nfc,
            result_kind="text",
            fixture=None,
            unicode_steps=("normalization",),
            char_rules=("normalization",),
            plain=(("text", "plain"),),
            steps=_steps(("nfc.text", "a string of Unicode scalar values", "invalid_text", "host", "text"),
                         ("nfc.nfc", "NFC", None, "nfc")),
        ),
    )
}


def families() -> dict[str, tuple[str, ...]]:
    """Each op family -> its ops, in registry order."""
    out: dict[str, tuple[str, ...]] = {}
    for op in OPS.values():
        out[op.family] = (*out.get(op.family, ()), op.name)
    return out


def served_ops(names: list[str] | None) -> tuple[tuple[str, ...], list[str]]:
    """(the ops that ``names`` stand for: op names and family names, in registry order; the names that are
    neither). None: every op."""
    if names is None:
        return tuple(OPS), []
    groups = families()
    wanted = {op for name in names for op in (groups[name] if name in groups else (name,) if name in OPS else ())}
    return tuple(op for op in OPS if op in wanted), [name for name in names if name not in OPS and name not in groups]


def step_titles() -> dict[str, Step]:
    """Every step id of every op and every JSON rule -> its Step."""
    out = {rule.id: rule for rule in JSON_RULES}
    for op in OPS.values():
        out.update((step.id, step) for step in op.steps)
    return out


def get_op(name: str) -> Op:
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(f"unknown op {name!r}{did_you_mean(name, OPS)}; known ops: {', '.join(OPS)}") from None


def check_args(op: Op, args: dict[str, Any]) -> None:
    """Raise ValueError naming the problem when ``args`` does not fit ``op``'s parameters."""
    names = {param.name for param in op.params}
    unknown = sorted(set(args) - names)
    if unknown:
        raise ValueError(f"{op.name}: unknown argument(s) {', '.join(unknown)}; parameters: {', '.join(names)}")
    missing = [param.name for param in op.params if param.required and param.name not in args]
    if missing:
        raise ValueError(f"{op.name}: missing required argument(s) {', '.join(missing)}")
