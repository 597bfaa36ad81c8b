"""Minimal witnesses: shrink a divergent input by deletion and simplification until no single step
keeps the same divergence.

The same divergence means: the implementations of its share (explain.name_shares) still disagree with the
oracle, each with the same kind of outcome (``ok`` or the same error code), in one share with the same cause
and detail (or a narrower detail: fewer of the Unicode steps a skew could come from); the other
implementations may come to agree (a version skew riding along in the first witness falls away).
Steps, coarse ones first (every accepted step starts again from the first):

* leave out an argument that has a default; give a JSON argument as ``null``;

* the i-th number of every number array of one length at once (vectors compared only while their
  lengths agree); every number of those arrays rounded to an integer;
* a JSON text (parsed with the standard library, never with an implementation's parser): drop an
  array element or an object member, replace a nested value by a simpler one, shrink a string inside;
  the text is written back compactly, and kept only if the divergence survives the rewriting;
* every string at once: remove one character everywhere it occurs (a new text and a stored text
  that must stay equal shrink together);
* a string: drop a run of characters (halves, quarters, ..., one); replace one character by ``a``;
* a list: drop one element; a number: 0, 1, its integer part.

The loop restarts after every accepted step and ends when no step is accepted (a local minimum: no
single removal or simplification keeps the divergence), or after :data:`MAX_STEPS` accepted steps.

A smaller input on which the share's implementations still disagree with the oracle, each with its outcome kind,
but under another class (another cause or detail, or in one share with other implementations), is not the
divergence kept; it is not lost either: ``Elsewhere`` holds the smallest one of each such class, and which of them
lay one removal away from the witness the loop ended on (the witness then holds that other class's difference
too: harness/classes/sightings.py files such a class as its own and splits the witness's sighting into them).
Met on the way, never looked for: no call is made for it that shrinking did not make.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from harness.differential.counterfactual.skew import narrower_or_equal
from harness.differential.explain import Share, name_shares
from harness.differential.outcomes import Responses, divergent, observe, oracle_of
from harness.differential.verdict import outcome_kinds
from harness.model import hostvalues
from harness.model.registry import get_op
from harness.testees.testee import Testee

MAX_STEPS = 2000
_NOT_JSON = object()
Other = tuple[tuple[str, ...], str, str | None]  # another class met while shrinking: (implementations, cause, detail)


@dataclass
class Elsewhere:
    """What else a shrink met (the module's docstring): ``found``, per other class (the implementations of its
    share, cause, detail), the smallest input met in it, with its responses and its share as ``name_shares``
    named it; ``beside``, the classes of ``found`` met one removal away from the witness the shrink ended on."""

    found: dict[Other, tuple[dict[str, Any], Responses, Share]] = field(default_factory=dict)
    beside: set[Other] = field(default_factory=set)

    def meet(self, candidate: dict[str, Any], got: Responses, parts: list[Share], names: tuple[str, ...],
             kept: tuple[str, str | None], removal: bool, passing: set[Other]) -> None:
        """The shares of ``candidate`` that hold some of ``names`` and are not the class ``kept`` (a cause and
        a detail: the same cause with a narrower or equal detail is the same class); ``removal``: the
        candidate is the current witness less something (its classes go into ``passing``, the pass's)."""
        for part in parts:
            if not set(part.impls) & set(names):
                continue
            if set(names) <= set(part.impls) and part.found.cause == kept[0] and \
                    narrower_or_equal(part.found.detail, kept[1]):
                continue
            other = (part.impls, part.found.cause, part.found.detail)
            held = self.found.get(other)
            if held is None or _order(candidate) < _order(held[0]):
                self.found[other] = (candidate, got, part)
            if removal:
                passing.add(other)


def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


Move = tuple[Any, bool]  # a smaller candidate, and whether it is a removal (something deleted, nothing changed)


def _only(moves: Iterator[Move]) -> Iterator[Any]:
    """The candidates of ``moves``, without their removal flags."""
    return (candidate for candidate, _ in moves)


def _string_moves(text: str) -> Iterator[Move]:
    """Drop a run of characters (halves first, then quarters, ..., then one: removals), then replace one by
    'a' (a simplification)."""
    size = len(text) // 2
    while size >= 1:
        for start in range(0, len(text), size):
            yield text[:start] + text[start + size:], True
        size //= 2
    for i, ch in enumerate(text):
        if ch != "a":
            yield text[:i] + "a" + text[i + 1:], False


def _string_steps(text: str) -> Iterator[str]:
    return _only(_string_moves(text))


def _everywhere(args: dict[str, Any], fn: Any) -> dict[str, Any]:
    """``fn`` applied to every host string, and to every string value inside those that are JSON texts."""
    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return fn(item)
        if isinstance(item, list):
            return [walk(x) for x in item]
        if isinstance(item, dict):  # keys are structure: left alone
            return {k: walk(v) for k, v in item.items()}
        return item

    out = {}
    for name, value in args.items():
        if isinstance(value, str):
            parsed = _parse(value)
            if parsed is _NOT_JSON:
                out[name] = fn(value)
            else:  # a JSON text: only its string values change (``null`` and numbers stay as they are)
                walked = walk(parsed)
                out[name] = value if walked == parsed else _dump(walked)
        else:
            out[name] = value
    return out


def _global_moves(args: dict[str, Any]) -> Iterator[Move]:
    """``_global_steps``, each a removal."""
    return ((candidate, True) for candidate in _global_steps(args))


def _global_steps(args: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Remove one character everywhere at once (a text and the stored text it must equal shrink together)."""
    seen: dict[str, None] = {}

    def collect(text: str) -> str:
        seen.update(dict.fromkeys(text))
        return text

    _everywhere(args, collect)
    for ch in seen:
        yield _everywhere(args, lambda text, ch=ch: text.replace(ch, ""))
    for ch in seen:  # a character with its case partners (a text and a stored text equal once lowercased)
        partners = {ch, ch.lower(), ch.upper()} - {ch}
        if partners and all(len(p) == 1 for p in partners):
            yield _everywhere(args, lambda text, group=partners | {ch}: "".join(c for c in text if c not in group))


def _value_moves(value: Any, depth: int = 0) -> Iterator[Move]:
    """Simpler versions of a parsed JSON value (or a host value): less an element, a member or characters
    (removals), or with a nested value made ``null``, a number 0, 1 or its integer part, a character 'a'
    (simplifications)."""
    if isinstance(value, list):
        for i in range(len(value)):
            yield value[:i] + value[i + 1:], True
        for i, item in enumerate(value):
            if isinstance(item, (list, dict)) and depth < 200:
                yield value[:i] + [None] + value[i + 1:], False
            for smaller, removal in _value_moves(item, depth + 1):
                yield value[:i] + [smaller] + value[i + 1:], removal
    elif isinstance(value, dict):
        keys = list(value)
        for key in keys:
            yield {k: v for k, v in value.items() if k != key}, True
        for key in keys:
            for smaller, removal in _value_moves(value[key], depth + 1):
                yield {k: (smaller if k == key else v) for k, v in value.items()}, removal
    elif isinstance(value, str):
        yield from _string_moves(value)
    elif isinstance(value, float) and math.isfinite(value):
        for simpler in (0.0, 1.0, float(int(value))):
            if simpler != value:
                yield simpler, False
    elif isinstance(value, int) and not isinstance(value, bool):
        for simpler in (0, 1):
            if simpler != value:
                yield simpler, False


def _arg_moves(value: Any) -> Iterator[Move]:
    if isinstance(value, str):
        parsed = _parse(value)
        if parsed is not _NOT_JSON and isinstance(parsed, (list, dict)):
            compact = _dump(parsed)
            if compact != value:
                yield compact, False  # the same value written compactly: nothing deleted
            for smaller, removal in _value_moves(parsed):
                yield _dump(smaller), removal
        yield from _string_moves(value)
    else:
        yield from _value_moves(value)


def shrink(opened: dict[str, Testee], op: str, args: dict[str, Any], versions: dict[str, dict[str, str]],
           cause: tuple[str, str | None], budget: int = MAX_STEPS, deadline: float | None = None,
           share: tuple[str, ...] | None = None,
           elsewhere: Elsewhere | None = None) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """(minimal args, their responses) keeping the divergence of ``args`` with cause ``cause``; stops
    early (with a smaller but maybe not minimal witness) at ``deadline`` (time.monotonic()).

    ``share``: the implementations of the share of the divergence to keep (explain.name_shares; default:
    every one that disagrees). They must go on disagreeing with the oracle, each with its outcome kind, in
    one share with that cause; the others may come to agree (a skew riding along falls away).
    ``elsewhere``: filled with the other classes met on the way (``Elsewhere``)."""
    responses = observe(opened, op, args)
    names = tuple(n for n in share if n in responses) if share is not None else tuple(divergent(op, responses))
    oracle = oracle_of(op, responses)
    watched = {oracle, *names}
    kinds = outcome_kinds({name: r for name, r in responses.items() if name in watched})

    passing: set[Other] = set()  # the other classes met one removal away from the current witness

    def same(candidate: dict[str, Any], removal: bool) -> dict[str, dict[str, Any]] | None:
        got = observe(opened, op, candidate)
        if outcome_kinds({name: r for name, r in got.items() if name in watched}) != kinds or \
                not set(names) <= set(divergent(op, got)):
            return None
        parts = name_shares(opened, op, candidate, got, versions, fallback=False)
        for part in parts:
            if set(names) <= set(part.impls):
                found = part.found
                if found.cause == cause[0] and narrower_or_equal(found.detail, cause[1]):
                    return got
                break
        if elsewhere is not None:
            elsewhere.meet(candidate, got, parts, names, cause, removal, passing)
        return None

    optional = [param.name for param in get_op(op).params if not param.required]

    def omit_optional(current: dict[str, Any]) -> Iterator[Move]:
        """Leave out an argument that has a default (a removal); give a JSON argument as ``null``."""
        for name in optional:
            if name in current:
                yield {k: v for k, v in current.items() if k != name}, True
        for name, value in current.items():
            if isinstance(value, str) and value != "null" and _parse(value) is not _NOT_JSON:
                yield {**current, name: "null"}, False

    # Coarse first: each accepted step starts again from the first phase. Each candidate comes with whether it
    # is a removal (``Elsewhere.meet``: only a class met by deleting something from the witness lies beside it;
    # one a simplification brings, a number made 0.0, may be the simplification's own difference).
    phases = (omit_optional, _structure_moves, _paired_moves, _global_moves, _fine_moves)
    steps = 0
    improved = True
    while improved and steps < budget:
        improved = False
        passing.clear()  # a new witness: what lay beside the last one is no longer beside it
        for phase in phases:
            for candidate, removal in phase(args):
                if deadline is not None and time.monotonic() > deadline:
                    if elsewhere is not None:  # beside the witness, as far as the pass went
                        elsewhere.beside = set(passing)
                    return args, responses
                if _order(candidate) < _order(args) and (got := same(candidate, removal)) is not None:
                    args, responses = candidate, got
                    steps += 1
                    improved = True
                    break
            if improved:
                break
    if elsewhere is not None and not improved:  # the last pass tried every step of the witness it ended on
        elsewhere.beside = set(passing)
    return args, responses


def _structure_moves(args: dict[str, Any]) -> Iterator[Move]:
    """Drop one element of a JSON array or one member of a JSON object, in every JSON argument (removals)."""
    for name, value in args.items():
        if isinstance(value, str):
            parsed = _parse(value)
            if parsed is not _NOT_JSON and isinstance(parsed, (list, dict)):
                for smaller in _drops(parsed):
                    yield {**args, name: _dump(smaller)}, True


def _structure_steps(args: dict[str, Any]) -> Iterator[dict[str, Any]]:
    return _only(_structure_moves(args))


def _paired_moves(args: dict[str, Any]) -> Iterator[Move]:
    """Drop the i-th number of every number array of the same length at once (an embedding and the
    candidates' embeddings are only compared while their lengths agree: removals), then round every number of
    those arrays to an integer (a simplification), in all JSON arguments."""
    parsed = {name: _parse(value) for name, value in args.items() if isinstance(value, str)}
    parsed = {name: value for name, value in parsed.items() if isinstance(value, (list, dict))}
    lengths: set[int] = set()

    def arrays(item: Any) -> Iterator[list[Any]]:
        if isinstance(item, list):
            if item and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in item):
                yield item
            for x in item:
                yield from arrays(x)
        elif isinstance(item, dict):
            for x in item.values():
                yield from arrays(x)

    for value in parsed.values():
        lengths.update(len(a) for a in arrays(value))

    def rewrite(item: Any, length: int, change: Any) -> Any:
        if isinstance(item, list):
            if len(item) == length and item and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                   for x in item):
                return change(item)
            return [rewrite(x, length, change) for x in item]
        if isinstance(item, dict):
            return {k: rewrite(v, length, change) for k, v in item.items()}
        return item

    for length in sorted(lengths, reverse=True):
        changes = [(lambda a, i=i: a[:i] + a[i + 1:], True) for i in range(length)] if length > 1 else []
        changes.append((lambda a: [float(round(x)) if math.isfinite(x) and abs(x) < 1e15 else x for x in a], False))
        for change, removal in changes:
            yield {**args, **{name: _dump(rewrite(value, length, change)) for name, value in parsed.items()}}, removal


def _paired_steps(args: dict[str, Any]) -> Iterator[dict[str, Any]]:
    return _only(_paired_moves(args))


def _drops(value: Any) -> Iterator[Any]:
    if isinstance(value, list):
        for i in range(len(value)):
            yield value[:i] + value[i + 1:]
        for i, item in enumerate(value):
            for smaller in _drops(item):
                yield value[:i] + [smaller] + value[i + 1:]
    elif isinstance(value, dict):
        for key in value:
            yield {k: v for k, v in value.items() if k != key}
        for key in value:
            for smaller in _drops(value[key]):
                yield {k: (smaller if k == key else v) for k, v in value.items()}


def _fine_moves(args: dict[str, Any]) -> Iterator[Move]:
    for name in args:
        for smaller, removal in _arg_moves(args[name]):
            yield {**args, name: smaller}, removal


def _fine_steps(args: dict[str, Any]) -> Iterator[dict[str, Any]]:
    return _only(_fine_moves(args))


def _order(args: dict[str, Any]) -> tuple[int, str]:
    """A well-founded order on witnesses: smaller first, then (same size) the lesser text. Every
    accepted step goes down it, so shrinking ends (no cycle such as [1] -> [1.0] -> [1])."""
    return size(args), json.dumps(hostvalues.encode_args(args), sort_keys=True, ensure_ascii=True)


def size(value: Any) -> int:
    """How big a witness is (for tests): characters, elements and members, recursively."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (list, tuple)):
        return 1 + sum(size(v) for v in value)
    if isinstance(value, dict):
        return 1 + sum(size(k) + size(v) for k, v in value.items())
    return 1

