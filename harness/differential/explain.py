"""Differential machinery: run one input on several implementations, decide whether they agree,
and explain a disagreement (the cause, the code points involved).

Causes (a fixed list, in the order they are tried). Each counterfactual cause holds only when,
with exactly what it names replaced (characters by stand-ins of the same role, see ``role``),
the implementations agree on an outcome that one side already had:

* ``crash``: a side crashed, trapped or hung (harness codes ``crash``/``timeout``);
* ``boundary_coercion``: a host value at a boundary (negative, >= 2^32, fractional, NaN, boolean, a
  lone surrogate, a wrong type) is validated by one side and coerced by another; replacing that
  argument by a plain value removes the divergence (detail: the parameter);
* ``json_strictness``: some sides refuse a JSON argument as ``invalid_json`` and others take it; the
  detail names the strictness rules the text touches (harness/model/json_features.py);
* ``unicode_version_skew``: replacing every character whose Unicode data differs between the versions
  in play (assigned after 14.0, or with changed properties) removes it (detail: the steps);
* a character rule of the contract, the op's own ones in its order (``Op.char_rules``): replacing
  the characters the rule names removes it: ``line_breaks``, ``quote_dash_map``, ``final_sigma``
  (capital sigma), ``case_mapping`` (cased letters), ``normalization`` (characters NFC changes), ``edge_punctuation``,
  ``whitespace_definition`` (White_Space and its near misses, U+001C-U+001F, U+FEFF, ...);
* ``float_rounding``: every side returns a decision and they differ in a similarity or in the
  action for a similarity next to the threshold;
* ``validation_order``: every side rejects the input, with different codes;
* ``error_versus_result``: one side raises where another returns;
* ``rule_difference``: every side returns, the results differ, and no character set or number
  explains it: a rule applied differently (detail: the fields that differ);
* ``other``.

Nothing here asks the reference how to read an input: JSON is parsed with the standard library and
the contract's character sets come from harness/model/contract_sets.py.
"""

from __future__ import annotations

import json
import math
import re
import struct
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import unicodedata2

from generators.unicode_stability import unstable_reason
from harness.differential.causes import Stats as CauseStats
from harness.differential.causes import cause_from_traces
from harness.model import hostvalues, unicode_tables
from harness.model.compare import parse_result, same_json
from harness.model.contract_sets import EDGE_PUNCTUATION, LINE_BREAKS, QUOTE_DASH, WHITE_SPACE, white_space_like
from harness.model.json_features import features as json_features
from harness.model.registry import OPS, PLAIN_VALUES, Op, get_op, is_boundary_host_value
from harness.model.traces import parse as parse_trace
from harness.model.unicode_info import assigned_in, describe, has_surrogate, interesting, is_surrogate
from harness.testees.errors import answered
from harness.testees.fanout import expressible
from harness.testees.impls import oracle as oracle_name
from harness.testees.testee import Testee
from harness.testees.traces import problems, request_trace, traced_ops

CAUSES = (
    "crash",
    "boundary_coercion",
    "json_strictness",
    "unicode_version_skew",
    "line_breaks",
    "quote_dash_map",
    "final_sigma",
    "case_mapping",
    "normalization",
    "edge_punctuation",
    "whitespace_definition",
    "float_rounding",
    "validation_order",
    "error_versus_result",
    "rule_difference",
    "other",
)

Responses = dict[str, dict[str, Any]]


def observe(impls: dict[str, Testee], op_name: str, args: dict[str, Any]) -> Responses:
    """Every implementation's response; one whose host cannot express ``args`` is left out, and so is one
    that gave no answer (harness/testees/errors.NO_ANSWER: a finding, or work cut by the budget)."""
    got = {name: impl.call(op_name, args) for name, impl in impls.items() if expressible(name, args)}
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
    return kind_a == kind_b and same_json(value_a, value_b)


def divergent(op_name: str, responses: Responses) -> list[str]:
    """Implementations whose outcome differs from the oracle's (or from the first one's)."""
    names = list(responses)
    if not names:
        return []
    oracle = oracle_name() if oracle_name() in responses else names[0]
    return [n for n in names if n != oracle and not same_outcome(op_name, responses[oracle], responses[n])]


# ---- cause classification ------------------------------------------------------------------------

def _parse_json(value: str) -> Any:
    """The value of a JSON text by the standard library (never an implementation's parser, so a JSON bug
    in the reference cannot bend the explanation); None when it is not JSON."""
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return None


def _map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """Apply ``fn`` to a host string. A JSON text (one the standard library reads) is parsed and only its
    string values change (keys and structure stay; the text is rewritten compactly when something
    changed), so a replacement never breaks the JSON around the characters it names."""
    if not isinstance(value, str):
        return value
    parsed = _parse_json(value)
    if not isinstance(parsed, (list, dict)):
        return fn(value)

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return fn(item)
        if isinstance(item, list):
            return [walk(x) for x in item]
        if isinstance(item, dict):
            return {k: walk(v) for k, v in item.items()}
        return item

    walked = walk(parsed)
    return value if walked == parsed else json.dumps(walked, ensure_ascii=False, separators=(",", ":"))


