"""Sweep templates: where one code point is put in each comparable op's arguments.

The exhaustive sweep (harness/fuzzing/sweep.py) puts every code point U+0000..U+10FFFF (every
Unicode scalar value and every lone surrogate) into every template of the ops it sweeps, and sends
each instance to every implementation. Each template isolates a rule of the contract where a single
code point can matter; docs/fuzzing.md lists them with the rule each one exercises.

Templates are data, in each op family's file (families/*.json, "templates"): a name, the op, the rule,
the op's arguments with the swept value's placeholders (``{c}`` as it is, ``{c:json}`` inside a JSON
string, ``{c:u}`` as ``\\u`` escapes) and the causes it serves. A template's name is stable: checkpoints,
filters and reports use it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.differential.counterfactual.characters import CHARACTER_RULES
from harness.differential.explain import CAUSES
from harness.model.names import did_you_mean
from harness.model.registry import FAMILIES, OPS

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


def _json_inside(c: str) -> str:
    """``c`` as the inside of a JSON string literal, as a caller writes it: raw, escaped only where JSON
    requires it (a quote, a backslash, a control character)."""
    return json.dumps(c, ensure_ascii=False)[1:-1]


def _escape(c: str) -> str:
    """``c`` as JSON \\u escapes: one for a BMP code point or a surrogate, a pair above U+FFFF."""
    cp = ord(c)
    if cp > 0xFFFF:
        cp -= 0x10000
        return f"\\u{0xD800 | (cp >> 10):04x}\\u{0xDC00 | (cp & 0x3FF):04x}"
    return f"\\u{cp:04x}"


# A template's placeholders (harness/model/families.py, PLACEHOLDERS) -> how the swept value is written there.
_FORMS: dict[str, Callable[[str], str]] = {"{c}": lambda c: c, "{c:json}": _json_inside, "{c:u}": _escape}


def _builder(args: dict[str, Any]) -> Callable[[str], dict[str, Any]]:
    """The function from the swept string to an op's arguments, for a family file's template ``args``."""
    def build(c: str) -> dict[str, Any]:
        out = {}
        for name, value in args.items():
            if isinstance(value, str):
                for placeholder, form in _FORMS.items():
                    if placeholder in value:
                        value = value.replace(placeholder, form(c))
            out[name] = value
        return out
    return build


def _templates() -> tuple[tuple[Template, ...], dict[str, tuple[str, ...]]]:
    """Every family's sweep templates, in family order; and each cause -> the templates that serve it."""
    out, causes = [], {}
    for family in FAMILIES:
        for data in family.templates:
            size = SURROGATE_PAIRS if data.get("values") == "surrogate-pairs" else CODE_POINTS
            out.append(Template(data["name"], data["op"], data["rule"], _builder(data["args"]), size))
            for cause in data.get("causes", ()):
                causes[cause] = (*causes.get(cause, ()), data["name"])
    return tuple(out), causes


# The templates, and the templates each cause needs so that the exhaustive sweep puts every code point where
# that cause's rule can see it: both from the family files' templates ("causes").
TEMPLATES, SWEEP_TEMPLATES = _templates()


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
                             f"{', '.join(dict.fromkeys(t.op for t in TEMPLATES))}; an op's templates go in its "
                             f"family file ({family_path(op)}, \"templates\": docs/implementers.md)")
    for name in names or []:
        if name not in BY_NAME:
            raise ValueError(f"unknown template {name!r}{did_you_mean(name, BY_NAME)}; templates: {', '.join(BY_NAME)}")
    chosen = [t for t in TEMPLATES if (not ops or t.op in ops) and (not names or t.name in names)]
    if not chosen:
        raise ValueError("the filters select no template")
    return chosen


def family_path(op: str) -> str:
    return next((str(family.path) for family in FAMILIES if any(data["name"] == op for data in family.ops)), "?")


def missing_templates(templates: tuple[Template, ...] = TEMPLATES) -> list[str]:
    """One line per sweep template a cause needs (SWEEP_TEMPLATES: the family files' templates' causes) that
    `templates` lacks, and per character rule an op goes through that no template serves."""
    have = {template.name for template in templates}
    problems = [f"cause {cause} needs sweep template {name!r}, which the sweep lacks"
                for cause, names in SWEEP_TEMPLATES.items() for name in names if name not in have]
    used = dict.fromkeys(rule for op in OPS.values() if op.differential for rule in op.char_rules)
    problems += [f"character rule {rule} ({', '.join(op.name for op in OPS.values() if rule in op.char_rules)}) "
                 f"has no sweep template: add one to the op's family file, its \"causes\" naming {rule}"
                 for rule in used if rule not in SWEEP_TEMPLATES]
    problems += [f"{rule!r} is not a character rule" for rule in used if rule not in CHARACTER_RULES]
    problems += [f"SWEEP_TEMPLATES names {cause!r}, which is not a cause" for cause in SWEEP_TEMPLATES
                 if cause not in CAUSES]
    return problems
