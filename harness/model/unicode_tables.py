"""The per-version Unicode tables of data/unicode-tables/ (harness/tools/make_unicode_tables.py), read
character by character: does the data a step reads differ for this code point between two versions?

Only the data the contract's Unicode-dependent steps read counts:

* ``normalization``: the canonical combining class, the canonical decomposition, whether NFC leaves
  the decomposition apart (a composition exclusion), and the composites the code point is a part of;
* ``case_mapping``: the unconditional full lowercase mapping, Cased and Case_Ignorable (the final-sigma
  context);
* ``general_category``: the General_Category (``Cn`` where the version leaves the code point unassigned);
* ``white_space``: the White_Space property.

These are the Unicode properties a family's step may declare it reads (family-v2 ``"unicode"``, ``PROPERTIES``);
an implementation reports the version it reads each one with. Nothing else counts: a code point assigned in one
version and not in another, with no such data in either (a new Lo letter, a Hangul syllable), does not differ for
normalization or case mapping; it does differ for general_category (Cn in one, Lo in the other).
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from functools import cache

from harness.model import untrusted
from harness.model.paths import DATA
from harness.model.status import UsageError

TABLES = DATA / "unicode-tables"
# The Unicode properties a step can declare it reads (family-v2 step "unicode"), each with data per version here.
PROPERTIES = ("normalization", "case_mapping", "general_category", "white_space")
# The older name, for its callers (a sweep's hints, the fixture generators' stability): memgate's two, as before;
# a caller meaning every property a step can declare reads PROPERTIES.
STEPS = ("normalization", "case_mapping")
# The schemas of a table file: v1 holds normalization and case mapping, v2 general_category and white_space too.
SCHEMAS = ("unicode-tables-v1", "unicode-tables-v2")
VERSION = re.compile(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}")


class MissingTable(LookupError):
    """No table for that version, or that version's table has no data for that step."""


class NoTableForVersion(UsageError):
    """An implementation reads a Unicode version the harness has no table of: a configuration error
    (status 2) naming the version and the command that makes its table, before anything is compared (its
    skews could only be guessed at, and every guess would be a new class)."""


def require(versions: dict[str, dict[str, str]]) -> None:
    """Raise NoTableForVersion when an implementation reports, for a property the tables hold (``PROPERTIES``), a
    Unicode version (``15.1.0``) with no table of that property's data. A step it does not report, or reports as
    no version (a black box's own words), is left to the black-box heuristics."""
    missing: dict[str, list[str]] = {}
    for name, reported in sorted(versions.items()):
        for step in PROPERTIES:
            version = reported.get(step) if isinstance(reported, dict) else None
            if isinstance(version, str) and VERSION.fullmatch(version) and not has(version, step):
                missing.setdefault(version, []).append(f"{name} ({step})")
    if missing:
        said = "; ".join(f"Unicode {version} read by {', '.join(who)}" for version, who in sorted(missing.items()))
        made = ",".join(sorted(missing))
        raise NoTableForVersion(
            f"no Unicode table for {said}: the harness knows {', '.join(sorted(available(), key=version_key))} "
            f"(data/unicode-tables/). Make it with `python -m harness.tools.make_unicode_tables --versions {made}`, "
            "commit it, and run `python -m harness expected update` for the skews it explains")


def _contains(ranges: list[tuple[int, int]], starts: list[int], cp: int) -> bool:
    at = bisect.bisect_right(starts, cp) - 1
    return at >= 0 and ranges[at][0] <= cp <= ranges[at][1]


@dataclass(frozen=True)
class Table:
    version: str
    ccc: dict[int, int] | None
    canonical: dict[int, tuple[int, ...]] | None
    excluded: frozenset[int] | None
    composites_of: dict[int, tuple[int, ...]] | None  # a code point -> the composites it is a part of
    lower: dict[int, tuple[int, ...]]
    cased: list[tuple[int, int]]
    cased_starts: list[int]
    ignorable: list[tuple[int, int]]
    ignorable_starts: list[int]
    assigned: list[tuple[int, int]]
    assigned_starts: list[int]
    # General_Category as sorted (first, last, short name) ranges, Cn left out; None in a v1 table
    categories: tuple[tuple[int, int, str], ...] | None = None
    category_starts: tuple[int, ...] = ()
    white: tuple[tuple[int, int], ...] | None = None  # White_Space as sorted ranges; None in a v1 table
    white_starts: tuple[int, ...] = ()

    def is_assigned(self, cp: int) -> bool:
        """Whether ``cp`` is assigned in this version (not Cn; surrogates and private use count)."""
        return _contains(self.assigned, self.assigned_starts, cp)

    def category(self, cp: int) -> str:
        """``cp``'s General_Category in this version (Cn: unassigned)."""
        if self.categories is None:
            raise MissingTable(f"Unicode {self.version}: the table has no general_category data")
        at = bisect.bisect_right(self.category_starts, cp) - 1
        if at >= 0 and self.categories[at][0] <= cp <= self.categories[at][1]:
            return self.categories[at][2]
        return "Cn"

    def data(self, cp: int, step: str) -> tuple:
        """What `step` reads of `cp` in this version."""
        if step == "general_category":
            return (self.category(cp),)
        if step == "white_space":
            if self.white is None:
                raise MissingTable(f"Unicode {self.version}: the table has no white_space data")
            return (_contains(list(self.white), list(self.white_starts), cp),)
        if step == "case_mapping":
            return (self.lower.get(cp, (cp,)), _contains(self.cased, self.cased_starts, cp),
                    _contains(self.ignorable, self.ignorable_starts, cp))
        if step == "normalization":
            if self.ccc is None or self.canonical is None or self.excluded is None or self.composites_of is None:
                raise MissingTable(f"Unicode {self.version}: the table has no normalization data")
            return (self.ccc.get(cp, 0), self.canonical.get(cp), cp in self.excluded, self.composites_of.get(cp, ()))
        raise ValueError(f"unknown Unicode property {step!r}; known: {', '.join(PROPERTIES)}")