# Stand-ins of the same role for replaced characters: the same case (cased or not), still a mark, a
# digit, punctuation or a format character, so that a counterfactual removes what the cause names and
# not the context around it (a final-sigma context, an edge character, the text itself). Each stand-in
# is stable across every Unicode version in play and in no set the contract names.
_UPPER = "XYZQJKVWBDFGHLMNPRST"
_LOWER = _UPPER.lower()
_SYMBOLS = "#%&*+<=>@^|~$"
_POOLS = {"Lu": _UPPER, "Lt": _UPPER, "Ll": _LOWER, "Lm": "".join(map(chr, range(0x05D0, 0x05EB))),
          "Lo": "".join(map(chr, range(0x05D0, 0x05EB))), "Mn": "\u0334\u0335\u0336\u0337\u0338",
          "Mc": "\u0334\u0335\u0336\u0337\u0338", "Me": "\u0334\u0335\u0336\u0337\u0338", "Nd": "0123456789",
          "Nl": "0123456789", "No": "0123456789", "Cf": "\u00ad\u200e\u200f"}


def role(ch: str) -> str:
    """The pool of stand-ins for ``ch``: same case, still a mark, a digit, punctuation or format."""
    category = unicodedata2.category(ch)
    return _POOLS.get(category, _SYMBOLS if category[0] in "PS" else "_" + _SYMBOLS)


# Case_Ignorable and not Cased in every version in play, no NFC data, in no rule's set (Lm, U+02B9..U+02BC).
_IGNORABLE = "\u02b9\u02ba\u02bb\u02bc"


def oracle_role(versions: dict[str, dict[str, str]]) -> Callable[[str], str]:
    """Stand-ins for characters whose Unicode data differs between versions: never combining (NFC leaves
    them alone in every version), with the case role each has in the oracle's own case data
    (data/unicode-tables/): a letter of the same case if it is Cased there, a case-ignorable modifier if it
    is Case_Ignorable there (the final-sigma context), else a symbol. So replacing it takes the version
    difference away without changing what a capital sigma next to it sees. Without the oracle's table:
    `role` (the newest data)."""
    mine = versions.get(oracle_name(), {})
    try:
        case = unicode_tables.table(mine["case_mapping"])
    except (KeyError, unicode_tables.MissingTable):
        return role

    def pool(ch: str) -> str:
        cp = ord(ch)
        lower, cased, ignorable = case.data(cp, "case_mapping")
        if cased:
            return _UPPER if lower != (cp,) else _LOWER
        return _IGNORABLE if ignorable else "_" + _SYMBOLS

    return pool


def plain_role(ch: str) -> str:
    """Stand-ins that NFC leaves alone and that never combine, keeping the character's other roles: a
    space for White_Space, edge punctuation for edge punctuation, letters of the same case, else symbols."""
    if ch in WHITE_SPACE:
        return " \t\n"
    if ch in EDGE_PUNCTUATION:
        return ".,;:!?"
    category = unicodedata2.category(ch)
    return _UPPER if category in ("Lu", "Lt") else (_LOWER if category[0] == "L" else "_" + _SYMBOLS)


def _replace_chars(args: dict[str, Any], predicate: Callable[[str], bool],
                   pool: Callable[[str], str] | None = None) -> dict[str, Any]:
    """Every character ``predicate`` names replaced by a stand-in of its role (``pool``), one distinct
    stand-in per distinct character and none that already occurs in the input, so that replacing never
    makes two different texts equal (an exact match) or two equal ones different."""
    pool = pool or role
    present = {ch for text in _all_strings(args) for ch in text}
    chosen: dict[str, str] = {}

    def substitute(ch: str) -> str:
        if ch not in chosen:
            used = set(chosen.values()) | present
            chosen[ch] = next((c for c in pool(ch) if c not in used), pool(ch)[0])
        return chosen[ch]

    def fn(text: str) -> str:
        return "".join(substitute(ch) if predicate(ch) else ch for ch in text)

    return {name: _map_strings(value, fn) for name, value in args.items()}


def _version_sensitive(ch: str) -> bool:
    """Whether some step's data of ``ch`` differs between two of the Unicode versions the harness has
    tables for (data/unicode-tables/: exact, character by character)."""
    return ord(ch) in unicode_tables.sensitive_anywhere()


def _sensitive_between(versions: dict[str, dict[str, str]]) -> Callable[[str], bool]:
    """Characters whose data differs between the versions the implementations report, in some step:
    exact where every reported version of that step has a table, the coarse heuristics for a step where
    one has none (a version the harness has no table of), every table's differences when nothing is
    reported."""
    if not versions:
        return _version_sensitive
    exact: set[int] = set()
    coarse = False
    for step in unicode_tables.STEPS:
        pairs = _table_pairs(step, versions)
        if pairs is None:
            coarse = True
            continue
        for a, b in pairs:
            exact |= unicode_tables.differing_set(step, a, b)
    return lambda ch: ord(ch) in exact or (coarse and _heuristically_sensitive(ch))


def _heuristically_sensitive(ch: str) -> bool:
    """The fallback for a version without a table: properties that differ between CPython's 14.0 and
    unicodedata2's 18.0, or unassigned in 14.0 (coarse: whole classes of characters)."""
    return unstable_reason(ch) is not None and not is_surrogate(ord(ch))


def _table_pairs(step: str, versions: dict[str, dict[str, str]]) -> list[tuple[str, str]] | None:
    """Every pair of distinct `step` versions the implementations report, when every one of them has a
    table with that step's data; None otherwise (the heuristics stand in)."""
    reported = sorted({v[step] for v in versions.values() if step in v})
    if not all(unicode_tables.has(version, step) for version in reported):
        return None
    return [(a, b) for i, a in enumerate(reported) for b in reported[i + 1:]]


