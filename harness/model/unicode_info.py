"""What the harness can say about a code point: name, category, and whether each implementation's
Unicode data (as it reports it, per property: ``unicode_versions()``, its start answer, its declaration) has it
assigned."""

from __future__ import annotations

import bisect
import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import unicodedata2

from harness.model.paths import DATA

AGE_TABLE = DATA / "unicode-age.json"
_VERSION = re.compile(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}")  # a Unicode version (unicode_tables.VERSION)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@lru_cache(maxsize=1)
def _ages() -> tuple[str, list[int], list[tuple[int, int, str]]]:
    document = json.loads(AGE_TABLE.read_text(encoding="ascii"))
    ranges = [tuple(r) for r in document["ranges"]]
    return document["base"], [r[0] for r in ranges], ranges  # type: ignore[return-value]


def is_surrogate(cp: int) -> bool:
    """A surrogate code point (U+D800..U+DFFF): never a character, only a lone half in a host string."""
    return 0xD800 <= cp <= 0xDFFF


_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogate(text: str) -> bool:
    """Whether a (Python) string holds a lone surrogate."""
    return _SURROGATE.search(text) is not None


def age(cp: int) -> str | None:
    """The Unicode version that assigned ``cp`` (base version for anything older), None if unassigned."""
    base, starts, ranges = _ages()
    index = bisect.bisect_right(starts, cp) - 1
    if index >= 0 and ranges[index][0] <= cp <= ranges[index][1]:
        return ranges[index][2]
    if is_surrogate(cp):
        return None
    return base if unicodedata.category(chr(cp)) != "Cn" else None


def assigned_in(cp: int, version: str) -> bool | None:
    """Whether ``cp`` is assigned in Unicode ``version``; None when the tables cannot tell."""
    assigned = age(cp)
    if assigned is None:
        newest = unicodedata2.unidata_version
        return False if _version_key(version) <= _version_key(newest) else None
    return _version_key(assigned) <= _version_key(version)


@dataclass(frozen=True)
class CharInfo:
    """What a report says of one code point (its JSON form: harness/classes/record.py)."""

    code_point: str  # "U+00E9"
    name: str
    general_category: str
    age: str | None
    versions: dict[str, dict[str, str]]  # implementation -> step -> "15.0 (assigned)"


def describe(cp: int, versions: dict[str, dict[str, str]]) -> CharInfo:
    """One code point as a report shows it; ``versions`` maps implementation -> its unicode_versions()."""
    ch = chr(cp)
    surrogate = is_surrogate(cp)
    name = "" if surrogate else unicodedata2.name(ch, "")
    if not name:
        name = "<lone surrogate>" if surrogate else ("<control>" if unicodedata2.category(ch) == "Cc" else "<unnamed>")
    per_impl: dict[str, dict[str, str]] = {}
    for impl, steps in versions.items():
        per_impl[impl] = {}
        for step, version in steps.items():
            if not isinstance(version, str) or not _VERSION.fullmatch(version):
                continue  # no Unicode data (memgate's "white_space": "contract-v1", the contract's own set)
            state = assigned_in(cp, version)
            label = {True: "assigned", False: "unassigned", None: "unknown"}[state]
            per_impl[impl][step] = f"{version} ({label})"
    return CharInfo(f"U+{cp:04X}", name, "Cs" if surrogate else unicodedata2.category(ch), _age_label(cp), per_impl)


def _age_label(cp: int) -> str | None:
    assigned = age(cp)
    if assigned is not None and assigned == _ages()[0]:
        return f"{assigned} or earlier"
    return assigned


def interesting(cp: int) -> bool:
    """Worth listing in a report: anything outside printable ASCII."""
    return not 0x20 < cp < 0x7F
