"""The Unicode version skew in one place: its name and its detail (the Unicode properties it is in, those the op's
steps declare (``Op.unicode_steps``; ``unicode_tables.PROPERTIES``), "+"-joined:
``steps_of``, ``entry_details``, ``narrower_or_equal``); which characters' data differs between the versions
the implementations report (exact from data/unicode-tables/, coarse heuristics for a version without a table);
which Unicode steps of an op can explain a skew on an input; how shares are grouped (one per version pair,
``version_pair``) and peeled (``skewed_at``: with those characters replaced, what divergence is left;
``changed_alike``: a peel that changes the difference into the one characters every side knows give there,
rather than leaving it, leaves the character's own difference the skew; ``behind_a_skew``: a skew whose traces
part first elsewhere); which implementations it masks (``masked``);
and each divergent implementation's own share of one (``own_details``, ``own_details_at``). The two rule
tables name it (harness/differential/causes/characters.py, counterfactual/characters.py); every other module
asks here.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from difflib import SequenceMatcher
from typing import Any

import unicodedata2

from generators.unicode_stability import unstable_reason
from harness.differential.causes import TraceCause, cause_from_traces
from harness.differential.causes.characters import step_property
from harness.differential.counterfactual.length import kept_by, shorter
from harness.differential.counterfactual.rewrite import (
    all_strings,
    composing_parts,
    map_strings,
    marks_kept,
    oracle_role,
    replace_chars,
)
from harness.differential.outcomes import Responses, divergent, kind, observe, oracle_of, outcome, outcome_shape
from harness.model import unicode_tables
from harness.model.compare import same_json
from harness.model.registry import OPS, get_op, step_titles
from harness.model.unicode_info import assigned_in, has_surrogate, is_surrogate
from harness.testees.impls import oracle as oracle_name
from harness.testees.testee import Testee


def version_sensitive(ch: str) -> bool:
    """Whether some step's data of ``ch`` differs between two of the Unicode versions the harness has
    tables for (data/unicode-tables/: exact, character by character)."""
    return ord(ch) in unicode_tables.sensitive_anywhere()


def sensitive_between(versions: dict[str, dict[str, str]]) -> Callable[[str], bool]:
    """Characters whose data differs between the versions the implementations report, in some Unicode property
    (every one of ``unicode_tables.PROPERTIES``: so every property an op's steps declare): exact where every
    reported version of that property has a table, the coarse heuristics for a property where one has none (a
    version the harness has no table of), every table's differences (in the properties the ops declare) when
    nothing is reported."""
    if not versions:
        return version_sensitive
    exact: set[int] = set()
    coarse = False
    for step in unicode_tables.PROPERTIES:
        pairs = table_pairs(step, versions)
        if pairs is None:
            coarse = True
            continue
        for a, b in pairs:
            exact |= unicode_tables.differing_set(step, a, b)
    return lambda ch: ord(ch) in exact or (coarse and heuristically_sensitive(ch))


def heuristically_sensitive(ch: str) -> bool:
    """The fallback for a version without a table (a testee reporting none the harness knows): data that
    differs between two of the versions there are tables for, or unassigned in the oldest (coarse)."""
    return unstable_reason(ch) is not None and not is_surrogate(ord(ch))


def table_pairs(step: str, versions: dict[str, dict[str, str]]) -> list[tuple[str, str]] | None:
    """Every pair of distinct `step` versions the implementations report, when every one of them has a
    table with that step's data; None otherwise (the heuristics stand in). A value that is no Unicode version
    (memgate's ``"white_space": "contract-v1"``: the contract's own set, no Unicode data) is left out."""
    reported = sorted({v[step] for v in versions.values()
                       if isinstance(v.get(step), str) and unicode_tables.VERSION.fullmatch(v[step])})
    if not all(unicode_tables.has(version, step) for version in reported):
        return None
    return [(a, b) for i, a in enumerate(reported) for b in reported[i + 1:]]


def nfc_relevant(ch: str) -> bool:
    """A character NFC can change, reorder or compose (newest data): canonically decomposable, combining,
    or part of some canonical decomposition (U+0B3E in U+0B4B, a Hangul jamo...)."""
    decomposition = unicodedata2.decomposition(ch)
    return bool(decomposition and not decomposition.startswith("<")) or unicodedata2.combining(ch) != 0 or \
        ord(ch) in composing_parts() or 0x1100 <= ord(ch) <= 0x11FF or 0xAC00 <= ord(ch) <= 0xD7A3


_CASED = {"Lu", "Ll", "Lt"}
_CASE_IGNORABLE = {"Mn", "Me", "Cf", "Lm", "Sk"}


def case_relevant(ch: str, text: str) -> bool:
    """Whether ``ch``'s case data can change a lowercase mapping of ``text``: it is cased in some version
    in play, or it sits in a text with a capital sigma and is case-ignorable (the final-sigma context)."""
    categories = {unicodedata.category(ch), unicodedata2.category(ch)}
    return bool(categories & _CASED) or ("\u03a3" in text and bool(categories & (_CASE_IGNORABLE | {"Lo", "Cn"})))


def skew_steps(args: dict[str, Any], versions: dict[str, dict[str, str]], op_name: str | None = None) -> str:
    """Which Unicode properties the op's steps read can explain a skew on the input's characters, in the op's
    order (``Op.unicode_steps``: the properties its steps declare).

    A property counts when the implementations report different versions of it and a character of the input
    reads differently between two of them (the tables, exactly). Where a reported version has no table, the
    coarse heuristics: ``normalization`` when NFC of some string differs between the oldest and the newest
    Unicode data the harness has (Python's ``unicodedata`` and ``unicodedata2``); ``case_mapping`` when a
    character whose data differs is cased (or case-ignorable next to a capital sigma); any other property when
    a character's data differs between some two versions there are tables for."""
    steps = []
    op_steps = get_op(op_name).unicode_steps if op_name else ("case_mapping", "normalization")
    strings = all_strings(args)

    def versions_differ(step: str) -> bool:
        return len({v[step] for v in versions.values() if step in v}) > 1

    def exactly(step: str) -> bool | None:
        """Whether a character of the input reads differently in `step` between two reported versions,
        from the tables; None when a reported version has none."""
        pairs = table_pairs(step, versions)
        if pairs is None:
            return None
        return any(unicode_tables.matters(ord(ch), step, a, b, "\u03a3" in text)
                   for a, b in pairs for text in strings for ch in text if not is_surrogate(ord(ch)))

    def coarsely(step: str) -> bool:
        if step == "case_mapping":
            return any(heuristically_sensitive(ch) and case_relevant(ch, text) for text in strings for ch in text)
        if step == "normalization":
            return any(unicodedata.normalize("NFC", text) != unicodedata2.normalize("NFC", text)
                       for text in strings if not has_surrogate(text))
        return any(heuristically_sensitive(ch) for text in strings for ch in text)

    for step in dict.fromkeys(op_steps):
        if step not in unicode_tables.PROPERTIES or not versions_differ(step):
            continue
        exact = exactly(step)
        if exact or (exact is None and coarsely(step)):
            steps.append(step)
    return "+".join(steps) or "properties"


def peels(args: dict[str, Any], predicate: Callable[[str], bool],
          versions: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    """The input with the characters ``predicate`` names made equal on every side, in each way the harness
    has (distinct, none the input itself): stand-ins of the oracle's case role (``oracle_role``), and the same
    with combining marks kept in NFC's canonical order (``marks_kept``). A skew explains a divergence only
    where every one of them settles it: one way alone can take a bug's trigger away with the skew (a mark
    whose reordering makes two raw texts normalize alike, where the bug compares the raw texts)."""
    base = oracle_role(versions)
    out: list[dict[str, Any]] = []
    for pool in (base, marks_kept(base)):
        peeled = replace_chars(args, predicate, pool)
        if peeled != args and peeled not in out:
            out.append(peeled)
    return out


def left_after_peeling(impls: dict[str, Testee], op_name: str, args: dict[str, Any], predicate: Callable[[str], bool],
                       versions: dict[str, dict[str, str]]) -> tuple[dict[str, Any], Responses] | None:
    """The first of ``peels`` on which some of ``impls`` still disagree, with their responses; None when every
    peel settles the divergence (or there is none)."""
    for peeled in peels(args, predicate, versions):
        after = observe(impls, op_name, peeled)
        if divergent(op_name, after):
            return peeled, after
    return None


def settled_by_peeling(impls: dict[str, Testee], op_name: str, args: dict[str, Any],
                       predicate: Callable[[str], bool], versions: dict[str, dict[str, str]]) -> bool:
    """Whether the input holds characters ``predicate`` names and every way of making them equal (``peels``)
    leaves ``impls`` in agreement: what a skew must show to be named."""
    return bool(peels(args, predicate, versions)) and \
        left_after_peeling(impls, op_name, args, predicate, versions) is None


def _stood_for(args: dict[str, Any], rewritten: dict[str, Any]) -> dict[str, str]:
    """Each stand-in of a one-for-one rewrite of ``args`` (``replace_chars``) and the character it stands for."""
    back: dict[str, str] = {}
    for text, done in zip(all_strings(args), all_strings(rewritten), strict=False):
        if len(text) == len(done):
            back.update((new, old) for old, new in zip(text, done, strict=True) if old != new)
    return back


def _read_back(op_name: str, response: dict[str, Any], back: dict[str, str]) -> tuple[str, Any]:
    """A response's outcome (``outcomes.outcome``) with every stand-in in its strings put back to the character
    it stands for (``_stood_for``): two rewrites' outcomes compared as answers about the same input."""
    found, value = outcome(op_name, response)

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return "".join(back.get(ch, ch) for ch in item)
        if isinstance(item, list):
            return [walk(x) for x in item]
        if isinstance(item, dict):
            return {walk(k): walk(v) for k, v in item.items()}
        return item

    return (found, walk(value)) if found != "error" else (found, value)


def known_alike(args: dict[str, Any], predicate: Callable[[str], bool]) -> dict[str, Any] | None:
    """The input with the characters ``predicate`` names replaced by stand-ins every side knows alike (none that
    ``predicate`` names: their data is the same in every version in play) of the same General_Category,
    combining class and encoded lengths (``counterfactual.length.kept_by``): what the input's template gives for
    characters of that width every side knows. None where one has no such stand-in, or nothing is replaced."""
    def pool(ch: str) -> str:
        return "".join(c for c in kept_by(ch) if not predicate(c))

    named = {ch for text in all_strings(args) for ch in text if predicate(ch)}
    if not named or any(not pool(ch) for ch in named):
        return None
    return replace_chars(args, predicate, pool)


def changed_alike(impls: dict[str, Testee], op_name: str, args: dict[str, Any], responses: Responses,
                  predicate: Callable[[str], bool], peeled: dict[str, Any], after: Responses) -> bool:
    """Whether a peel (``peeled``, answered ``after``) that leaves the sides disagreeing *changed* the difference
    into the one characters every side knows give there, rather than leaving it as it was: the same
    implementations disagree with the same oracle, but some of them in another outcome shape
    (``outcomes.outcome_shape``; one shape everywhere is the same difference, which the skew does not explain: a
    rule difference on a new letter), and stand-ins of the skewed characters' category and width that every side
    knows (``known_alike``; the peel's own where they are those) give the same outcomes as the peel, each stand-in
    read back as the character it stands for (judged by the implementations' answers, never by the reference's
    code). Then the input holds two differences: the character's own (its data differs between the sides: the
    skew, which the input is named by) and one its template shows for known characters of that width (a token
    that a known letter would make too long in bytes for one side), which has its own class from them.

    The difference left must also be the stand-ins' width's (``from_width``): with the skewed characters deleted,
    or stood in for by narrower known ones, the sides agree. A bug of its own next to the skew (a token holding a
    ``q`` dropped) fires on every stand-in alike and passes the checks above, but no narrower character takes it
    away: it is left to be named for itself (the Again of ``counterfactual.characters._peel``), never covered by
    the skew's entry."""
    names = divergent(op_name, after)
    oracle = oracle_of(op_name, responses)
    if not names or names != divergent(op_name, responses) or oracle_of(op_name, after) != oracle:
        return False
    if all(outcome_shape(op_name, responses[oracle], responses[name]) ==
           outcome_shape(op_name, after[oracle], after[name]) for name in names):
        return False  # the same difference with the characters made equal: not theirs
    known = known_alike(args, predicate)
    if known is None:
        return False
    theirs = after if known == peeled else observe(impls, op_name, known)
    if set(theirs) != set(after):
        return False
    mine_back, their_back = _stood_for(args, peeled), _stood_for(args, known)
    return all(_same_read_back(_read_back(op_name, after[name], mine_back),
                               _read_back(op_name, theirs[name], their_back)) for name in after) and \
        from_width(impls, op_name, args, responses, predicate)


def from_width(impls: dict[str, Testee], op_name: str, args: dict[str, Any], responses: Responses,
               predicate: Callable[[str], bool]) -> bool:
    """Whether a difference left by a peel is the width's of the characters ``predicate`` names: the input with
    them deleted, or with each stood in for by a known character of its role and a smaller UTF-8 length
    (``counterfactual.length.shorter``, none that ``predicate`` names; tried only where every one has such a
    stand-in), leaves ``impls`` agreeing on an outcome kind some side had before (not an error both sides now
    give). A 12-code-point token whose new letter is deleted has 11, which every side keeps; a token dropped
    for a ``q`` it holds is dropped with or without the letter."""
    def narrower(ch: str) -> str:
        return "".join(c for c in shorter(ch) if not predicate(c))

    named = {ch for text in all_strings(args) for ch in text if predicate(ch)}
    if not named:
        return False
    tries = [{name: map_strings(value, lambda text: "".join(ch for ch in text if not predicate(ch)))
              for name, value in args.items()}]
    if all(narrower(ch) for ch in named):
        tries.append(replace_chars(args, predicate, narrower))
    before = {kind(op_name, r) for r in responses.values()}
    for tried in tries:
        if tried == args:
            continue
        after = observe(impls, op_name, tried)
        if after and not divergent(op_name, after) and {kind(op_name, r) for r in after.values()} & before:
            return True
    return False


def _same_read_back(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    return a[0] == b[0] and (same_json(a[1], b[1]) if a[0] == "ok" else a[1] == b[1])


def accounted_by_peeling(impls: dict[str, Testee], op_name: str, args: dict[str, Any],
                         predicate: Callable[[str], bool], versions: dict[str, dict[str, str]],
                         responses: Responses | None = None) -> bool:
    """Whether the input holds characters ``predicate`` names and every way of making them equal (``peels``)
    either leaves ``impls`` in agreement or changes the difference into the one characters every side knows give
    there (``changed_alike``): what each divergent side's own share of a skew must show (``responses``: theirs
    to the input, asked here only where a peel leaves them disagreeing and none are given)."""
    found = peels(args, predicate, versions)
    if not found:
        return False
    for peeled in found:
        after = observe(impls, op_name, peeled)
        if not divergent(op_name, after):
            continue
        if responses is None:
            responses = observe(impls, op_name, args)
        if not changed_alike(impls, op_name, args, responses, predicate, peeled, after):
            return False
    return True


UNEXPLAINED = "unexplained"  # an implementation's own detail when its share of a skew is not one
SKEW = "unicode_version_skew"


def declared_step(op_name: str, detail: str | None) -> str | None:
    """The step a skew named without traces (a black box) is at: the one step of the op that declares the skew's
    one property (``Step.unicode``: only it reads that data, so only there can the versions part); None when the
    detail names several properties or several steps read it (memgate's NFC and NFC-again)."""
    props = steps_of(detail)
    if len(props) != 1 or op_name not in OPS:
        return None
    reading = [step.id for step in get_op(op_name).steps if getattr(step, "unicode", None) == props[0]]
    return reading[0] if len(reading) == 1 else None


def steps_of(detail: str | None) -> tuple[str, ...]:
    """A skew's Unicode steps ("case_mapping+normalization": two); none for no detail."""
    return tuple(detail.split("+")) if detail else ()


def share_steps(cause: str, detail: str | None) -> str | None:
    """A share's skewed steps when it is a version skew (what ``masked`` is asked about), else None."""
    return detail if cause == SKEW else None


def version_pair(cause: str, detail: str | None, theirs: dict[str, str]) -> tuple[str | None, ...] | None:
    """What a skew share is grouped by beside its step, cause and detail: the versions an implementation reads
    the skewed steps with (implementations that read them with the same data share it; one of another version
    is a skew of its own, with its own expected entry). None for every other cause."""
    return tuple(theirs.get(part) for part in steps_of(detail)) if cause == SKEW else None


def entry_details(cause: str, detail: str | None) -> list[str | None]:
    """The details an implementation's share is listed under: one per Unicode step for a version skew
    ("case_mapping+normalization": one entry each), the detail itself otherwise. An unexplained share
    is not split (no entry lists it)."""
    if cause == SKEW and detail and detail != UNEXPLAINED:
        return list(steps_of(detail))
    return [detail]


def narrower_or_equal(detail: str | None, wanted: str | None) -> bool:
    """The same detail, or fewer of a skew's steps (a skew witness may shed the characters of a step that does
    not matter: "case_mapping+normalization" -> "normalization")."""
    if detail == wanted or wanted is None:
        return detail == wanted
    if detail is None:
        return False
    return set(steps_of(detail)) < set(steps_of(wanted))


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
        if not heuristically_sensitive(ch):
            continue
        relevant = case_relevant(ch, "\u03a3" if sigma else "") if step == "case_mapping" else \
            nfc_relevant(ch) if step == "normalization" else True
        if not relevant:
            continue
        in_a, in_b = assigned_in(ord(ch), a), assigned_in(ord(ch), b)
        if in_a != in_b or in_a is None or in_a:
            return True
    return False


def skewed_between(op_name: str, args: dict[str, Any], names: list[str],
                    versions: dict[str, dict[str, str]]) -> Callable[[str], bool]:
    """The characters whose data differs between the oracle's versions and one of ``names``' in a step
    of the op (every version-sensitive character when the versions are not known)."""
    chosen = oracle_name(op_name)
    if chosen not in versions or not all(name in versions for name in names):
        return sensitive_between(versions)
    pairs = [(skew_steps(args, {chosen: versions[chosen], name: versions[name]}, op_name).split("+"),
              versions[chosen], versions[name]) for name in names]
    sigma = any("\u03a3" in text for text in all_strings(args))
    return lambda ch: any(_differs_between(ch, steps, mine, theirs, sigma) for steps, mine, theirs in pairs)


def own_details(impls: dict[str, Testee], op_name: str, args: dict[str, Any], cause: str, divergent_names: list[str],
                versions: dict[str, dict[str, str]], responses: Responses | None = None) -> dict[str, str | None]:
    """Each divergent implementation's own share of a version skew, checked against the oracle alone.

    With the reference at 14.0/18.0, Pyodide at 16.0/16.0 and Rust at 17.0/18.0, one input can skew
    Pyodide in both steps and Rust in case mapping only. An implementation's own detail is the steps in
    which its versions differ from the oracle's for the input's characters, and only if replacing just the
    characters whose data differs between the two of them in those steps makes it agree with the oracle, or
    changes the difference into the one characters every side knows give there (``accounted_by_peeling``);
    otherwise it is ``UNEXPLAINED`` (a bug of its own next to the skew: no entry covers it). Empty for
    every other cause. ``responses``: the implementations' answers to the input, where the caller has them."""
    chosen = oracle_name(op_name)
    if cause != SKEW or chosen not in versions or chosen not in impls:
        return {}
    out: dict[str, str | None] = {}
    for name in divergent_names:
        mine, theirs = versions[chosen], versions.get(name, {})
        steps = skew_steps(args, {chosen: mine, name: theirs}, op_name)
        if steps == "properties" or name not in impls:
            out[name] = UNEXPLAINED
            continue
        pair = {chosen: impls[chosen], name: impls[name]}
        theirs = {key: responses[key] for key in pair} if responses and all(key in responses for key in pair) \
            else None
        settled = accounted_by_peeling(pair, op_name, args, skewed_between(op_name, args, [name], versions), versions,
                                       theirs)
        out[name] = steps if settled else UNEXPLAINED
    return out


def own_details_at(impls: dict[str, Testee], op_name: str, args: dict[str, Any], cause: str, detail: str | None,
                   step: str | None, divergent_names: list[str],
                   versions: dict[str, dict[str, str]]) -> dict[str, str | None]:
    """``own_details`` for a skew the step traces named (one Unicode step, ``detail``, where they part): an
    implementation whose divergence goes away with just the characters whose data for that step differs
    between its version and the oracle's replaced has that step alone as its share, whatever else its
    versions differ in (a mark whose NFC data changed but that this input never composes); otherwise its
    share is the counterfactual one (both steps, or unexplained)."""
    coarse = own_details(impls, op_name, args, cause, divergent_names, versions)
    chosen = oracle_name(op_name)
    if cause != SKEW or step is None or len(steps_of(detail)) != 1 or chosen not in impls:
        return coarse
    out: dict[str, str | None] = {}
    for name in divergent_names:
        mine, theirs = versions.get(chosen, {}).get(detail), versions.get(name, {}).get(detail)
        if name not in impls or not mine or not theirs or mine == theirs or \
                not (unicode_tables.has(mine, detail) and unicode_tables.has(theirs, detail)):
            out[name] = coarse.get(name, UNEXPLAINED)
            continue
        skewed = unicode_tables.differing_set(detail, mine, theirs)
        settled = settled_by_peeling({chosen: impls[chosen], name: impls[name]}, op_name, args,
                                     lambda ch, skewed=skewed: ord(ch) in skewed, versions)
        out[name] = detail if settled else coarse.get(name, UNEXPLAINED)
    return out


def skewed_at(detail: str | None, op_name: str, args: dict[str, Any], oracle: str, members: list[str],
               versions: dict[str, dict[str, str]]) -> Any:
    """The characters a skew the traces named at one Unicode step is about: those whose data for that step
    differs between the oracle's version and a member's (so a second skew, in another step, or a bug is left
    to name); every character whose data differs in some step where a version has no table."""
    data = detail or ""
    mine = versions.get(oracle, {}).get(data)
    points: set[int] = set()
    for name in members:
        theirs = versions.get(name, {}).get(data)
        if not (mine and theirs and unicode_tables.has(mine, data) and unicode_tables.has(theirs, data)):
            return skewed_between(op_name, args, members, versions)
        points |= unicode_tables.differing_set(data, mine, theirs)
    return lambda ch: ord(ch) in points





def behind_a_skew(impls: dict[str, Testee], op_name: str, args: dict[str, Any], oracle: str, name: str,
                   traced: dict[str, Any], versions: dict[str, dict[str, str]]) -> TraceCause | None:
    """The skew an implementation's output divergence comes from when its traces part first elsewhere: a
    difference the output does not show (the oracle's own bug in a step whose result this input never uses)
    can come before the Unicode step that decides it. When the implementation reads the input's characters
    with other data than the oracle, and with just those characters replaced it agrees, the divergence is
    that skew, named where the Unicode steps of the two traces part; None otherwise."""
    first = cause_from_traces(op_name, traced[oracle], traced[name], args, versions.get(oracle, {}),
                              versions.get(name, {}))
    if first is None or first.cause == SKEW:
        return None
    skewed = skewed_between(op_name, args, [name], versions)
    if not any(skewed(ch) for text in all_strings(args) for ch in text):
        return None
    if not settled_by_peeling({oracle: impls[oracle], name: impls[name]}, op_name, args, skewed, versions):
        return None
    seen = cause_from_traces(op_name, *by_input(unicode_steps_only(traced[oracle]), unicode_steps_only(traced[name])),
                             args, versions.get(oracle, {}), versions.get(name, {}))
    return seen if seen is not None and seen.cause == SKEW else None


def masked(op_name: str, args: dict[str, Any], present: Any, names: Any,
           versions: dict[str, dict[str, str]], skew: str | None = None) -> frozenset[str]:
    """The implementations of ``present`` outside the share ``names`` that read some of the input's characters
    with other Unicode data than the oracle: whether they have the share's bug this input cannot tell (the
    skew can hide it, as Pyodide's NFC of 16.0 leaves a reordered candidate unequal to the text like a buggy
    raw comparison of the oracle does; or it shows as a skew share of their own), so a class seen without them
    is still the same class (``ClassBook``, like a host that could not be sent the input).

    ``skew``: for a share that is a version skew, its Unicode step(s): an implementation whose version of that
    data differs from the oracle's agrees on this witness only because its data has these characters as the
    oracle's does (a reference with NFC of 14.0 against Rust's 18.0 and Pyodide's 16.0: a mark new in 17.0
    skews Rust alone), so it is no evidence either."""
    oracle = oracle_name(op_name)
    chars = {ch for text in all_strings(args) for ch in text}
    steps = list(steps_of(skew))
    out = set()
    for name in present:
        if name == oracle or name in names:
            continue
        mine, theirs = versions.get(oracle, {}), versions.get(name, {})
        if any(mine.get(step) != theirs.get(step) for step in steps):
            out.add(name)
            continue
        skewed = skewed_between(op_name, args, [name], versions)
        if any(skewed(ch) for ch in chars):
            out.add(name)
    return frozenset(out)


def unicode_steps_only(trace: dict[str, Any]) -> dict[str, Any]:
    """The trace with only its args and the steps that read Unicode data (those declaring a property; NFC,
    lowercase)."""
    titles = step_titles()
    kept = [entry for number, entry in enumerate(trace["steps"])
            if number == 0 or (str(entry.get("step", "")) in titles and step_property(str(entry.get("step"))))]
    return {**trace, "steps": kept}


def _read_as(value: Any) -> str:
    """What of a Unicode step's input string no Unicode version changes: its canonical decomposition (by the
    newest data here) with each base character's marks sorted by code point, since versions differ in a mark's
    combining class and so in the order NFC leaves marks in (a composition new in a later version is never
    made: Unicode's normalization stability)."""
    if not isinstance(value, str):
        return json.dumps(value, sort_keys=True, ensure_ascii=True, default=str)
    out: list[str] = []
    marks: list[str] = []
    for ch in unicodedata2.normalize("NFD", value):
        if unicodedata2.combining(ch) or unicodedata2.category(ch).startswith("M"):
            marks.append(ch)
            continue
        out += sorted(marks)
        marks = []
        out.append(ch)
    return "".join(out + sorted(marks))


def _input_keys(trace: dict[str, Any]) -> list[tuple[str, str]]:
    """Each Unicode-step entry's step and the string it read: a run of the op's steps in their declared order
    (NFC, lowercase, NFC again) reads one string, and its first entry, NFC's output, says which (``_read_as``)."""
    order = {step.id: number for op in OPS.values() for number, step in enumerate(op.steps)}
    keys: list[tuple[str, str]] = []
    read, last = "", ""
    for entry in trace["steps"]:
        step = str(entry.get("step"))
        if last not in order or step not in order or order[step] <= order[last]:
            read = _read_as(entry.get("value"))
        keys.append((step, read))
        last = step
    return keys


def by_input(trace_a: dict[str, Any], trace_b: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two traces' Unicode-step entries (``unicode_steps_only``) paired by the string each step read, not by their
    place: a side that normalized its strings in another order, or one string more (a reference checking the text
    before the candidates), holds at the n-th NFC another string than the other side. Entries are matched in
    order, as difflib matches their keys (``_input_keys``); an entry with no partner is left out of both."""
    blocks = SequenceMatcher(None, _input_keys(trace_a), _input_keys(trace_b), autojunk=False).get_matching_blocks()
    kept_a = [trace_a["steps"][block.a + k] for block in blocks for k in range(block.size)]
    kept_b = [trace_b["steps"][block.b + k] for block in blocks for k in range(block.size)]
    return {**trace_a, "steps": kept_a}, {**trace_b, "steps": kept_b}