def _white_space_like(ch: str) -> bool:
    """White_Space, its near misses, and what Python or JavaScript calls space; plain U+0020 is kept
    (it is structure)."""
    return ch != " " and white_space_like(ch)


def _nfc_relevant(ch: str) -> bool:
    """A character NFC can change, reorder or compose (newest data): canonically decomposable, combining,
    or part of some canonical decomposition (U+0B3E in U+0B4B, a Hangul jamo...)."""
    decomposition = unicodedata2.decomposition(ch)
    return bool(decomposition and not decomposition.startswith("<")) or unicodedata2.combining(ch) != 0 or \
        ord(ch) in _decomposition_parts() or 0x1100 <= ord(ch) <= 0x11FF or 0xAC00 <= ord(ch) <= 0xD7A3


@lru_cache(maxsize=1)
def _decomposition_parts() -> frozenset[int]:
    parts: set[int] = set()
    for cp in range(0x110000):
        if not 0xD800 <= cp <= 0xDFFF:
            decomposition = unicodedata2.decomposition(chr(cp))
            if decomposition and not decomposition.startswith("<"):
                parts.update(int(h, 16) for h in decomposition.split())
    return frozenset(parts)


# The contract's character rules: (which characters it names, their stand-in, the explanation). Each
# op tries those its registry entry lists (Op.char_rules), in that order.
CHARACTER_RULES: dict[str, tuple[Callable[[str], bool], Callable[[str], str] | None, str]] = {
    "line_breaks": (lambda ch: ch in LINE_BREAKS, lambda ch: "_" + _SYMBOLS,
                    "the line breaks ids and texts are split on are treated differently"),
    "quote_dash_map": (lambda ch: ch in QUOTE_DASH, None, "the typographic quote and dash map is applied differently"),
    "final_sigma": (lambda ch: ch == "\u03a3", None, "capital sigma (final or not) is lowercased differently"),
    "case_mapping": (lambda ch: unicodedata2.category(ch) in _CASED or ch.lower() != ch or ch.casefold() != ch, None,
                     "cased letters are lowercased differently (the case mapping rule, not its Unicode data)"),
    "normalization": (_nfc_relevant, plain_role, "NFC (composition, decomposition or ordering) is applied differently"),
    "edge_punctuation": (lambda ch: ch in EDGE_PUNCTUATION, None, "edge punctuation is stripped differently"),
    "whitespace_definition": (_white_space_like, None, "White_Space (or a near miss) is treated differently"),
}


# The sweep templates (harness/fuzzing/templates.py) each character cause needs, so that the exhaustive
# sweep puts every code point where that rule can see it. suites/test_sweep.py fails when a template
# named here is missing from the sweep, or a character rule or cause has no entry.
SWEEP_TEMPLATES: dict[str, tuple[str, ...]] = {
    "line_breaks": ("dedup-id", "dedup-text-line-edges"),
    "quote_dash_map": ("between-letters", "alone"),
    "final_sigma": ("after-capital-sigma", "before-capital-sigma"),
    "case_mapping": ("alone", "between-letters", "doubled"),
    "normalization": ("nfc-alone", "nfc-before-acute", "nfc-after-marks", "doubled"),
    "edge_punctuation": ("leading-edge", "trailing-edge", "after-leading-punctuation", "before-trailing-punctuation"),
    "whitespace_definition": ("between-letters", "leading-edge", "trailing-edge", "after-leading-space",
                              "before-trailing-space", "dedup-text-line-edges"),
    "json_strictness": ("json-raw-in-string", "json-between-tokens", "json-escape"),
    "unicode_version_skew": ("alone", "nfc-alone"),
    "rule_difference": ("exact-match-plain", "exact-match-same"),
}


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

    def exactly(step: str) -> bool | None:
        """Whether a character of the input reads differently in `step` between two reported versions,
        from the tables; None when a reported version has none."""
        pairs = _table_pairs(step, versions)
        if pairs is None:
            return None
        return any(unicode_tables.matters(ord(ch), step, a, b, "\u03a3" in text)
                   for a, b in pairs for text in strings for ch in text if not is_surrogate(ord(ch)))

    if "case_mapping" in op_steps and versions_differ("case_mapping"):
        exact = exactly("case_mapping")
        if exact or (exact is None and any(_heuristically_sensitive(ch) and _case_relevant(ch, text)
                                           for text in strings for ch in text)):
            steps.append("case_mapping")
    if "normalization" in op_steps and versions_differ("normalization"):
        exact = exactly("normalization")
        if exact or (exact is None and any(unicodedata.normalize("NFC", text) != unicodedata2.normalize("NFC", text)
                                           for text in strings if not has_surrogate(text))):
            steps.append("normalization")
    return "+".join(steps) or "properties"


UNEXPLAINED = "unexplained"  # an implementation's own detail when its share of a skew is not one


def _differs_between(ch: str, steps: list[str], mine: dict[str, str], theirs: dict[str, str], sigma: bool) -> bool:
    """Whether ``ch``'s data can differ between two implementations in one of ``steps`` and matter there: a
    character whose data changed between the versions in play, assigned in one implementation's version of
    that step and not in the other's (or assigned in both, with different versions: a changed property),
    and relevant to the step (case: cased, or case-ignorable when the input has a capital sigma; NFC: a
    character NFC can change, reorder or compose)."""
    for step in steps:
        a, b = mine.get(step), theirs.get(step)
        if a is None or b is None or a == b:
            continue
        if unicode_tables.has(a, step) and unicode_tables.has(b, step):
            if unicode_tables.matters(ord(ch), step, a, b, sigma):
                return True
            continue
        if not _heuristically_sensitive(ch):
            continue
        relevant = _case_relevant(ch, "\u03a3" if sigma else "") if step == "case_mapping" else _nfc_relevant(ch)
        if not relevant:
            continue
        in_a, in_b = assigned_in(ord(ch), a), assigned_in(ord(ch), b)
        if in_a != in_b or in_a is None or in_a:
            return True
    return False


