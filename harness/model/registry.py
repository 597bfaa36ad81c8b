"""The op registry: every op of the contract, declared once.

Fixture generators, the fixture runner, implementations and (later) the differential suites and the
fuzzer are generic over this table. Adding an op means one reference function, one entry here and its
bindings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import reference

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
    # them (harness/differential/explain.py, CHARACTER_RULES).
    char_rules: tuple[str, ...] = ("quote_dash_map", "final_sigma", "case_mapping", "normalization",
                                   "edge_punctuation", "whitespace_definition")
    # The op its texts go through (decide_write normalizes with normalize_fact_text): a character or
    # Unicode cause is only considered when that op itself disagrees on one of the input's strings.
    via: str | None = None
    # Plain arguments every implementation answers alike (the fillers of a batch the reproduction gate
    # sends, harness/differential/verdict.py).
    plain: tuple[tuple[str, Any], ...] = ()

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
        ),
        Op(
            name="unicode_versions",
            js_name="unicodeVersions",
            params=(),
            reference=reference.unicode_versions,
            result_kind="json",
            fixture=None,
            differential=False,  # differs between implementations by design; reported, not compared
        ),
        Op(
            # Diagnostic, not in contract v1: NFC alone, for the NormalizationTest.txt conformance check
            # (suites/test_unicode_conformance.py); compared across implementations like the others.
            name="unicode_nfc",
            js_name="unicodeNfc",
            params=(Param("text", "text", "invalid_text", "text"),),
            reference=reference.unicode_nfc,
            result_kind="text",
            fixture=None,
            unicode_steps=("normalization",),
            char_rules=("normalization",),
            plain=(("text", "plain"),),
        ),
    )
}


def get_op(name: str) -> Op:
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(f"unknown op {name!r}; known ops: {', '.join(OPS)}") from None


def check_args(op: Op, args: dict[str, Any]) -> None:
    """Raise ValueError naming the problem when ``args`` does not fit ``op``'s parameters."""
    names = {param.name for param in op.params}
    unknown = sorted(set(args) - names)
    if unknown:
        raise ValueError(f"{op.name}: unknown argument(s) {', '.join(unknown)}; parameters: {', '.join(names)}")
    missing = [param.name for param in op.params if param.required and param.name not in args]
    if missing:
        raise ValueError(f"{op.name}: missing required argument(s) {', '.join(missing)}")
