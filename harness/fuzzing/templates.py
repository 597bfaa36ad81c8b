"""Sweep templates: where one code point is put in each comparable op's arguments.

The exhaustive sweep (harness/fuzzing/sweep.py) puts every code point U+0000..U+10FFFF (every
Unicode scalar value and every lone surrogate) into every template of the ops it sweeps, and sends
each instance to every implementation. Each template isolates a rule of the contract where a single
code point can matter; docs/fuzzing.md lists them with the rule each one exercises.

``{c}`` below is the swept code point. Templates are data: a name, the op, the rule, and a function
from the swept string to the op's arguments. A template's name is stable: checkpoints, filters and
reports use it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.differential.counterfactual.characters import CHARACTER_RULES, SWEEP_TEMPLATES
from harness.differential.explain import CAUSES
from harness.model.names import did_you_mean
from harness.model.registry import OPS

CODE_POINTS = 0x110000  # U+0000..U+10FFFF, surrogates included (as lone halves of host strings)
SURROGATE_PAIRS = 1024 * 1024  # every high surrogate followed by every low one


@dataclass(frozen=True)
class Template:
    name: str
    op: str
    rule: str  # the contract rule it exercises (shown in reports and docs)
    build: Callable[[str], dict[str, Any]]
    size: int = CODE_POINTS  # how many values it takes (code points, or surrogate pairs)

    def value(self, index: int) -> str:
        """The swept string for ``index``: the code point, or the ``index``-th high-low surrogate pair."""
        if self.size == SURROGATE_PAIRS:
            return chr(0xD800 + (index >> 10)) + chr(0xDC00 + (index & 0x3FF))
        return chr(index)

    def args(self, index: int) -> dict[str, Any]:
        return self.build(self.value(index))


def _json(value: Any) -> str:
    """JSON text as a caller writes it: raw non-ASCII, escapes only where JSON requires them."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _text(template: str) -> Callable[[str], dict[str, Any]]:
    return lambda c: {"text": template.replace("{c}", c)}


_NORMALIZE = "normalize_fact_text"
_NFC = "unicode_nfc"
_GATE = "decide_write"
_DEDUP = "build_dedup_context"

TEMPLATES: tuple[Template, ...] = (
    # normalize_fact_text: every step of the pipeline, one code point at a time.
    Template("alone", _NORMALIZE, "steps 1-7 on the code point alone", _text("{c}")),
    Template("between-letters", _NORMALIZE, "steps 2-6 inside a word (kept, mapped, lowercased, collapsed)",
             _text("a{c}b")),
    Template("leading-edge", _NORMALIZE, "step 7: stripped or kept at the start", _text("{c}ab")),
    Template("trailing-edge", _NORMALIZE, "step 7: stripped or kept at the end", _text("ab{c}")),
    Template("after-leading-space", _NORMALIZE, "steps 6-7: next to White_Space at the start", _text(" {c}ab")),
    Template("before-trailing-space", _NORMALIZE, "steps 6-7: next to White_Space at the end", _text("ab{c} ")),
    Template("after-leading-punctuation", _NORMALIZE, "step 7: next to edge punctuation at the start",
             _text(".{c}ab")),
    Template("before-trailing-punctuation", _NORMALIZE, "step 7: next to edge punctuation at the end",
             _text("ab{c}.")),
    Template("after-capital-sigma", _NORMALIZE, "step 4: the code point decides whether a word-final \u03a3 is final",
             _text("\u0391\u03a3{c}")),
    Template("before-capital-sigma", _NORMALIZE, "step 4: the code point between a cased letter and \u03a3",
             _text("\u0391{c}\u03a3")),
    Template("doubled", _NORMALIZE, "steps 2-7 on a run of two (collapse, composition, case)", _text("{c}{c}")),
    Template("surrogate-pair", _NORMALIZE,
             "step 1: a high lone surrogate followed by a low one (two lone halves in a code-point host string)",
             _text("{c}"), size=SURROGATE_PAIRS),
    # unicode_nfc: composition and canonical ordering around the code point.
    Template("nfc-alone", _NFC, "NFC of the code point alone", _text("{c}")),
    Template("nfc-before-acute", _NFC, "NFC composition with a following U+0301", _text("{c}\u0301")),
    Template("nfc-after-marks", _NFC, "canonical ordering after U+0323 U+0301", _text("a\u0301\u0323{c}")),
    # decide_write: the exact-match rule, the new text against a candidate's text.
    Template("exact-match-plain", _GATE, "rule 1: 'x{c}' against a candidate 'x' (does the code point normalize away?)",
             lambda c: {"text": "x" + c, "embedding_json": "null",
                        "candidates_json": _json([{"id": "m", "text": "x"}])}),
    Template("exact-match-same", _GATE, "rule 1 and empty_text: '{c}' against a candidate '{c}'",
             lambda c: {"text": c, "embedding_json": "null", "candidates_json": _json([{"id": "m", "text": c}])}),
    # build_dedup_context: line collapse and trim of ids and texts, and the strict JSON parser.
    Template("dedup-id", _DEDUP, "id collapse and trim, empty and bracket ids skipped",
             lambda c: {"topical_json": _json([{"id": c, "text": "t"}]), "pinned_json": "null",
                        "recent_json": "null"}),
    Template("dedup-text-line-edges", _DEDUP, "text split on line breaks, each piece trimmed at both edges",
             lambda c: {"topical_json": _json([{"id": "a", "text": "x" + c + "\ny" + c + "z"}]), "pinned_json": "null",
                        "recent_json": "null"}),
    Template("json-raw-in-string", _DEDUP, "JSON: the code point raw inside a string (control characters must be "
             "escaped, a lone surrogate is invalid)",
             lambda c: {"topical_json": '[{"id":"a","text":"' + c + '"}]', "pinned_json": "null",
                        "recent_json": "null"}),
    Template("json-between-tokens", _DEDUP, "JSON: the code point between tokens (only the four JSON whitespace "
             "characters are allowed)",
             lambda c: {"topical_json": "[" + c + "]", "pinned_json": "null", "recent_json": "null"}),
    Template("json-escape", _DEDUP, "JSON: the code point as a \\u escape (escaped lone surrogates are invalid)",
             lambda c: {"topical_json": '[{"id":"a","text":"' + _escape(c) + '"}]', "pinned_json": "null",
                        "recent_json": "null"}),
)