def _skewed_between(op_name: str, args: dict[str, Any], names: list[str],
                    versions: dict[str, dict[str, str]]) -> Callable[[str], bool]:
    """The characters whose data differs between the oracle's versions and one of ``names``' in a step
    of the op (every version-sensitive character when the versions are not known)."""
    chosen = oracle_name()
    if chosen not in versions or not all(name in versions for name in names):
        return _sensitive_between(versions)
    pairs = [(skew_steps(args, {chosen: versions[chosen], name: versions[name]}, op_name).split("+"),
              versions[chosen], versions[name]) for name in names]
    sigma = any("\u03a3" in text for text in _all_strings(args))
    return lambda ch: any(_differs_between(ch, steps, mine, theirs, sigma) for steps, mine, theirs in pairs)


def own_details(impls: dict[str, Testee], op_name: str, args: dict[str, Any], cause: str, divergent_names: list[str],
                versions: dict[str, dict[str, str]]) -> dict[str, str | None]:
    """Each divergent implementation's own share of a version skew, checked against the oracle alone.

    With the reference at 14.0/18.0, Pyodide at 16.0/16.0 and Rust at 17.0/18.0, one input can skew
    Pyodide in both steps and Rust in case mapping only. An implementation's own detail is the steps in
    which its versions differ from the oracle's for the input's characters, and only if replacing just the
    characters whose data differs between the two of them in those steps makes it agree with the oracle;
    otherwise it is ``UNEXPLAINED`` (a bug of its own next to the skew: no entry covers it). Empty for
    every other cause."""
    chosen = oracle_name()
    if cause != "unicode_version_skew" or chosen not in versions or chosen not in impls:
        return {}
    out: dict[str, str | None] = {}
    for name in divergent_names:
        mine, theirs = versions[chosen], versions.get(name, {})
        steps = skew_steps(args, {chosen: mine, name: theirs}, op_name)
        if steps == "properties" or name not in impls:
            out[name] = UNEXPLAINED
            continue
        replaced = _replace_chars(args, _skewed_between(op_name, args, [name], versions), oracle_role(versions))
        pair = {chosen: impls[chosen], name: impls[name]}
        out[name] = steps if not divergent(op_name, observe(pair, op_name, replaced)) else UNEXPLAINED
    return out


_FAILURES = {"crash", "timeout"}


