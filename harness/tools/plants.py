"""Planted divergences, one per rule of the contract at least: each must be found by the fuzzer within
the time budget, reported once for its op, with the right cause; and the fixture cases must catch each
(so ``nox -s parity`` fails on it too).

``python -m harness.tools.plants [--seconds 60] [--only TEXT] [--fixtures-only] [--rotate K/N]`` (or
``nox -s plants``) plants each bug in a scratch copy, runs ``python -m harness fuzz --ops OP`` on it,
checks the report, and runs every fixture case on the planted implementation. Reports are kept in
reports/plants/.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass, replace
from pathlib import Path

from harness.classes.record import ClassRecord
from harness.classes.report import classes as report_classes
from harness.differential.causes.facts import DIVERGENT_ONLY, ORACLE_ONLY
from harness.differential.counterfactual.skew import SKEW, steps_of
from harness.tools.mutants import (
    REFERENCE_MUTATIONS,
    ROOT,
    RUST_MUTATIONS,
    Mutation,
    apply,
    check_failing,
    copy_rust_core,
    maturin,
    pyo3_param_mutation,
    wasm_param_mutation,
)

REPORTS = ROOT / "reports" / "plants"


@dataclass(frozen=True)
class Plant:
    name: str
    kind: str  # "reference", "rust", "wasm-glue" or "pyodide-host"
    impls: str
    op: str
    cause: str
    mutation: Mutation | None = None
    # Whether the fixture cases must catch it. Not for a version skew: fixtures only hold characters
    # whose properties agree across the Unicode versions in play (generators/unicode_stability.py), by
    # design; a skew is found by the fuzzer and the sweep and declared in expected/<impl>.json.
    fixtures: bool = True
    # For a "rust" plant: which shipped builds carry it (the PyO3 wheel, the WASM package, or both).
    builds: tuple[str, ...] = ("pyo3",)
    # Narrowed: the fuzzer runs on `op` and `impls` only. Unnarrowed (every plant today): every op, every
    # implementation (Pyodide's expected skews ride along), as a maintainer's plain `fuzz` run would.
    narrow: bool = False
    # Causes the bug rightly shows under too, where it reaches another rule of the contract (a check the strict JSON
    # reader shares with the host checks: a lone surrogate accepted in a text argument and, decoded from an escape,
    # in a JSON text): each reported once per op, the plant's cause on its own op.
    also: tuple[str, ...] = ()
    # Whether the run must report it once per op with `cause` (every plant today). False would make it a
    # measured baseline: found within the budget, its reports and their causes printed.
    cause_checked: bool = True
    # A bug of the testee as a program, not of a rule of the contract (a host whose answers depend on what it was
    # asked before): found as a finding of this kind about the planted implementation (harness/testees/findings.py),
    # with no new class at all; `cause` is then what the bug would be mistaken for, were it classified.
    finding: str | None = None


def _mutation(name: str, pool: list[Mutation]) -> Mutation:
    return next(m for m in pool if m.name == name)


NFC_FROM_PYTHON = Mutation(
    "reference NFC from Python's unicodedata", "reference/unicode_data.py",
    'NORMALIZATION_VERSION: str = unicodedata2.unidata_version',
    'NORMALIZATION_VERSION: str = unicodedata.unidata_version', (),
    more=(('    return unicodedata2.normalize("NFC", text)', '    return unicodedata.normalize("NFC", text)'),),
)

def _ref(name: str, file: str, old: str, new: str, *more: tuple[str, str]) -> Mutation:
    return Mutation(name, f"reference/{file}", old, new, (), more=tuple(more))


NORM, GATE, CTX = "normalize_fact_text", "decide_write", "build_dedup_context"
EVERY = "reference,pyo3,wasm,pyodide"  # an unnarrowed plant's run: all four implementations
ALL = EVERY


def _core(name: str, file: str, old: str, new: str, *more: tuple[str, str]) -> Mutation:
    return Mutation(name, f"rust_core/{file}", old, new, (), more=tuple(more))


def _baseline(name: str, kind: str, op: str, cause: str, mutation: Mutation, builds: tuple[str, ...] = ("pyo3",),
              fixtures: bool = True) -> Plant:
    """A plant of issue 18's unseen bugs (the kinds the suites had missed): unnarrowed, on all four
    implementations, reported once per op with its cause like every other plant since issue 20."""
    return Plant(name, kind, EVERY, op, cause, mutation, fixtures=fixtures, builds=builds)


_LOWER = "    let lowered = mapped.to_lowercase();\n"
_TRIM = "    text.trim_matches(|c: char| is_white_space(c) || is_edge_punctuation(c))\n"
_PARSE = "    let mut reader = serde_json::Deserializer::from_str(text);\n"
_F64 = "        if v.is_finite() {\n            Ok(Value::Number(v))\n"
BOTH = ("pyo3", "wasm")

# Issue 18's unseen bugs, one plant each (reference, Rust core, bindings), unnarrowed and measured.
BASELINE_PLANTS = [
    _baseline("reference: U+2026 not edge punctuation (unnarrowed)", "reference", NORM, "edge_punctuation",
              _ref("ellipsis-kept-unnarrowed", "unicode_data.py", '+ ["\\u2026", ', '+ [')),
    _baseline("reference: lowercase character by character", "reference", NORM, "final_sigma",
              _ref("lower-per-char", "normalize.py", "    text = text.lower()  # step 4",
                   '    text = "".join(ch.lower() for ch in text)  # step 4')),
    _baseline("reference: binary32 sums", "reference", GATE, "float_rounding",
              _ref("binary32-sums", "write_gate.py", "        total += x * y\n",
                   "        total = to_binary32(total + x * y)\n")),
    _baseline("reference: JSON integers above 2^53 rejected", "reference", GATE, "json_strictness",
              _ref("big-int-rejected", "strict_json.py", "    parse_int=_number,\n",
                   "    parse_int=lambda t: _number(t) if abs(int(t)) <= 2**53 else _reject_constant(t),\n")),
    _baseline("reference: exact match on raw texts", "reference", GATE, "rule_difference",
              _ref("exact-raw", "write_gate.py", "        if normalize_valid(candidate.text) == normalized:\n",
                   "        if candidate.text == text:\n")),
    _baseline("core: lowercase character by character", "rust", NORM, "final_sigma",
              _core("core-lower-per-char", "core/src/normalize.rs", _LOWER,
                    "    let lowered: String = mapped.chars().flat_map(char::to_lowercase).collect();\n"), BOTH),
    _baseline("core: no second NFC", "rust", NORM, "normalization",
              _core("core-no-second-nfc", "core/src/normalize.rs", "    let nfc: String = lowered.nfc().collect();\n",
                    "    let nfc: String = lowered;\n"), BOTH),
    _baseline("core: U+2019 not in the quote map", "rust", NORM, "quote_dash_map",
              _core("core-no-u2019", "core/src/normalize.rs", "'\\u{2018}' | '\\u{2019}' | '\\u{201A}'",
                    "'\\u{2018}' | '\\u{201A}'"), BOTH),
    _baseline("core: step 7 strips ASCII punctuation", "rust", NORM, "edge_punctuation",
              _core("core-ascii-punctuation-edges", "core/src/normalize.rs", _TRIM,
                    "    text.trim_matches(|c: char| is_white_space(c) || c.is_ascii_punctuation())\n"), BOTH),
    _baseline("core: no zero-norm guard", "rust", GATE, "rule_difference",
              _core("core-no-zero-norm-guard", "core/src/write_gate.rs", "    if na == 0.0 || nb == 0.0 {\n",
                    "    if false {\n"), BOTH),
    _baseline("core: the escape \\/ rejected", "rust", CTX, "json_strictness",
              _core("core-solidus-rejected", "core/src/json.rs", _PARSE,
                    '    if text.contains("\\\\/") {\n'
                    '        return Err(Error::new(ErrorCode::InvalidJson, "escaped solidus".to_string()));\n'
                    "    }\n" + _PARSE), BOTH),
    _baseline("core: serde_json without float_roundtrip", "rust", GATE, "float_rounding",
              _core("core-no-float-roundtrip", "Cargo.toml", 'features = ["float_roundtrip", "raw_value"]',
                    'features = ["raw_value"]'), BOTH),
    _baseline("core: duplicate keys accepted below the top-level elements", "rust", CTX, "json_strictness",
              _core("core-nested-duplicates", "core/src/json.rs", "            if duplicate {\n",
                    "            if duplicate && self.0 <= 1 {\n"), BOTH),
    _baseline("core: U+000C taken as JSON whitespace at the edges", "rust", CTX, "json_strictness",
              _core("core-form-feed-whitespace", "core/src/json.rs", _PARSE,
                    "    let text = text.trim_matches('\\u{c}');\n" + _PARSE), BOTH),
    _baseline("core: a naive float reader", "rust", GATE, "float_rounding",
              _core("core-naive-float", "core/src/json.rs", _F64,
                    "        if v.is_finite() {\n"
                    '            let shown = format!("{v:e}");\n'
                    "            let (mantissa, exponent) = shown.split_once('e').unwrap();\n"
                    "            let v = mantissa.parse::<f64>().unwrap()\n"
                    "                * 10f64.powi(exponent.parse::<i32>().unwrap());\n"
                    "            Ok(Value::Number(v))\n"), BOTH),
    _baseline("PyO3 binding: True taken as threshold 1.0", "rust", GATE, "boundary_coercion",
              pyo3_param_mutation("pyo3-bool-threshold",
                                  "    Ok(match (param, optional(arg)) {\n"
                                  "        (\"threshold\", HostValue::Bool(b)) => {\n"
                                  "            HostValue::Float(if b { 1.0 } else { 0.0 })\n        }\n"
                                  "        (_, other) => other,\n    })\n"), ("pyo3",)),
    _baseline("WASM binding: the threshold rounded through binary32", "rust", GATE, "float_rounding",
              wasm_param_mutation("wasm-binary32-threshold",
                                  "    match host_value(value) {\n"
                                  "        HostValue::Float(v) if param == \"threshold\" => {\n"
                                  "            HostValue::Float(v as f32 as f64)\n        }\n"
                                  "        other => other,\n    }\n"), ("wasm",)),
    _baseline("WASM binding: force read as truthiness", "rust", GATE, "boundary_coercion",
              wasm_param_mutation("wasm-truthy-force",
                                  "    if param == \"force\" && !value.is_undefined() {\n"
                                  "        return HostValue::Bool(value.is_truthy());\n    }\n"
                                  "    host_value(value)\n"), ("wasm",)),
]
_CANDIDATES = "    candidates = parse_candidates(candidates_json)\n"
_THRESHOLD = "    valid_threshold = require_threshold(threshold)\n"
# Issue 35's shapes nobody had written down (JSON by grammar, a step without a role, a skew that explained too
# much, a rule that outranked the right one), one plant each, unnarrowed like the baseline.
SHAPE_PLANTS = [
    _baseline("reference: the depth scan ends a string at an escaped quote", "reference", CTX, "json_strictness",
              _ref("depth-scan-escaped-quote", "strict_json.py",
                   """_STRING_TOKEN = re.compile(r'"(?:[^"\\\\]|\\\\.)*"', re.DOTALL)""",
                   """_STRING_TOKEN = re.compile(r'"[^"]*"')""")),
    _baseline("reference: the join drops pieces blank to str.strip()", "reference", CTX, "whitespace_definition",
              _ref("join-drops-strip-blank", "dedup_context.py",
                   '    joined = " ".join(piece for piece in trimmed if piece)\n',
                   '    joined = " ".join(piece for piece in trimmed if piece.strip())\n')),
    replace(_baseline("reference: lone low surrogates accepted", "reference", NORM, "boundary_coercion",
                      _ref("low-surrogates-accepted", "unicode_data.py", '_SURROGATE = re.compile("[\\ud800-\\udfff]")',
                           '_SURROGATE = re.compile("[\\ud800-\\udbff]")')),
            also=("json_strictness",)),  # has_lone_surrogate is the strict JSON reader's check of decoded escapes too
    _baseline("reference: the threshold checked before candidates_json", "reference", GATE, "validation_order",
              _ref("threshold-before-candidates", "write_gate.py",
                   _CANDIDATES + _THRESHOLD, _THRESHOLD + _CANDIDATES)),
    _baseline("core: the duplicate-key set built one member early", "rust", CTX, "json_strictness",
              _core("core-duplicate-set-early", "core/src/json.rs",
                    "            let value = map.next_value_seed(inner)?;\n            members.push((key, value));\n"
                    "            if seen.is_none() && members.len() >= SCAN_KEYS {\n"
                    "                seen = Some(members.iter().map(|(k, _)| k.clone()).collect());\n"
                    "            }\n",
                    "            let value = map.next_value_seed(inner)?;\n"
                    "            if seen.is_none() && members.len() + 1 >= SCAN_KEYS {\n"
                    "                seen = Some(members.iter().map(|(k, _)| k.clone()).collect());\n"
                    "            }\n"
                    "            members.push((key, value));\n"), BOTH),
    _baseline("core: the fused collapse joins its own split (U+2028 not a break), its trace the step functions",
              "rust", CTX, "line_breaks",
              _core("core-fused-join-own-split", "core/src/dedup_context.rs",
                    "    let joined = trimmed(s)\n",
                    "    let joined = s\n"
                    "        .split(|c: char| is_line_break(c) && c != '\\u{2028}')\n"
                    "        .map(|piece| piece.trim_matches(is_white_space))\n"), BOTH),
    _baseline("PyO3 binding: a fractional cap truncated", "rust", CTX, "boundary_coercion",
              pyo3_param_mutation("pyo3-cap-truncated",
                                  "    Ok(match (param, optional(arg)) {\n"
                                  "        (\"cap\", HostValue::Float(v)) if v.is_finite() && v.fract() != 0.0 => {\n"
                                  "            HostValue::Int(Some(v as i128))\n        }\n"
                                  "        (_, other) => other,\n    })\n"), ("pyo3",)),
]
PYODIDE_PLANTED = "pyodide-planted"  # the Pyodide leg declared from the scratch copy (PARITY_IMPLEMENTATIONS)

# One plant per rule of the contract (at least): (the rule, where it is planted, the op and the cause the
# search must report, once). Reference plants are source edits in a scratch copy (no build); the Rust
# plant is one build; the WASM-glue plant edits the generated JavaScript.
PLANTS = [
    # normalize_fact_text, steps 1-7
    Plant("step 1: a lone surrogate accepted", "reference", ALL, NORM, "boundary_coercion",
          _ref("surrogate-accepted", "normalize.py", "    if has_lone_surrogate(text):\n        raise",
               "    if False:\n        raise")),
    Plant("steps 2 and 5: no NFC", "reference", ALL, NORM, "normalization",
          _ref("no-nfc", "normalize.py", "    text = nfc(text)  # step 2\n", "",
               ("    text = nfc(text)  # step 5\n", ""))),
    Plant("step 3: U+2019 not mapped to an apostrophe", "reference", ALL, NORM, "quote_dash_map",
          _ref("quote-map-misses-u2019", "unicode_data.py", '"\'": "\\u2018 \\u2019 ', '"\'": "\\u2018 ')),
    Plant("step 4: capital sigma never final", "reference", ALL, NORM, "final_sigma",
          _ref("sigma-never-final", "normalize.py", "    text = text.lower()  # step 4",
               "    text = text.lower().replace('\\u03c2', '\\u03c3')  # step 4")),
    Plant("step 4: U+0130 lowercased to a plain i (a locale's mapping)", "reference", ALL, NORM, "case_mapping",
          _ref("dotless-i-lowercase", "normalize.py", "    text = text.lower()  # step 4",
               "    text = text.replace('\\u0130', 'i').lower()  # step 4")),
    Plant("step 6: U+00A0 not White_Space", "reference", ALL, NORM, "whitespace_definition",
          _ref("nbsp-not-white-space", "unicode_data.py", '+ ["\\u0020", "\\u0085", "\\u00a0", "\\u1680"]',
               '+ ["\\u0020", "\\u0085", "\\u1680"]')),
    Plant("step 7: U+2026 not edge punctuation", "reference", ALL, NORM, "edge_punctuation",
          _ref("ellipsis-kept", "unicode_data.py", '+ ["\\u2026", ', '+ [')),
    Plant("step 7: str.strip() as the trim", "reference", ALL, NORM, "whitespace_definition",
          _mutation("str-strip-as-trim (normalize)", REFERENCE_MUTATIONS)),
    # build_dedup_context
    Plant("dedup: str.strip() as the trim", "reference", ALL, CTX, "whitespace_definition",
          _mutation("str-strip-as-trim (dedup context)", REFERENCE_MUTATIONS)),
    Plant("dedup: no split on U+2028", "reference", ALL, CTX, "line_breaks",
          _ref("no-split-u2028", "unicode_data.py", '"\\r", "\\u0085", "\\u2028", "\\u2029"])',
               '"\\r", "\\u0085", "\\u2029"])')),
    Plant("dedup: ids with brackets kept", "reference", ALL, CTX, "rule_difference",
          _ref("brackets-kept", "dedup_context.py", '        if "[" in item_id or "]" in item_id:\n',
                                  "        if False:\n")),
    Plant("dedup: the last duplicate id wins", "reference", ALL, CTX, "rule_difference",
          _ref("last-duplicate-wins", "dedup_context.py", "        if item_id in seen:\n",
                                  "        if False:\n")),
    Plant("dedup: cap off by one", "reference", ALL, CTX, "rule_difference",
          _ref("cap-off-by-one", "dedup_context.py", "        if len(lines) >= cap:",
               "        if len(lines) > cap:")),
    Plant("dedup: topical before pinned", "reference", ALL, CTX, "rule_difference",
          _ref("topical-first", "dedup_context.py", "[(pinned, True), (topical, False), (recent, False)]",
               "[(topical, False), (pinned, True), (recent, False)]")),
    Plant("dedup: 30.5 accepted as cap 30", "reference", ALL, CTX, "boundary_coercion",
          _ref("fractional-cap", "host.py", "        if not math.isfinite(cap) or cap != math.floor(cap):",
               "        if not math.isfinite(cap):")),
    Plant("dedup: sections validated recent first", "reference", ALL, CTX, "validation_order",
          _ref("recent-first", "dedup_context.py",
               '    topical = parse_section(topical_json, "topical_json")\n',
               ('    parse_section(recent_json, "recent_json")\n'
                '    topical = parse_section(topical_json, "topical_json")\n'))),
    # decide_write
    Plant("gate: > for >= at the threshold", "reference", ALL, GATE, "float_rounding",
          _mutation("greater-than-for-at-least", REFERENCE_MUTATIONS)),
    Plant("gate: compensated sums (math.fsum)", "reference", ALL, GATE, "float_rounding",
          _mutation("math-fsum-similarity", REFERENCE_MUTATIONS)),
    Plant("gate: pinned candidates kept in auto", "reference", ALL, GATE, "rule_difference",
          _mutation("pinned-kept-in-auto", REFERENCE_MUTATIONS)),
    Plant("gate: ties go to the latest candidate", "reference", ALL, GATE, "rule_difference",
          _ref("latest-tie", "write_gate.py", "if best is None or sim > best_sim:",
               "if best is None or sim >= best_sim:")),
    Plant("gate: the exact match is the last one", "reference", ALL, GATE, "rule_difference",
          _ref("last-exact", "write_gate.py",
               "    for index, candidate in enumerate(candidates):\n        if normalize_valid",
               "    for index, candidate in reversed(list(enumerate(candidates))):\n        if normalize_valid")),
    Plant("gate: empty_text before the other arguments", "reference", ALL, GATE, "validation_order",
          _ref("empty-text-first", "write_gate.py", "    valid_text = require_text(text, \"gate.text\")\n",
               "    valid_text = require_text(text, \"gate.text\")\n    if normalize_valid(valid_text) == '':\n"
               "        raise ContractError('empty_text', 'text is empty after normalization')\n")),
    Plant("gate: a candidate's embedding checked before its id", "reference", ALL, GATE, "validation_order",
          _ref("embedding-first", "write_gate.py", '        cid = item.get("id")\n',
               '        _embedding(item.get("embedding"), f"{where}.embedding")\n        cid = item.get("id")\n')),
    Plant("gate: candidate id may be empty", "reference", ALL, GATE, "error_versus_result",
          _ref("empty-id", "write_gate.py", 'if not isinstance(cid, str) or cid == "":',
               "if not isinstance(cid, str):")),
    Plant("gate: mode compared case-insensitively", "reference", ALL, GATE, "error_versus_result",
          _ref("mode-case", "host.py", "    if not isinstance(mode, str) or mode not in MODES:",
               ("    if isinstance(mode, str):\n        mode = mode.lower()\n"
                "    if not isinstance(mode, str) or mode not in MODES:"))),
    Plant("gate: a boolean threshold accepted", "reference", ALL, GATE, "boundary_coercion",
          _ref("bool-threshold", "host.py",
               "    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):",
               "    if not isinstance(threshold, (int, float)):")),
    Plant("gate: 0 and 1 accepted as force", "reference", ALL, GATE, "boundary_coercion",
          _ref("int-force", "host.py", "    if not isinstance(force, bool):",
               ("    if force in (0, 1):\n        return bool(force)\n"
                "    if not isinstance(force, bool):"))),
    Plant("gate: binary32 rounding of embeddings skipped", "reference", ALL, GATE, "float_rounding",
          _ref("no-binary32", "write_gate.py", "def to_binary32(value: float) -> float:\n",
               "def to_binary32(value: float) -> float:\n    return value\n")),
    # strict JSON
    Plant("JSON: duplicate keys accepted", "reference", ALL, CTX, "json_strictness",
          _ref("dup-keys", "strict_json.py", "        if key in result:\n", "        if False:\n")),
    Plant("JSON: NaN accepted", "reference", ALL, CTX, "json_strictness",
          _ref("nan", "strict_json.py", "    parse_constant=_reject_constant,\n", "")),
    Plant("JSON: 101 levels accepted", "reference", ALL, CTX, "json_strictness",
          _ref("depth-101", "strict_json.py", "MAX_DEPTH = 100", "MAX_DEPTH = 101")),
    Plant("JSON: escaped lone surrogates accepted", "reference", ALL, CTX, "json_strictness",
          _ref("escaped-surrogate", "strict_json.py", '    if "\\\\u" in text and _find_lone_surrogate(value):',
               "    if False:")),
    Plant("JSON: a leading BOM accepted", "reference", ALL, CTX, "json_strictness",
          _ref("bom", "strict_json.py", "        value = _DECODER.decode(text)",
               "        value = _DECODER.decode(text.lstrip('\\ufeff'))")),
    # host boundaries of the bindings, the Rust core
    Plant("JS cap wrapped with >>> 0", "wasm-glue", EVERY, CTX, "boundary_coercion"),
    Plant("binary32 accumulation in the core", "rust", EVERY, GATE, "float_rounding",
          _mutation("binary32-accumulation", RUST_MUTATIONS)),
    Plant("the core's JSON parser takes U+00A0 around the document as whitespace", "rust", EVERY, CTX,
          "json_strictness",
          Mutation("json-nbsp-whitespace", "rust_core/core/src/json.rs",
                   "    let mut reader = serde_json::Deserializer::from_str(text);\n",
                   "    let text = text.trim_matches('\\u{a0}');\n"
                   "    let mut reader = serde_json::Deserializer::from_str(text);\n", ())),
    Plant("reference NFC from a different Unicode version (CPython's 14.0)", "reference", ALL, NORM,
          "unicode_version_skew", NFC_FROM_PYTHON, fixtures=False),
    # The Pyodide testee hands Python the request line itself. This plant rebuilds each code-point
    # string as a JavaScript string first, as a testee that decoded host values in JavaScript would:
    # a high lone half followed by a low one becomes one valid pair, so "\ud800\udc00" reaches the
    # reference as U+10000 (the bug the PyO3 binding once had, through another boundary).
    Plant("Pyodide testee: arguments through JavaScript strings", "pyodide-host",
          "reference,pyo3,wasm," + PYODIDE_PLANTED, NORM, "boundary_coercion", Mutation(
              "code points through JavaScript strings", "pyodide_host/testee.js",
              "      text = answer(line);\n",
              ("      text = answer(JSON.stringify(JSON.parse(line, (key, value) => "
               "(value && Array.isArray(value.$codepoints)\n"
               "        ? value.$codepoints.map((p) => String.fromCodePoint(p)).join('') : value))));\n"), ())),
]

# Issue 53's inputs no generator made (numbers at their widths' edges, strings where they hide), one plant each,
# unnarrowed like the baseline.
_U64 = "    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {\n"
EDGE_PLANTS = [
    _baseline("core: JSON integers from 2^63 to 2^64 - 1 read through the signed path", "rust", GATE,
              "float_rounding",
              _core("core-u64-through-i64", "core/src/json.rs",
                    _U64 + "        Ok(Value::Number(v as f64))\n",
                    _U64 + "        Ok(Value::Number(v as i64 as f64))\n")),
    _baseline("core: a number between f32::MAX and the midpoint to 2^128 refused", "rust", GATE, "float_rounding",
              _core("core-f32-max-strict", "core/src/write_gate.rs", "                if !f.is_finite() {\n",
                    "                if !f.is_finite() || x.abs() > f64::from(f32::MAX) {\n")),
    _baseline("reference: dedup ids compared without case", "reference", CTX, "rule_difference",
              _ref("ids-without-case", "dedup_context.py", "        if item_id in seen:\n",
                   "        if item_id.casefold() in {s.casefold() for s in seen}:\n")),
    _baseline("reference: object keys not walked for escaped lone surrogates", "reference", CTX, "json_strictness",
              _ref("keys-not-walked", "strict_json.py", "            stack.extend(item.keys())\n", "")),
]
# Issue 53's caching host: the Pyodide testee memoizes answers by the arguments' equality (and hash), as a host's
# cache keyed by == would: True, 1 and 1.0 are one key, so force=1 after force=True gets the cached valid answer,
# alone as in its batch. The reproduction gate's fresh instance refuses it as the others do: a history_dependent
# finding, never a boundary_coercion class. Fixture cases are not the place for it (check asks a failing case again
# on a fresh process: a finding there too), nor required.
_BOOT_IMPL = ('IMPL = InProcess("pyodide", lambda op: getattr(reference, op.name), DESCRIPTION, '
              "tracer=reference.trace)\n")
_MEMOIZED = (
    "def _memoized(function):\n"
    "    seen = {}\n\n"
    "    def call(**args):\n"
    "        key = tuple(sorted(args.items()))\n"
    "        try:\n"
    "            if key not in seen:\n"
    "                seen[key] = function(**args)\n"
    "        except TypeError:\n"
    "            return function(**args)\n"
    "        return seen[key]\n\n"
    "    return call\n\n\n"
    'IMPL = InProcess("pyodide", lambda op: _memoized(getattr(reference, op.name)), DESCRIPTION,\n'
    "                tracer=reference.trace)\n")
HISTORY_PLANTS = [
    Plant("Pyodide testee: answers memoized by == on the arguments", "pyodide-host",
          "reference,pyo3,wasm," + PYODIDE_PLANTED, GATE, "boundary_coercion",
          Mutation("pyodide-memoized-by-equality", "pyodide_host/boot.py", _BOOT_IMPL, _MEMOIZED, ()),
          fixtures=False, finding="history_dependent"),
]
PLANTS += BASELINE_PLANTS + SHAPE_PLANTS + EDGE_PLANTS + HISTORY_PLANTS

CAP_WRAP = "function buildDedupContext(topicalJson, pinnedJson, recentJson, cap) {\n"


def _prepare(plant: Plant, scratch: Path) -> tuple[Path, dict[str, str]]:
    """(working directory, environment) for a fuzz run with the plant in place."""
    env = dict(os.environ)
    tree = scratch / "tree"
    tree.mkdir()
    for name in ("harness", "generators", "fixtures", "expected", "families", "wasm_host"):
        os.symlink(ROOT / name, tree / name)
    if plant.kind == "reference":
        shutil.copytree(ROOT / "reference", tree / "reference")
        assert plant.mutation is not None
        apply(plant.mutation, tree)
    else:
        os.symlink(ROOT / "reference", tree / "reference")
    path = [str(tree)]
    if plant.kind == "rust":
        assert plant.mutation is not None
        copy_rust_core(tree / "rust_core")
        apply(plant.mutation, tree)
        if "pyo3" in plant.builds:
            wheels = scratch / "wheels"
            build_env = dict(env, CARGO_TARGET_DIR=str(ROOT / "rust_core" / "target" / "mutants"))
            _built(plant, "maturin build", [maturin(), "build", "--release", "--manifest-path",
                                            str(tree / "rust_core" / "python" / "Cargo.toml"),
                                            "--out", str(wheels), "--interpreter", sys.executable], build_env)
            site = scratch / "site"
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                            *map(str, wheels.glob("*.whl"))], check=True, capture_output=True)
            path.insert(0, str(site))
        if "wasm" in plant.builds:
            pkg = scratch / "pkg"
            _built(plant, "wasm build", [sys.executable, str(ROOT / "wasm_host" / "build.py"), "--crate",
                                         str(tree / "rust_core"), "--target-dir",
                                         str(ROOT / "rust_core" / "target" / "wasm-mutants"), "--out", str(pkg)], env)
            env["MEMGATE_WASM_PKG"] = str(pkg)
    if plant.kind == "wasm-glue":
        pkg = scratch / "pkg"
        shutil.copytree(ROOT / "wasm_host" / "pkg", pkg)
        glue = pkg / "memgate_wasm.js"
        text = glue.read_text()
        if text.count(CAP_WRAP) != 1:
            raise AssertionError("the wasm-bindgen glue changed; update CAP_WRAP in harness/tools/plants.py")
        glue.write_text(text.replace(CAP_WRAP, CAP_WRAP + "    if (typeof cap === 'number') cap = cap >>> 0;\n"))
        env["MEMGATE_WASM_PKG"] = str(pkg)
    if plant.kind == "pyodide-host":
        # The planted testee runs from the scratch tree (load.js reads the project's files next to it);
        # it joins as one more implementation through a declaration of its own, the plug-in path.
        host = tree / "pyodide_host"
        shutil.copytree(ROOT / "pyodide_host", host, ignore=shutil.ignore_patterns("node_modules"))
        os.symlink(ROOT / "pyodide_host" / "node_modules", host / "node_modules")
        os.symlink(ROOT / "pyproject.toml", tree / "pyproject.toml")
        assert plant.mutation is not None
        apply(plant.mutation, tree)
        declarations = scratch / "declarations"
        declarations.mkdir()
        declared = json.loads((ROOT / "implementations" / "pyodide.json").read_text(encoding="utf-8"))
        # Its version skews stay expected (the same list, under the planted leg's name): the plant is
        # the one new divergence the fuzzer must report.
        expected = json.loads((ROOT / "expected" / "pyodide.json").read_text(encoding="utf-8"))
        expected["implementation"] = PYODIDE_PLANTED
        lists = declarations / "lists"  # inside the declaration's folder (a declared path may not leave it)
        lists.mkdir()
        (lists / f"{PYODIDE_PLANTED}.json").write_text(json.dumps(expected), encoding="utf-8")
        declared.update(name=PYODIDE_PLANTED, expected=f"lists/{PYODIDE_PLANTED}.json", build=[],
                        start={"command": ["node", str(host / "testee.js")]})
        (declarations / f"{PYODIDE_PLANTED}.json").write_text(json.dumps(declared), encoding="utf-8")
        env["PARITY_IMPLEMENTATIONS"] = str(declarations)
    env["PYTHONPATH"] = os.pathsep.join(path + [p for p in sys.path[1:] if p])
    return tree, env


def _built(plant: Plant, what: str, command: list[str], env: dict[str, str]) -> None:
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"{plant.name}: the {what} of the planted tree failed:\n{proc.stderr[-3000:]}")


def _checked_impls(plant: Plant) -> list[str]:
    """The implementations the fixture suite runs on to see the plant: each one that carries it."""
    if plant.kind == "rust":
        return list(plant.builds)
    return [{"reference": "reference", "wasm-glue": "wasm", "pyodide-host": PYODIDE_PLANTED}[plant.kind]]


def run_plant(plant: Plant, seconds: float, fuzzing: bool = True) -> tuple[bool, dict, str, list[str]]:
    """(found as one report with its cause, the fuzz report, the fuzz output, the fixture cases that fail
    with the plant in place)."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    slug = "".join(ch if ch.isalnum() else "-" for ch in plant.name.lower()).strip("-")[:60]
    report_path = REPORTS / f"{slug}.json"
    report: dict = {"divergences": [], "examples": 0}
    output = ""
    with tempfile.TemporaryDirectory(prefix="plant-") as scratch:
        tree, env = _prepare(plant, Path(scratch))
        if fuzzing:
            # A fixed seed and one worker: the same inputs in the same order on every run, so a plant's
            # result is reproducible (CI and a maintainer see the same reports).
            narrowing = ["--ops", plant.op] if plant.narrow else []
            report_path.unlink(missing_ok=True)  # never an earlier run's report read as this one's
            proc = subprocess.run([sys.executable, "-m", "harness", "fuzz", "--seconds", str(seconds),
                                   "--stop-after-new", "5", "--seed", str(zlib.crc32(plant.name.encode())),
                                   "--workers", "1", *narrowing, "--impls", plant.impls,
                                   "--report", str(report_path)], cwd=tree, env=env, capture_output=True, text=True,
                                  timeout=seconds * 4 + 300, check=False)
            output = proc.stdout + proc.stderr
            if not report_path.is_file():
                raise AssertionError(f"{plant.name}: the fuzz run wrote no report (exit status {proc.returncode}):\n"
                                     f"{output[-3000:]}")
            report = json.loads(report_path.read_text())
        failing = []
        for name in _checked_impls(plant):
            failing += [f"{name}:{case}" for case in check_failing(name, tree, env, 900)[0]]
    new = [record for record in report_classes(report) if record.new]
    if plant.finding is not None:  # a finding of its kind about the planted implementation, and no class
        return bool(_findings_of(plant, report)) and not new, report, output, failing
    if not plant.cause_checked:  # a measured baseline: found within the budget, whatever the causes
        return (any(d.extent.found_after is not None and d.extent.found_after <= seconds for d in new),
                report, output, failing)
    # One bug, one report per op it shows in, with the plant's cause (any other cause is a wrong explanation),
    # the first within the budget. Narrowed, that op is the plant's; unnarrowed, the bug may show first
    # through another op (the strict-JSON parser every op shares), and the run stops soon after it.
    ops = [(_one_per(report, d), d.cause) for d in new]
    first = min((d.extent.found_after for d in new if d.extent.found_after is not None), default=None)
    found = bool(new) and all(d.cause in (plant.cause, *plant.also) for d in new) and len(set(ops)) == len(ops) and \
        all(d.cause == plant.cause for d in new if d.op == plant.op) and \
        (plant.op in {d.op for d in new} or not plant.narrow) and first is not None and first <= seconds
    return found, report, output, failing


