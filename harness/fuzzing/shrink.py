"""Minimal witnesses: shrink a divergent input by deletion and simplification until no single step
keeps the same divergence.

The same divergence means: the same implementations disagree with the oracle, each with the same kind
of outcome (``ok`` or the same error code), and the counterfactual classifier gives the same cause
and detail. Steps, tried in order on every argument:

* a JSON text (parsed with the standard library, never with an implementation's parser): drop an
  array element or an object member, replace a nested value by a simpler one, shrink a string inside;
  the text is written back compactly, and kept only if the divergence survives the rewriting;
* a string: drop one character; replace one character by ``a``;
* a list: drop one element; a number: 0, 1, its integer part.

The loop restarts after every accepted step and ends when no step is accepted (a local minimum: no
single removal or simplification keeps the divergence), or after :data:`MAX_STEPS` accepted steps.
"""

from __future__ import annotations

import json
import math
from typing import Any, Iterator

from harness.differential.explain import classify, divergent, observe
from harness.fuzzing.classes import outcome_kinds
from harness.testees.testee import Testee

MAX_STEPS = 500
_NOT_JSON = object()


def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _string_steps(text: str) -> Iterator[str]:
    for i in range(len(text)):
        yield text[:i] + text[i + 1:]
    for i, ch in enumerate(text):
        if ch != "a":
            yield text[:i] + "a" + text[i + 1:]


def _value_steps(value: Any, depth: int = 0) -> Iterator[Any]:
    """Simpler versions of a parsed JSON value (or a host value)."""
    if isinstance(value, list):
        for i in range(len(value)):
            yield value[:i] + value[i + 1:]
        for i, item in enumerate(value):
            if isinstance(item, (list, dict)) and depth < 200:
                yield value[:i] + [None] + value[i + 1:]
            for smaller in _value_steps(item, depth + 1):
                yield value[:i] + [smaller] + value[i + 1:]
    elif isinstance(value, dict):
        keys = list(value)
        for key in keys:
            yield {k: v for k, v in value.items() if k != key}
        for key in keys:
            for smaller in _value_steps(value[key], depth + 1):
                yield {k: (smaller if k == key else v) for k, v in value.items()}
    elif isinstance(value, str):
        yield from _string_steps(value)
    elif isinstance(value, float) and math.isfinite(value):
        for simpler in (0.0, 1.0, float(int(value))):
            if simpler != value:
                yield simpler
    elif isinstance(value, int) and not isinstance(value, bool):
        for simpler in (0, 1):
            if simpler != value:
                yield simpler


def _arg_steps(value: Any) -> Iterator[Any]:
    if isinstance(value, str):
        parsed = _parse(value)
        if parsed is not _NOT_JSON and isinstance(parsed, (list, dict)):
            compact = _dump(parsed)
            if compact != value:
                yield compact
            for smaller in _value_steps(parsed):
                yield _dump(smaller)
        yield from _string_steps(value)
    else:
        yield from _value_steps(value)


def shrink(opened: dict[str, Testee], op: str, args: dict[str, Any], versions: dict[str, dict[str, str]],
           cause: tuple[str, str | None], budget: int = MAX_STEPS) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """(minimal args, their responses) keeping the divergence of ``args`` with cause ``cause``."""
    responses = observe(opened, op, args)
    names, kinds = divergent(op, responses), outcome_kinds(responses)

    def same(candidate: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
        got = observe(opened, op, candidate)
        if outcome_kinds(got) != kinds or divergent(op, got) != names:
            return None
        found, _, detail = classify(opened, op, candidate, got, versions)
        return got if (found, detail) == cause else None

    steps = 0
    improved = True
    while improved and steps < budget:
        improved = False
        for name in list(args):
            for smaller in _arg_steps(args[name]):
                candidate = {**args, name: smaller}
                got = same(candidate)
                if got is not None:
                    args, responses = candidate, got
                    steps += 1
                    improved = True
                    break
            if improved:
                break
    return args, responses


def size(value: Any) -> int:
    """How big a witness is (for tests): characters, elements and members, recursively."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (list, tuple)):
        return 1 + sum(size(v) for v in value)
    if isinstance(value, dict):
        return 1 + sum(size(k) + size(v) for k, v in value.items())
    return 1