def classify(impls: dict[str, Testee], op_name: str, args: dict[str, Any], responses: Responses,
             versions: dict[str, dict[str, str]] | None = None, depth: int = 0) -> tuple[str, str, str | None]:
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
    json_params = [p.name for p in op.params if p.error_code == "invalid_json" and isinstance(args.get(p.name), str)]
    refused = {name for name, (kind, code) in codes.items() if kind == "error" and code == "invalid_json"}

    def strictness(params: list[str]) -> tuple[str, str, str | None]:
        detail = "+".join(sorted(set().union(*(json_features(args[p]) for p in params))))
        return "json_strictness", (f"{', '.join(sorted(refused))} refuse(s) {', '.join(params)} as invalid_json, the "
                                   f"others take it ({detail})"), detail

    if {kind for kind, _ in codes.values()} == {"error"} and len({code for _, code in codes.values()}) > 1 \
            and depth < 3:
        # Every side rejects, with different codes. Each implicated argument is tried alone (the others
        # made plain). If the sides disagree about one argument on its own, that disagreement is the
        # cause (a JSON text some side calls invalid_json: strictness). If they agree on every one and two
        # are each wrong, the sides only report different ones first: validation order.
        implicated = list(dict.fromkeys(p for _, code in codes.values() for p in _params_of(op, code, args)))
        plain = {p: PLAIN_VALUES[op.param(p).kind] for p in args}
        wrong, disputed = [], []
        for param in implicated:
            # This argument alone wrong (every other one made plain): do the sides agree?
            isolated = {**args, **{q: plain[q] for q in args if q != param}}
            after = observe(impls, op_name, isolated)
            if not divergent(op_name, after):
                agreed = {r["error"]["code"] for r in after.values() if "error" in r}
                if all("error" in r for r in after.values()) and agreed <= _codes_of(op.param(param)):
                    wrong.append(param)  # the sides agree that this argument is wrong, with its own code
            else:
                disputed.append((param, isolated, after))
        if disputed:
            param, isolated, after = disputed[0]
            codes_after = {r["error"]["code"] for r in after.values() if "error" in r}
            if param in json_params and json_features(args[param]) and "invalid_json" in codes_after and \
                    (len(codes_after) > 1 or any("ok" in r for r in after.values())):
                return strictness([param])
            if not _same_args(isolated, args):
                return classify(impls, op_name, isolated, after, versions, depth + 1)
        for param in json_params:
            # Inside one JSON argument: a field or element less (or two) that turns the disagreement into a
            # result against an error shows what the sides really disagree on (an empty id one side takes).
            once = _one_less(args[param])
            alone = _each_alone(args[param])
            for smaller in once + alone + [fewer for text in once + alone for fewer in _one_less(text, 10)]:
                nearby = {**args, param: smaller}
                after = observe(impls, op_name, nearby)
                if divergent(op_name, after) and any("ok" in r for r in after.values()):
                    return classify(impls, op_name, nearby, after, versions, depth + 1)
        if len(wrong) >= 2:  # every argument agreed on alone: the sides only differ in which comes first
            shown = ", ".join(f"{name} {code}" for name, (_, code) in codes.items())
            return "validation_order", (f"{' and '.join(wrong)} are each wrong; the implementations report "
                                        f"different ones first ({shown})"), None
    for param in op.params:
        if param.name not in args or not is_boundary_host_value(param.kind, args[param.name]):
            continue
        involved = any(kind == "error" and code in (param.error_code, "unexpected_exception")
                       for kind, code in codes.values())
        # The whole argument is what this cause names: any common outcome after replacing it will do.
        if involved and explains({**args, param.name: PLAIN_VALUES[param.kind]}, keep_outcome=False):
            return "boundary_coercion", (f"{param.name}={hostvalues.encode(args[param.name])!r} is validated by some "
                                         "implementations and coerced by others"), param.name
    if json_params and refused and refused != set(codes):
        flagged = [p for p in json_params if json_features(args[p])]
        # The JSON text one side refuses and whose strict rewriting settles it; or, when a side returned,
        # every flagged text.
        culprits = [p for p in flagged if explains({**args, p: _strict_rewrite(args[p])}, keep_outcome=False)]
        if culprits or (flagged and any(kind == "ok" for kind, _ in codes.values())):
            return strictness(culprits or flagged)
    # Characters explain differences of results (and of the empty_text that a normalized text gives),
    # never of argument validation.
    strings = _all_strings(args)
    text_level = all(kind == "ok" or code == "empty_text" for kind, code in codes.values())
    in_play = _sensitive_between(versions or {})
    sensitive = text_level and any(in_play(ch) for text in strings for ch in text)
    if sensitive:
        steps = skew_steps(args, versions or {}, op_name)
        # A skew only when every disagreeing implementation's share is one: its own versions differ from
        # the oracle's on characters of the input, and replacing just those settles it (own_details).
        # Replacing every version-sensitive character can remove a trigger that has nothing to do with
        # versions (a letter of 18.0 next to a capital sigma that one side lowercases wrongly).
        stand_ins = oracle_role(versions or {})
        settled = steps != "properties" and explains(_replace_chars(args, in_play, stand_ins))
        if settled and UNEXPLAINED not in own_details(impls, op_name, args, "unicode_version_skew",
                                                      divergent(op_name, responses), versions or {}).values():
            return "unicode_version_skew", f"characters whose Unicode data differs between the versions in play " \
                f"({steps})", steps
        if depth < 3:
            # Two differences at once (a version skew and something else): the one left once the
            # characters whose data differs between the disagreeing implementations' versions (and only
            # those) are replaced is the cause this input is reported under.
            peeled = _replace_chars(args, _skewed_between(op_name, args, divergent(op_name, responses), versions or {}),
                                    stand_ins)
            after = observe(impls, op_name, peeled)
            if peeled != args and divergent(op_name, after):
                return classify(impls, op_name, peeled, after, versions, depth + 1)
    if text_level and op.via is not None:
        # e.g. decide_write: its texts are normalized; if normalizing every string of the input gives the
        # same everywhere, characters cannot explain the difference (a decision rule does).
        text_level = any(divergent(op.via, observe(impls, op.via, {"text": text})) for text in dict.fromkeys(strings))
    explaining = [rule for rule in op.char_rules if text_level and
                  any(CHARACTER_RULES[rule][0](ch) for text in strings for ch in text) and
                  explains(_replace_chars(args, CHARACTER_RULES[rule][0], CHARACTER_RULES[rule][1]))]
    if explaining:
        # Sets overlap (U+0345 is a combining mark and has a case mapping): prefer a rule whose undoing
        # makes the results themselves equal, the most specific first; else the op's order.
        reconciled = sorted((r for r in explaining if _reconciles(r, op_name, responses)), key=_SPECIFICITY.index)
        rule = reconciled[0] if reconciled else explaining[0]
        return rule, CHARACTER_RULES[rule][2], None
    sims = _similarities(op_name, responses)
    numbers = [s for s in sims if isinstance(s, (int, float)) and not isinstance(s, bool)]
    if sims and len(numbers) == len(sims) and len(set(_match_ids(op_name, responses))) == 1 and \
            any(not same_json(s, sims[0]) for s in sims):
        return "float_rounding", ("similarities of the same candidate differ: "
                                  f"{dict(zip(names, sims, strict=True))}"), None
    if sims and op_name == "decide_write" and len({_decision(op_name, r) for r in responses.values()}) > 1:
        threshold = args.get("threshold", 0.85)
        numeric = isinstance(threshold, (int, float)) and not isinstance(threshold, bool) and \
            math.isfinite(float(threshold))
        if numeric and _threshold_decides(impls, op_name, args, numbers, threshold):
            # A hair's breadth below or above the threshold, they agree (up to the last bits of the same
            # similarity): the comparison at the threshold decides, not which candidates are compared.
            return "float_rounding", "a similarity next to the threshold is compared differently", None
        unpinned = {p: _unpinned(args[p]) for p in json_params}
        unpinned = {p: text for p, text in unpinned.items() if text != args[p]}
        if unpinned and explains({**args, **unpinned}):
            return "rule_difference", ("pinned candidates are treated differently (with every pinned flag false, "
                                       "the implementations agree)"), None
    if sims and op_name == "decide_write":
        threshold = args.get("threshold", 0.85)
        rescaled = {p: _rescale(args[p]) for p in json_params}
        rescaled = {p: text for p, text in rescaled.items() if text != args[p]}
        if rescaled:
            after = observe(impls, op_name, {**args, **rescaled})
            after_sims = _similarities(op_name, after)
            precision_only = bool(after_sims) and all(isinstance(x, float) for x in after_sims) and \
                len(set(_match_ids(op_name, after))) == 1
            after_numbers = [x for x in after_sims if isinstance(x, float)]
            at_threshold = isinstance(threshold, float) and math.isfinite(threshold) and \
                len({_decision(op_name, r) for r in after.values()}) > 1 and \
                _threshold_decides(impls, op_name, {**args, **rescaled}, after_numbers, threshold)
            # The rescaled input must keep a decision one side made (rescaling that moves a similarity
            # across the threshold removes the trigger instead of explaining it).
            kept = ({_decision(op_name, r) for r in after.values()}
                    <= {_decision(op_name, r) for r in responses.values()})
            if kept and (not divergent(op_name, after) or precision_only) or at_threshold:
                return "float_rounding", ("the magnitude of the vectors decides (scaled to a largest component of "
                                          "1, same directions, the implementations agree, or differ only in the "
                                          "last bits of one similarity): overflow or precision in the sums"), None
    rounded = {p: _binary32_rewrite(args[p]) for p in json_params}
    rounded = {p: text for p, text in rounded.items() if text != args[p]}
    if rounded and explains({**args, **rounded}):
        return "float_rounding", ("numbers that binary32 cannot hold exactly are rounded differently (with them "
                                  "rounded to binary32 first, the implementations agree)"), None
    kinds = {kind for kind, _ in codes.values()}
    if kinds == {"error"}:
        shown = ", ".join(f"{name} {code}" for name, (_, code) in codes.items())
        return "validation_order", f"every implementation rejects the input, with different codes ({shown})", None
    if "ok" in kinds and kinds & {"error", "unparseable"}:
        return "error_versus_result", "one implementation raises where another returns", None
    differing = _differing_fields(op_name, responses)
    if kinds == {"ok"} and differing:
        # The differing fields go into the explanation, not the class key: one rule bug shows in different
        # fields on different witnesses (a decision in one, only the matched candidate in another).
        return "rule_difference", (f"every implementation returns, with different {differing}: a rule of the "
                                   "contract applied differently, not explained by a named character set or "
                                   "number"), None
    return "other", "no single cause explains it", None