def _findings_of(plant: Plant, report: dict) -> list[dict]:
    """The report's findings of the plant's kind about an implementation that carries it."""
    carriers = set(_checked_impls(plant))
    return [item for item in report.get("findings", [])
            if item.get("kind") == plant.finding and item.get("impl") in carriers]


def _one_per(report: dict, divergence: ClassRecord) -> tuple:
    """What "one report per op" counts: the op; for a version skew, the op and the Unicode versions its
    share reads the skewed steps with. A skew is one per version pair (explain.name_shares): an oracle
    planted with NFC of 14.0 is Rust's skew against 18.0 and Pyodide's against 16.0, two classes. For a rule that
    is a set of characters, the op and the side whose rule acts: a set replaced by another differs both ways, and
    each way is its own class (a character in the rule's set on one side only: explain's directions)."""
    if divergence.detail in (ORACLE_ONLY, DIVERGENT_ONLY):
        return (divergence.op, divergence.detail)
    if divergence.cause != SKEW:
        return (divergence.op,)
    described = report.get("run", {}).get("implementations", {})
    parts = steps_of(divergence.detail)
    versions = {tuple(((described.get(impl) or {}).get("unicode") or {}).get(part) for part in parts)
                for impl in divergence.divergent}
    return divergence.op, tuple(sorted(versions, key=str))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.plants")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--only", default=None, help="plants whose name contains this text")
    parser.add_argument("--fixtures-only", action="store_true", help="only check that the fixture cases catch each")
    parser.add_argument("--baseline", action="store_true", help="only the baseline plants (BASELINE_PLANTS)")
    parser.add_argument("--rotate", default=None, metavar="K/N",
                        help="run every N-th plant starting with the K-th (CI: a share that rotates with the commit)")
    args = parser.parse_args(argv)
    pool = BASELINE_PLANTS if args.baseline else PLANTS
    chosen = [plant for plant in pool if not args.only or args.only in plant.name]
    if args.rotate:
        if not re.fullmatch(r"\d+/[1-9]\d*", args.rotate):
            parser.error(f"--rotate {args.rotate!r}: expected K/N, e.g. 0/3")
        k, n = (int(part) for part in args.rotate.split("/"))
        chosen = [plant for index, plant in enumerate(chosen) if index % n == k % n]
    status = 0
    agreement = [0, 0]  # reports whose counterfactual cause agrees with the traces', of those with both
    for plant in chosen:
        found, report, output, failing = run_plant(plant, args.seconds, fuzzing=not args.fixtures_only)
        if not plant.fixtures:
            why = "a finding about the testee" if plant.finding is not None else "a version skew"
            caught = f"fixtures: not required ({why}; {len(failing)} case(s) fail)"
        else:
            caught = f"fixtures: caught by {len(failing)} case(s)" if failing else "fixtures: MISSED (no case fails)"
        missed = plant.fixtures and not failing
        if args.fixtures_only:
            print(f"== {plant.name}: {caught}")
            status |= 1 if missed else 0
            continue
        new = [record for record in report_classes(report) if record.new]
        if plant.finding is not None:
            counts = ", ".join(f"{item['impl']} x{item['count']}" for item in _findings_of(plant, report))
            verdict = (f"FOUND AS A FINDING ({plant.finding}: {counts}), NO CLASS" if found else
                       f"FOUND, BUT AS {len(new)} CLASS(ES)" if new else f"NOT FOUND (no {plant.finding} finding)")
            print(f"== {plant.name}: {verdict} in {report['examples']:,} examples; {caught}")
        elif not plant.cause_checked:
            right = sum(1 for d in new if d.cause == plant.cause)
            ops = [d.op for d in new]
            once = bool(new) and right == len(new) and len(set(ops)) == len(ops)
            verdict = (f"FOUND (baseline: {len(new)} report(s), {right} with the right cause, "
                       f"{'once per op' if once else 'not once per op with the right cause'})" if found
                       else "NOT FOUND")
        else:
            verdict = "FOUND, ONE REPORT" if found else ("NOT FOUND" if not new else "FOUND, BUT NOT AS ONE REPORT")
        if plant.finding is None:
            print(f"== {plant.name}: {verdict} ({plant.op}, {plant.cause}) in {report['examples']:,} examples; "
                  f"{caught}")
        for d in new:
            fallback = d.witness.fallback
            beside = "" if fallback is None else (
                f"; counterfactuals {'agree' if fallback[0] == d.cause else 'say ' + fallback[0]}")
            print(f"   new: {d.op} {d.cause} ({d.detail}) at {d.step or 'no trace'} "
                  f"[{d.witness.rule or 'counterfactuals'}{beside}] after {d.extent.found_after}s, "
                  f"args {json.dumps(d.witness.args, ensure_ascii=True)[:200]}")
            agreement[0] += fallback is not None and fallback[0] == d.cause
            agreement[1] += fallback is not None
        if not found or missed:
            status = 1
        if not found:
            print(output[-3000:])
    print(f"{len(chosen)} plant(s) run" + (f" (share {args.rotate} of {len(PLANTS)})" if args.rotate else ""))
    if agreement[1]:
        print(f"the counterfactual classifier agrees with the traces' cause on {agreement[0]} of {agreement[1]} "
              "report(s) named from traces")
    return status


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
