"""The op registry: every op of every op family, declared once, in its family's file (families/*.json).

Fixture generators, the fixture runner, implementations, the differential suites and the fuzzer are
generic over this table. It is built from the family files harness/model/families.py reads; what is the
harness's own stays here: the parameter kinds' plain values and boundaries, the step roles, the return
types and the strictness rules every JSON parameter follows. Adding an op family means a family file, its
reference and its implementations' bindings; no file of the harness (docs/implementers.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from harness.model import families as family_files
from harness.model.names import did_you_mean
from harness.model.status import PREFLIGHT, UsageError
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


# What kind of step a step is (Step.role), for naming the cause where two traces part there; the family
# schema's enum of roles is this list (suites/model/test_families.py).
ROLES: tuple[str, ...] = ("host", "json", "shape", "nfc", "quote_dash", "lowercase", "white_space", "edges",
                          "line_breaks", "trim", "binary32", "similarity", "near", "rule")


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
    # A fused or composite step: the roles of the steps it does the work of (ctx.join drops the pieces the trim
    # left empty: trim), tried by the character rules where traces part here (harness/differential/causes).
    composes: tuple[str, ...] = ()
    # (the step whose value this one is computed from, the relation: harness/model/step_relations.py): every trace
    # must show it (harness/testees/traces.py).
    follows: tuple[str, str] | None = None
    # The Unicode property whose data it reads (a family-v2 step's "unicode": "normalization", "case_mapping",
    # "general_category", "white_space"; harness/model/unicode_tables.py), None when it reads none or its family
    # file is family-v1. An op's unicode_steps are made from these (_unicode_steps).
    unicode: str | None = None


# Each parameter kind's plain value: one every implementation takes alike (a counterfactual puts it in
# place of an argument to see whether that argument is what the implementations disagree about).
PLAIN_VALUES: dict[str, Any] = {"text": "plain text", "embedding_json": "null", "candidates_json": "null",
                                "section_json": "null", "threshold": 0.85, "mode": "auto", "force": False, "cap": 30}


def plain_args(op: Op) -> dict[str, Any] | None:
    """Arguments every implementation takes alike: each parameter's default, else its kind's plain value
    (PLAIN_VALUES); None where a parameter has neither (a kind of another family)."""
    args: dict[str, Any] = {}
    for param in op.params:
        if not param.required:
            args[param.name] = param.default
        elif param.kind in PLAIN_VALUES:
            args[param.name] = PLAIN_VALUES[param.kind]
        else:
            return None
    return args


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
    # The Unicode properties whose data it reads (the cause classifier names only these in a version skew), in
    # name order: a family-v2 op's are those its steps declare ("unicode") and those of the op its texts go through
    # ("via"); a family-v1 op's, its file's "unicode_steps" (none when it gives none).
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
    # A JSON Schema of a fixture case's result, where the family gives one (harness/fixtures/lint.py).
    result_schema: dict[str, Any] | None = field(default=None, compare=False, hash=False)

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


def _op(family: family_files.Family, data: dict[str, Any]) -> Op:
    """One op of a family file (harness/model/families.py has checked it)."""
    module = family.module
    params = tuple(Param(p["name"], p["js_name"], p["error_code"], p["kind"], p.get("default", _REQUIRED))
                   for p in data["params"])
    steps = tuple(Step(step["id"], step["title"], step.get("code"), step.get("role", "rule"), step.get("param"),
                       tuple(step.get("composes", ())),
                       (step["follows"]["step"], step["follows"]["as"]) if "follows" in step else None,
                       step.get("unicode"))
                  for step in data["steps"])
    return Op(name=data["name"], js_name=data["js_name"], params=params,
              reference=getattr(module, data.get("function", data["name"])), result_kind=data["result"],
              fixture=data.get("fixture"), differential=data.get("differential", True),
              later=tuple((version, getattr(module, function)) for version, function in data.get("later", {}).items()),
              unicode_steps=tuple(data.get("unicode_steps", ())) if family.schema == "family-v1" else
              tuple(sorted({step.unicode for step in steps if step.unicode})),
              char_rules=tuple(data.get("char_rules", ())),
              via=data.get("via"), plain=tuple(data.get("plain", {}).items()), steps=steps,
              decision=Decision(**{key: tuple(value) if isinstance(value, list) else value
                                   for key, value in data["decision"].items()}) if "decision" in data else None,
              returns=data.get("returns", "string"), family=family.name, result_schema=data.get("result_schema"))


def _unicode_steps(ops: dict[str, Op], schemas: dict[str, str]) -> dict[str, Op]:
    """The ops with each family-v2 op's unicode_steps joined with those of the op its texts go through (``via``,
    followed as far as it leads: a Unicode step of that op reads this op's texts too); a family-v1 op's as its file
    gives them."""

    def of(name: str, seen: frozenset[str]) -> frozenset[str]:
        op = ops[name]
        own = frozenset(op.unicode_steps)
        if schemas[name] == "family-v1" or op.via is None or op.via not in ops or op.via in seen:
            return own  # a via that names no op is a family problem (check_vias); a cycle adds nothing more
        return own | of(op.via, seen | {name})

    return {name: replace(op, unicode_steps=tuple(sorted(of(name, frozenset()))))
            if schemas[name] != "family-v1" else op for name, op in ops.items()}


def _registry() -> tuple[dict[str, Op], tuple[family_files.Family, ...], tuple[str, ...]]:
    found, problems = family_files.load()
    problems += family_files.check_vias(found)
    ops = {data["name"]: _op(family, data) for family in found for data in family.ops}
    ops = _unicode_steps(ops, {data["name"]: family.schema for family in found for data in family.ops})
    return ops, tuple(found), tuple(problems)


# Every op of every family that loads, in loading order (the memgate family first); the families; and one
# line per family file that does not load (every command stops on one: `family_problems`).
OPS, FAMILIES, _PROBLEMS = _registry()


def family_problems() -> tuple[str, ...]:
    """What is wrong with each family file that does not load (harness/model/families.py), or ()."""
    return _PROBLEMS


def stop_on_family_problems() -> None:
    """A UsageError naming every family file that does not load: no command runs with an op family missing
    (status.PREFLIGHT, where it is registered below)."""
    if _PROBLEMS:
        raise UsageError("\n".join(_PROBLEMS))


if stop_on_family_problems not in PREFLIGHT:
    PREFLIGHT.append(stop_on_family_problems)


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


# op -> (its parameter names, the required ones): check_args runs once per request a testee serves
_PARAM_NAMES: dict[str, tuple[frozenset[str], frozenset[str]]] = {}


def check_args(op: Op, args: dict[str, Any]) -> None:
    """Raise ValueError naming the problem when ``args`` does not fit ``op``'s parameters."""
    known = _PARAM_NAMES.get(op.name)
    if known is None:
        known = _PARAM_NAMES[op.name] = (frozenset(param.name for param in op.params),
                                    frozenset(param.name for param in op.params if param.required))
    if known[1] <= args.keys() <= known[0]:
        return
    names = [param.name for param in op.params]  # in the op's order: the message is the same on every run
    unknown = sorted(set(args) - set(names))
    if unknown:
        raise ValueError(f"{op.name}: unknown argument(s) {', '.join(unknown)}; parameters: {', '.join(names)}")
    missing = [param.name for param in op.params if param.required and param.name not in args]
    if missing:
        raise ValueError(f"{op.name}: missing required argument(s) {', '.join(missing)}")