# Among character rules that all explain a divergence and whose undoing reconciles the results: the
# most specific statement first (canonical equivalence is stronger than equality after casefolding).
_SPECIFICITY = ["normalization", "final_sigma", "quote_dash_map", "line_breaks", "edge_punctuation",
                "whitespace_definition", "case_mapping"]


def _threshold_decides(impls: dict[str, Testee], op_name: str, args: dict[str, Any], similarities: list[float],
                       threshold: Any) -> bool:
    """A similarity within binary32 precision of the threshold, and a threshold a hair's breadth (1e-5)
    lower and one a hair's breadth higher each settle the divergence: the comparison at the threshold
    decides, not which candidates are compared."""
    return any(_near(x, threshold) for x in similarities) and all(
        _settled(op_name, observe(impls, op_name, {**args, "threshold": float(threshold) * factor}))
        for factor in (1 - 1e-5, 1 + 1e-5))


def _settled(op_name: str, responses: Responses) -> bool:
    """Agreement, or the same decision on the same candidate with similarities differing in their bits."""
    if not divergent(op_name, responses):
        return True
    sims = _similarities(op_name, responses)
    return bool(sims) and all(isinstance(x, float) for x in sims) and len(set(_match_ids(op_name, responses))) == 1 \
        and len({_decision(op_name, r) for r in responses.values()}) == 1


def _near(similarity: float, threshold: float) -> bool:
    """Within binary32 precision of the threshold (a relative 1e-6, about 8 binary32 ulps): where a sum
    in another precision or order can land on the other side."""
    return abs(similarity - threshold) <= 1e-6 * max(abs(similarity), abs(float(threshold)))


def _match_ids(op_name: str, responses: Responses) -> list[Any]:
    ids = []
    for response in responses.values():
        kind, value = outcome(op_name, response)
        match = value.get("match") if kind == "ok" and isinstance(value, dict) else None
        # A candidate is known by its id and its text together (ids need not be unique).
        ids.append((match.get("id"), match.get("text")) if isinstance(match, dict) else None)
    return ids


