"""Which character steps of an op its sweep templates reach, seen in the reference's own step notes.

The exhaustive sweep finds a difference in a character rule only where some template puts the swept code point in
front of that rule's step. Whether a template does is observed, not declared: each template is run on the reference
with every probe character below (``PROBES``: the contract's white space, line breaks, quotes and dashes,
near-white-space, punctuation, cased letters, combining marks and characters that normalize) inside
``reference.steps.recording()``, and once with a plain letter (``NEUTRAL``). The first note where the probe's run,
the probe written as the plain letter, parts from the plain letter's run is the step that treats the probe otherwise
(the way the harness finds where two implementations' traces part). A template reaches a role (``Step.role``: nfc,
lowercase, white_space, ...) when, for some probe, that step is one of the op's own steps of that role.

``unreached()`` names every character role of a swept op that none of the op's templates reaches, with
the templates of other ops that reach that role (a model to copy) and the family file the template goes in.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Any

from harness.differential.causes.characters import REACH
from harness.fuzzing.templates import BY_NAME, CODE_POINTS, TEMPLATES, Template, family_path
from harness.model.contract_sets import LINE_BREAKS, NEAR_WHITE_SPACE, QUOTE_DASH, WHITE_SPACE
from harness.model.registry import OPS

CHARACTER_ROLES = tuple(REACH)  # the roles of steps that act on characters (the cause rules' table)

_LETTERS_AND_MARKS = (
    "A", "Z", "\u00c0", "\u00c5", "\u00e9", "\u00df", "\u0130", "\u01c5", "\u03a3", "\u0391", "\u1e9e",
    "\u0301", "\u0308", "\u0323", "\u0340", "\u0344", "\u0345", "\u212b", "\u2126", "\ufb01", "\uf900",
    "\u1100", "\u1161", "\u11a8", "\uac00", "\u0f73", "\u2460", "\uff21",
)
# The probe characters: every character of the contract's character sets, ASCII punctuation, and letters
# and marks that case mappings and normalization change. Sorted, so that the witness named is stable.
PROBES: tuple[str, ...] = tuple(sorted(
    set(WHITE_SPACE) | set(LINE_BREAKS) | set(NEAR_WHITE_SPACE) | set(QUOTE_DASH) | set(".,;:!?'\"-()[]{}*#@/\\")
    | set(_LETTERS_AND_MARKS)))


NEUTRAL = "q"  # a plain letter no character step treats specially: what the swept value is compared with


def _put(value: Any, ch: str) -> Any:
    """A noted value with every ``ch`` in its strings (keys included) replaced by ``NEUTRAL``."""
    if isinstance(value, str):
        return value.replace(ch, NEUTRAL)
    if isinstance(value, dict):
        return {_put(key, ch): _put(item, ch) for key, item in value.items()}
    if isinstance(value, list):
        return [_put(item, ch) for item in value]
    if isinstance(value, tuple):
        return tuple(_put(item, ch) for item in value)
    return value


@lru_cache(maxsize=4096)
def _notes(name: str, ch: str) -> tuple[tuple[str, Any], ...]:
    """The reference's step notes of one instance of the template ``name`` (an error ends them where it was
    raised)."""
    from reference.steps import recording

    template = BY_NAME[name]
    function = OPS[template.op].reference
    with recording() as notes:
        try:
            function(**template.build(ch))
        except Exception:  # noqa: BLE001 - an error is an outcome here: the notes up to it are what is seen
            pass
    return tuple(notes)


def first_acting(name: str, ch: str) -> str | None:
    """The first step that treats ``ch`` otherwise than the plain letter ``NEUTRAL`` in the template ``name``:
    the first note where the run on ``ch``, with ``ch`` written as ``NEUTRAL``, parts from the run on
    ``NEUTRAL`` (None: they never part, or ``ch`` is ``NEUTRAL``)."""
    if ch == NEUTRAL:
        return None
    probed, plain = _notes(name, ch), _notes(name, NEUTRAL)
    for (step, value), other in zip(probed, plain, strict=False):  # an error may end one run sooner
        if step != other[0] or _put(value, ch) != other[1]:
            return step
    return probed[len(plain)][0] if len(probed) > len(plain) else None


@cache
def reached(name: str) -> tuple[tuple[str, str], ...]:
    """The character roles the template ``name`` reaches: (role, the first probe that shows it), in role order.
    A template of surrogate pairs is probed with no character: it reaches none here."""
    template = BY_NAME[name]
    if template.size != CODE_POINTS:
        return ()
    roles = {step.id: step.role for step in OPS[template.op].steps if step.role in CHARACTER_ROLES}
    found: dict[str, str] = {}
    for ch in PROBES:
        step = first_acting(name, ch)
        if step in roles:
            found.setdefault(roles[step], ch)
    return tuple((role, found[role]) for role in CHARACTER_ROLES if role in found)


def notes_steps(op: str) -> bool:
    """Whether the op's reference notes its steps at all (probed with the op's plain arguments)."""
    from reference.steps import recording

    spec = OPS[op]
    with recording() as notes:
        try:
            spec.reference(**dict(spec.plain))
        except Exception:  # noqa: BLE001 - an error still notes the steps before it
            pass
    return bool(notes)


def _shown(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata.name(ch, '')}".rstrip()


def unreached(ops: Iterable[str] | None = None, templates: tuple[Template, ...] = TEMPLATES) -> list[str]:
    """One line per character role of a swept op (``ops``; default: every op with a template) that none of the
    op's ``templates`` reaches, naming the step, the templates of other ops that reach the role and where the
    op's templates go; and one per swept op whose reference notes no step (its reach cannot be seen)."""
    swept = list(dict.fromkeys(ops if ops is not None else (t.op for t in templates)))
    by_role: dict[str, list[str]] = {}
    for template in templates:
        for role, _ in reached(template.name):
            by_role.setdefault(role, []).append(f"{template.name} ({template.op})")
    problems: list[str] = []
    for op in swept:
        steps = [step for step in OPS[op].steps if step.role in CHARACTER_ROLES]
        if not steps:
            continue
        if not notes_steps(op):
            problems.append(f"op {op}: its reference notes no step (reference.steps.note), so whether its sweep "
                            "templates reach its character steps cannot be seen")
            continue
        own = [t for t in templates if t.op == op]
        have = {role for t in own for role, _ in reached(t.name)}
        for role in dict.fromkeys(step.role for step in steps):
            if role in have:
                continue
            ids = ", ".join(step.id for step in steps if step.role == role)
            models = [name for name in by_role.get(role, []) if not name.endswith(f"({op})")]
            problems.append(
                f"op {op}: no sweep template reaches its {role} step ({ids}): no probe character changes there "
                f"in any of its templates ({', '.join(t.name for t in own) or 'none'}); add one to "
                f"{family_path(op)} (\"templates\")"
                + (f"; templates that reach a {role} step: {', '.join(models[:4])}" if models else ""))
    return problems


def witnesses(name: str) -> dict[str, str]:
    """The template's reached roles -> the probe that shows each, as shown in reports and docs."""
    return {role: _shown(ch) for role, ch in reached(name)}