def available() -> list[str]:
    return sorted(path.stem for path in TABLES.glob("*.json"))


@cache
def table(version: str) -> Table:
    path = TABLES / f"{version}.json"
    if not path.is_file():
        raise MissingTable(f"no Unicode table for {version} in {TABLES} (python -m harness.tools.make_unicode_tables "
                           f"--versions {version}); have: {', '.join(available()) or 'none'}")
    document = json.loads(untrusted.read_bounded(path, "Unicode table").decode("ascii"))  # a regular file, bounded
    if document.get("schema") not in SCHEMAS:
        raise MissingTable(f"{path}: schema {document.get('schema')!r}, not one of {', '.join(SCHEMAS)} "
                           f"(python -m harness.tools.make_unicode_tables --versions {version})")
    norm, case = document["normalization"], document["case_mapping"]
    composites: dict[int, list[int]] = {}
    canonical = None if norm is None else {int(cp): tuple(parts) for cp, parts in norm["canonical"].items()}
    for composite, parts in (canonical or {}).items():
        for part in parts:
            composites.setdefault(part, []).append(composite)
    cased = [tuple(r) for r in case["cased"]]
    ignorable = [tuple(r) for r in case["case_ignorable"]]
    assigned = [tuple(r) for r in document["assigned"]]
    by_category = document.get("general_category")
    categories = None if by_category is None else tuple(sorted(
        (first, last, name) for name, held in by_category.items() for first, last in held))
    white = None if document.get("white_space") is None else tuple(tuple(r) for r in document["white_space"])
    return Table(
        version=version,
        ccc=None if norm is None else {int(cp): value for cp, value in norm["ccc"].items()},
        canonical=canonical,
        excluded=None if norm is None else frozenset(norm["excluded"]),
        composites_of=None if norm is None else {part: tuple(sorted(c)) for part, c in composites.items()},
        lower={int(cp): tuple(to) for cp, to in case["lower"].items()},
        cased=cased, cased_starts=[r[0] for r in cased],  # type: ignore[misc]
        ignorable=ignorable, ignorable_starts=[r[0] for r in ignorable],  # type: ignore[misc]
        assigned=assigned, assigned_starts=[r[0] for r in assigned],  # type: ignore[misc]
        categories=categories, category_starts=tuple(r[0] for r in categories or ()),
        white=white, white_starts=tuple(r[0] for r in white or ()),  # type: ignore[arg-type]
    )


def oldest() -> str:
    """The oldest Unicode version there is a table for."""
    found = sorted(available(), key=version_key)
    if not found:
        raise MissingTable(f"no Unicode tables in {TABLES} (python -m harness.tools.make_unicode_tables)")
    return found[0]


def version_key(version: str) -> tuple[int, ...]:
    """A version's sort key: 15.1.0 after 15.0.0, 100.0.0 after 99.0.0."""
    return tuple(int(part) if part.isdigit() else -1 for part in version.split("."))


def has(version: str, step: str) -> bool:
    """Whether there is a table of `version` with `step`'s data."""
    try:
        table(version).data(0, step)
    except MissingTable:
        return False
    return True


def differs(cp: int, step: str, a: str, b: str) -> bool:
    """Whether what `step` reads of code point `cp` differs between Unicode versions `a` and `b`."""
    return a != b and table(a).data(cp, step) != table(b).data(cp, step)


def in_context(cp: int, step: str, versions: list[str]) -> bool:
    """Whether `cp` belongs to the context `step` reads around a character, in any of `versions` that has a
    table: for normalization a non-starter (combining class above 0: NFC reorders and composes across
    them), for case mapping a Case_Ignorable character (the final-sigma context skips them up to the nearest
    cased letter, which bounds it). A property read of one character alone (general_category, white_space)
    has no context."""
    if step not in ("normalization", "case_mapping"):
        return False
    for version in versions:
        try:
            t = table(version)
            if step == "normalization":
                t.data(cp, step)
                if (t.ccc or {}).get(cp, 0) > 0:
                    return True
            elif _contains(t.ignorable, t.ignorable_starts, cp):
                return True
        except MissingTable:
            continue
    return False