def _binary32_rewrite(text: str) -> str:
    """The JSON text with every number rounded to binary32 (overflow: the largest finite one, keeping
    the sign)."""
    largest = 3.4028234663852886e38

    def replace(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
            return _KEEP
        try:
            return struct.unpack("<f", struct.pack("<f", float(value)))[0]
        except OverflowError:
            return math.copysign(largest, float(value))

    return _rewrite_json(text, replace)


def _differing_fields(op_name: str, responses: Responses) -> str | None:
    """For results that all parsed: which top-level fields differ ("action+reason", "match"), or
    "text" for a text result."""
    values = [outcome(op_name, r) for r in responses.values()]
    if any(kind != "ok" for kind, _ in values):
        return None
    parsed = [value for _, value in values]
    if all(isinstance(v, dict) for v in parsed):
        keys = sorted({k for v in parsed for k in v})
        return "+".join(k for k in keys if any(not same_json(v.get(k), parsed[0].get(k)) for v in parsed)) or None
    return "text"


def _same_args(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal as host values: 0 is not False, 1 is not 1.0 (Python's == says they are)."""
    def key(args: dict[str, Any]) -> str:
        return json.dumps(hostvalues.encode_args(args), sort_keys=True, default=repr) + \
            repr(sorted((k, type(v).__name__) for k, v in args.items()))

    return key(a) == key(b)


def _codes_of(param: Any) -> set[str]:
    """The codes a wrong value of ``param`` can give (a JSON text: also its shape and embedding codes)."""
    codes = {param.error_code}
    if param.error_code == "invalid_json":
        codes |= {"invalid_shape", "invalid_embedding"}
    if param.error_code == "invalid_text":
        codes.add("empty_text")
    return codes


def _params_of(op: Op, code: str, args: dict[str, Any]) -> list[str]:
    """The given arguments an error code can come from (empty_text: the text)."""
    if code == "empty_text":
        code = "invalid_text"
    shape_of = {"invalid_shape": "invalid_json", "invalid_embedding": "invalid_json"}
    return [p.name for p in op.params if p.name in args and p.error_code in (code, shape_of.get(code))]


def _decision(op_name: str, response: dict[str, Any]) -> Any:
    """(action, reason) of a decide_write result; the outcome kind otherwise."""
    kind, value = outcome(op_name, response)
    return (value.get("action"), value.get("reason")) if kind == "ok" and isinstance(value, dict) else kind


_KEEP = object()


def _rewrite_json(text: str, replace: Callable[[Any], Any]) -> str:
    """The JSON text (read by the standard library) with ``replace`` applied to every value, outermost
    first: it returns a replacement (not visited further) or ``_KEEP``. Rewritten compactly when
    something changed; unchanged when the text is not JSON."""
    def walk(value: Any) -> Any:
        replaced = replace(value)
        if replaced is not _KEEP:
            return replaced
        if isinstance(value, list):
            return [walk(x) for x in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return text
    changed = walk(parsed)
    return text if changed == parsed else json.dumps(changed, separators=(",", ":"), ensure_ascii=False)


def _one_less(text: str, limit: int = 40) -> list[str]:
    """The JSON text with one element of its top-level array, or one member of one of its objects, left
    out (at most ``limit`` variants)."""
    parsed = _parse_json(text)
    out: list[Any] = []
    if isinstance(parsed, list):
        for i, item in enumerate(parsed):
            out.append(parsed[:i] + parsed[i + 1:])
            if isinstance(item, dict):
                out += [parsed[:i] + [{k: v for k, v in item.items() if k != key}] + parsed[i + 1:] for key in item]
    elif isinstance(parsed, dict):
        out += [{k: v for k, v in parsed.items() if k != key} for key in parsed]
    return [json.dumps(value, separators=(",", ":"), ensure_ascii=False) for value in out[:limit]]


def _each_alone(text: str, limit: int = 10) -> list[str]:
    """The JSON text's top-level array reduced to each one of its elements."""
    parsed = _parse_json(text)
    if not isinstance(parsed, list) or len(parsed) < 2:
        return []
    return [json.dumps([item], separators=(",", ":"), ensure_ascii=False) for item in parsed[:limit]]


def _number_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and \
        all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)


def _unpinned(text: str) -> str:
    """The JSON text with every ``"pinned": true`` made false."""
    def replace(value: Any) -> Any:
        if isinstance(value, dict) and value.get("pinned") is True:
            return {**value, "pinned": False}
        return _KEEP

    return _rewrite_json(text, replace)


def _rescale(text: str) -> str:
    """The JSON text with every array of numbers divided by its largest absolute component (the same
    direction, so the same cosine similarity in exact arithmetic, with magnitudes near 1)."""
    def replace(value: Any) -> Any:
        if not _number_array(value):
            return _KEEP
        largest = max(abs(float(x)) for x in value)
        return [float(x) / largest for x in value] if largest > 0 and math.isfinite(largest) else value

    return _rewrite_json(text, replace)


def _collapse_lines(text: str) -> str:
    """The contract's line collapse, the harness's own: split on line breaks, trim White_Space, drop
    empty pieces, join with one space."""
    pieces = re.split("[" + "".join(sorted(LINE_BREAKS)) + "]", text)
    return " ".join(kept for kept in (piece.strip("".join(WHITE_SPACE)) for piece in pieces) if kept)


def _reconciles(rule: str, op_name: str, responses: Responses) -> bool:
    """Whether undoing what ``rule`` does makes every text result equal (a tie-breaker between rules)."""
    values = [outcome(op_name, r) for r in responses.values()]
    if any(kind != "ok" or not isinstance(value, str) for kind, value in values):
        return False
    undo: dict[str, Callable[[str], str]] = {
        "normalization": lambda t: unicodedata2.normalize("NFD", t),
        "case_mapping": lambda t: t.casefold(),
        "final_sigma": lambda t: t.replace("\u03c2", "\u03c3"),
        "quote_dash_map": lambda t: "".join(QUOTE_DASH.get(ch, ch) for ch in t),
        "edge_punctuation": lambda t: t.strip("".join(EDGE_PUNCTUATION | WHITE_SPACE)),
        "whitespace_definition": lambda t: "".join(ch for ch in t if not white_space_like(ch)),
        "line_breaks": _collapse_lines,
    }
    if rule not in undo:
        return False
    return len({undo[rule](value) for _, value in values}) == 1


def _strict_rewrite(text: str) -> str:
    """The JSON text as strict JSON where the standard library can read it (BOM dropped, duplicate keys
    merged, NaN/Infinity and overflowing numbers as 0, compact); unchanged where it cannot."""
    def replace(value: Any) -> Any:
        return 0 if isinstance(value, float) and not math.isfinite(value) else _KEEP

    stripped = text.lstrip("\ufeff")
    rewritten = _rewrite_json(stripped, replace)
    if rewritten == stripped and _parse_json(stripped) is not None:
        rewritten = json.dumps(json.loads(stripped), separators=(",", ":"), ensure_ascii=False)
    return rewritten


def _kind(op_name: str, response: dict[str, Any]) -> tuple[str, Any]:
    """An outcome's kind: ("ok", None) or ("error", code)."""
    kind, value = outcome(op_name, response)
    return (kind, value) if kind == "error" else (kind, None)


def _all_strings(args: dict[str, Any]) -> list[str]:
    """Every host string of the arguments that is not a JSON text, and every string value inside those
    that are (keys are structure, not text)."""
    found: list[str] = []

    def walk(item: Any) -> None:
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, list):
            for x in item:
                walk(x)
        elif isinstance(item, dict):
            for x in item.values():
                walk(x)

    for value in args.values():
        if isinstance(value, str):
            parsed = _parse_json(value)
            if isinstance(parsed, (list, dict)):
                walk(parsed)
            else:
                found.append(value)
    return found


def code_points(args: dict[str, Any], versions: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    seen: list[int] = []
    for text in _all_strings(args):
        for ch in text:
            cp = ord(ch)
            if interesting(cp) and cp not in seen:
                seen.append(cp)
    return [describe(cp, versions) for cp in seen[:40]]


@dataclass(frozen=True)
class Found:
    """A divergence's cause: from the step traces where every side serves them, else from counterfactuals."""

    cause: str
    explanation: str
    detail: str | None
    step: str | None = None  # where the traces part (None: counterfactuals named it)
    rule: str | None = None  # the rule of harness/differential/causes that named it
    fallback: tuple[str, str | None] | None = None  # the counterfactual classifier's (cause, detail), run beside

    @property
    def named(self) -> tuple[str, str, str | None]:
        return self.cause, self.explanation, self.detail


def _traces(impls: dict[str, Testee], op_name: str, args: dict[str, Any], names: list[str]) -> dict[str, Any] | None:
    """Every named implementation's trace of the call (checked: harness/testees/traces.py), or None when one
    of them serves none or gives one that fails its checks (then counterfactuals name the cause)."""
    found = {}
    for name in names:
        if op_name not in traced_ops(impls[name]):
            return None
        response = request_trace(impls[name], op_name, args)
        if problems(op_name, response, None, validate=False):
            return None
        found[name] = parse_trace(response["ok"])
    return found


def name_cause(impls: dict[str, Testee], op_name: str, args: dict[str, Any], responses: Responses,
               versions: dict[str, dict[str, str]] | None = None, fallback: bool = True,
               stats: CauseStats | None = None, depth: int = 0) -> Found:
    """The cause of a divergence. Where the oracle and every implementation that disagrees with it serve
    traces (and none crashed), the first step where the oracle's trace and the first disagreeing one's part
    names it (harness/differential/causes); the counterfactual classifier (``classify``) runs beside it
    (``fallback``) and is the cause everywhere else."""
    versions = versions or {}
    names = divergent(op_name, responses)
    crashed = any("error" in r and r["error"].get("code") in _FAILURES for r in responses.values())
    oracle = next(iter(responses))
    traced = None if crashed or not names else _traces(impls, op_name, args, [oracle, *names])
    if traced is None:
        return Found(*classify(impls, op_name, args, responses, versions))
    first = cause_from_traces(op_name, traced[oracle], traced[names[0]], args, versions.get(oracle, {}),
                              versions.get(names[0], {}), stats)
    if first is None:  # the traces agree, the outputs do not: a trace that hides a step (checked, so rare)
        return Found(*classify(impls, op_name, args, responses, versions))
    if first.cause == "unicode_version_skew" and depth < 2:
        # A skew where the traces part first may ride along with a bug further on (two differences at once):
        # with the characters whose data differs between the disagreeing sides' versions replaced, a
        # divergence that remains is the one this input is reported under.
        peeled = _replace_chars(args, _skewed_between(op_name, args, names, versions), oracle_role(versions))
        if peeled != args:
            after = observe(impls, op_name, peeled)
            if divergent(op_name, after):
                return name_cause(impls, op_name, peeled, after, versions, fallback, stats, depth + 1)
    other = classify(impls, op_name, args, responses, versions) if fallback else None
    return Found(first.cause, first.why, first.detail, first.step, first.rule,
                 None if other is None else (other[0], other[2]))


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
    own_details: dict[str, str | None] = field(default_factory=dict)  # per implementation, when narrower (own_details)
    step: str | None = None  # where the traces part (Found.step)
    rule: str | None = None
    fallback: tuple[str, str | None] | None = None

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
            "step": self.step,
            "rule": self.rule,
            "fallbackCause": None if self.fallback is None else {"cause": self.fallback[0], "detail": self.fallback[1]},
            **({"ownDetails": self.own_details} if self.own_details else {}),
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
    found = name_cause(impls, op_name, args, responses, versions)
    return Divergence(op_name, args, responses, names, found.cause, found.explanation, code_points(args, versions),
                      found.detail, step=found.step, rule=found.rule, fallback=found.fallback)


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