def _escape(c: str) -> str:
    """``c`` as JSON \\u escapes: one for a BMP code point or a surrogate, a pair above U+FFFF."""
    cp = ord(c)
    if cp > 0xFFFF:
        cp -= 0x10000
        return f"\\u{0xD800 | (cp >> 10):04x}\\u{0xDC00 | (cp & 0x3FF):04x}"
    return f"\\u{cp:04x}"


BY_NAME = {template.name: template for template in TEMPLATES}
assert len(BY_NAME) == len(TEMPLATES), "template names must be unique"
assert all(template.op in OPS and OPS[template.op].differential for template in TEMPLATES)


def select(ops: list[str] | None = None, names: list[str] | None = None) -> list[Template]:
    """The templates of ``ops`` (default: all) named in ``names`` (default: all); ValueError naming an
    unknown op or template."""
    for op in ops or []:
        if op not in OPS:
            raise ValueError(f"unknown op {op!r}{did_you_mean(op, OPS)}; ops: {', '.join(OPS)}")
        if not any(t.op == op for t in TEMPLATES):
            raise ValueError(f"op {op!r} has no sweep templates; swept ops: "
                             f"{', '.join(dict.fromkeys(t.op for t in TEMPLATES))}")
    for name in names or []:
        if name not in BY_NAME:
            raise ValueError(f"unknown template {name!r}{did_you_mean(name, BY_NAME)}; templates: {', '.join(BY_NAME)}")
    chosen = [t for t in TEMPLATES if (not ops or t.op in ops) and (not names or t.name in names)]
    if not chosen:
        raise ValueError("the filters select no template")
    return chosen


def missing_templates(templates: tuple[Template, ...] = TEMPLATES) -> list[str]:
    """One line per sweep template a cause needs (SWEEP_TEMPLATES in harness/differential/counterfactual/
    characters.py) that `templates` lacks, and per character rule with no entry there."""
    have = {template.name for template in templates}
    problems = [f"cause {cause} needs sweep template {name!r}, which the sweep lacks"
                for cause, names in SWEEP_TEMPLATES.items() for name in names if name not in have]
    problems += [f"character rule {rule} names no sweep template (SWEEP_TEMPLATES)"
                 for rule in CHARACTER_RULES if rule not in SWEEP_TEMPLATES]
    problems += [f"SWEEP_TEMPLATES names {cause!r}, which is not a cause" for cause in SWEEP_TEMPLATES
                 if cause not in CAUSES]
    return problems