def _points(ranges: list[tuple[int, int]]) -> set[int]:
    return {cp for first, last in ranges for cp in range(first, last + 1)}


def _candidates(t: Table, step: str) -> set[int]:
    """Every code point for which `t` holds any `step` data (the others read alike in every version)."""
    if step == "case_mapping":
        return set(t.lower) | _points(t.cased) | _points(t.ignorable)
    t.data(0, step)  # raises MissingTable when the table has no data for the step
    return set(t.ccc or ()) | set(t.canonical or ()) | set(t.excluded or ()) | set(t.composites_of or ())


def _ranged_differences(left: list[tuple[int, int, object]], right: list[tuple[int, int, object]]) -> set[int]:
    """The code points whose value differs between two sorted range maps ((first, last, value), no overlaps; a
    code point no range holds has the value None), walked segment by segment between their boundaries."""
    def at(ranges: list[tuple[int, int, object]], starts: list[int], cp: int) -> object:
        index = bisect.bisect_right(starts, cp) - 1
        return ranges[index][2] if index >= 0 and ranges[index][0] <= cp <= ranges[index][1] else None

    bounds = sorted({0, 0x110000} | {r[0] for r in left + right} | {r[1] + 1 for r in left + right})
    left_starts, right_starts = [r[0] for r in left], [r[0] for r in right]
    out: set[int] = set()
    for first, end in zip(bounds, bounds[1:], strict=False):  # pairs of neighbours
        if at(left, left_starts, first) != at(right, right_starts, first):
            out.update(range(first, end))
    return out


def _range_map(t: Table, step: str) -> list[tuple[int, int, object]]:
    t.data(0, step)  # raises MissingTable when the table has no data for the property
    if step == "general_category":
        return list(t.categories or ())
    return [(first, last, True) for first, last in t.white or ()]


@cache
def differing_set(step: str, a: str, b: str) -> frozenset[int]:
    """The code points whose `step` data differs between Unicode versions `a` and `b`."""
    if a == b:
        return frozenset()
    left, right = table(a), table(b)
    if step in ("general_category", "white_space"):
        return frozenset(_ranged_differences(_range_map(left, step), _range_map(right, step)))
    points = _candidates(left, step) | _candidates(right, step)
    return frozenset(cp for cp in points if left.data(cp, step) != right.data(cp, step))


def differing(step: str, a: str, b: str) -> list[int]:
    """Every code point whose `step` data differs between `a` and `b`, in order (for tools and tests)."""
    return sorted(differing_set(step, a, b))


@cache
def lowercase_differs_set(a: str, b: str) -> frozenset[int]:
    """The code points whose lowercase mapping itself differs between `a` and `b` (not only Cased or
    Case_Ignorable, which matter next to a capital sigma only)."""
    left, right = table(a), table(b)
    return frozenset(cp for cp in differing_set("case_mapping", a, b)
                     if left.lower.get(cp, (cp,)) != right.lower.get(cp, (cp,)))


def matters(cp: int, step: str, a: str, b: str, sigma: bool) -> bool:
    """Whether `cp`'s `step` data differs between `a` and `b` in a way that can change an output: for
    case mapping, its lowercase mapping, or (in a text with a capital sigma) its Cased or Case_Ignorable
    property, the final-sigma context; for normalization, any of its NFC data."""
    if a == b:
        return False
    if step == "case_mapping" and not sigma:
        return cp in lowercase_differs_set(a, b)
    return cp in differing_set(step, a, b)


def declared_properties() -> tuple[str, ...]:
    """The Unicode properties the registered ops read (``Op.unicode_steps``, from their steps' ``unicode``), in
    ``PROPERTIES`` order: the ones in play when no implementation reports its versions."""
    from harness.model.registry import OPS  # the registry reads families; this module is read by them

    declared = {prop for op in OPS.values() for prop in op.unicode_steps}
    return tuple(prop for prop in PROPERTIES if prop in declared)


def sensitive_anywhere(properties: tuple[str, ...] | None = None) -> frozenset[int]:
    """Code points whose data differs, in some property of ``properties`` (None: those the registered ops
    declare, ``declared_properties``), between two of the versions there are tables for (each property over the
    versions whose table has its data)."""
    return _sensitive_anywhere(declared_properties() if properties is None else tuple(properties))


@cache
def _sensitive_anywhere(properties: tuple[str, ...]) -> frozenset[int]:
    out: set[int] = set()
    versions = available()
    for step in properties:
        with_data = [version for version in versions if has(version, step)]
        for i, a in enumerate(with_data):
            for b in with_data[i + 1:]:
                out |= differing_set(step, a, b)
    return frozenset(out)
