"""Expected divergences: one declarative file per implementation (``expected/<impl>.json``,
``expected-divergences-v2``), like a conformance suite's failure list.

An entry names an op, a cause (and its detail), the step where the traces part (null for a black box, whose
cause counterfactuals name), the characters it is about (code points and ranges; for a Unicode version skew,
every code point whose data for that step differs between the two implementations' versions) and a witness
input. During a run, a divergence of that implementation is *expected* only when an entry explains it
entirely: the same op, cause and detail, the same step, and every character the cause is about among the
entry's. So a bug next to the skew an entry lists (other characters, another step) is new. Every entry is
also re-checked on its witness: if the witness no longer diverges (an unexpected pass), diverges for another
cause, at another step or about characters the entry lacks, or the entry names an unknown op (stale), the
run fails until the file is updated (``python -m harness expected update``, which also migrates a v1 list: it
fills in each entry's step and characters from its witness).

A list is read whole or not at all (``read_list``, through the untrusted reader): a file that is not a
valid list (not JSON, cut short, too deep, NaN, another schema, entries that break it) is a configuration
error, BadDocument (status 2, the file and the problem named), never a problem of the run that would leave
the divergences it lists reported new. Lists are written only over lists (``files.check_replaceable``).

Every lookup is by (implementation, op, cause, detail, step) (``ExpectedSet.find``): three entries of one cause at
three steps, as ``expected update`` writes them, each cover the class at their own step, in any order.

``expected update`` makes a list only where it has something to list, at the path the implementation's
declaration names (``"expected"``), else in the project's ``expected/``, but never in the harness's own tree for a
declaration that is not the harness's (an outside family's, run with the harness's checkout as the project): that
one is told to name a list, and nothing of an outside family's run is written into the harness's ``expected/``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import jsonschema

from harness.classes.examine import examine_all
from harness.classes.key import class_step
from harness.classes.record import EXPECTED, NEW, ClassRecord, Coverage
from harness.differential.counterfactual.skew import SKEW, UNEXPLAINED, entry_details, steps_of
from harness.differential.explain import char_ranges, parse_char_ranges
from harness.differential.outcomes import observe
from harness.model import hostvalues, paths, unicode_tables, untrusted
from harness.model.files import atomic_write
from harness.model.paths import SCHEMAS
from harness.model.registry import OPS
from harness.model.untrusted import BadDocument
from harness.testees.fanout import serves
from harness.testees.impls import ImplementationUnavailable, declaration, oracle, platform_versions
from harness.testees.testee import Testee

EXPECTED_DIR = paths.EXPECTED
SCHEMA = SCHEMAS / "expected-divergences-v2.schema.json"
SCHEMA_V1 = SCHEMAS / "expected-divergences-v1.schema.json"  # still read: `expected update` migrates it


@dataclass(frozen=True)
class Entry:
    impl: str
    id: str
    op: str
    cause: str
    args: dict[str, Any]  # host-value encoded
    note: str
    detail: str | None = None
    step: str | None = None  # where the traces part; None: a black box's divergence (no step)
    characters: frozenset[int] | None = None  # what it is about; None only in a v1 list (to migrate)

    def matches(self, op: str, cause: str, detail: str | None) -> bool:
        return self.op == op and self.cause == cause and (self.detail is None or self.detail == detail)

    def at(self, step: str | None) -> bool:
        """Whether it names the divergence's step (as ``class_step`` knows steps: every JSON argument's parse is
        one, a cause of ``STEPLESS_CAUSES`` has none). An entry whose step is null is a black box's: it is at
        no step but a divergence's that has none. A v1 entry (no step, no characters) is at every step:
        loading said to migrate it."""
        if self.characters is None:
            return True
        return class_step(self.step, self.cause) == class_step(step, self.cause)

    def explains(self, step: str | None, points: Iterable[int]) -> bool:
        """Whether its step is the divergence's and it lists every character (code point) the divergence is
        about."""
        if self.characters is None:  # a v1 entry: loading said to migrate it
            return True
        return self.at(step) and set(points) <= self.characters


class ExpectedSet:
    def __init__(self, entries: list[Entry], problems: list[str]) -> None:
        self.entries = entries
        self.problems = problems  # stale or malformed entries, found while loading

    def find(self, impl: str, op: str, cause: str, detail: str | None, step: str | None) -> list[Entry]:
        """Every entry of ``impl`` for (op, cause, detail) at ``step`` (``Entry.at``), in the lists' order. Never
        the first of one cause alone: three entries of one cause at three steps (as ``expected update`` writes
        them) each cover their own step, whatever their order."""
        return [entry for entry in self.entries
                if entry.impl == impl and entry.matches(op, cause, detail) and entry.at(step)]

    def covers(self, divergent: Sequence[str], op: str, cause: str, detail: str | None,
               own: dict[str, str | None] | None = None, step: str | None = None,
               points: Iterable[int] = ()) -> Entry | None:
        """The first of ``covering``'s entries, or None."""
        entries = self.covering(divergent, op, cause, detail, own, step, points)
        return entries[0] if entries else None

    def covering(self, divergent: Sequence[str], op: str, cause: str, detail: str | None,
                 own: dict[str, str | None] | None = None, step: str | None = None,
                 points: Iterable[int] = ()) -> list[Entry]:
        """Every entry covering a divergence (each divergent implementation's), when every divergent
        implementation lists it, at its step, with every character (``points``) it is about
        (``Entry.explains``); otherwise none.

        Each lookup is by (implementation, op, cause, detail, step): of several entries of one cause, those at
        the divergence's step, and of them the ones that list its characters (the first that lists them all,
        else those that list some, when together they list them all).

        ``own``: an implementation's own detail where it is narrower than the divergence's (see
        ``counterfactual.skew.own_details``: a skew in two Unicode steps, where one implementation differs from the
        oracle in one step only). A version skew in several steps is covered when the implementation
        lists each of its steps (one entry per step); nothing else is split. The part the traces saw (the
        whole divergence, or the Unicode step of a skew where they part) is looked up at the divergence's step;
        the other Unicode steps of a skew in several part later, at steps this divergence does not name: each
        is looked up by its own detail (its entry names the step where it parts on its own witness)."""
        found: list[list[Entry] | None] = []
        points = frozenset(points)
        for impl in divergent:
            mine = (own or {}).get(impl, detail)
            if mine == UNEXPLAINED:  # its share of a skew is not one: a bug of its own, never covered
                found.append(None)
                continue
            parts = entry_details(cause, mine)
            seen = [part for part in parts if part == detail] or parts  # the parts the traces saw at this step
            candidates = [self.find(impl, op, cause, part, step) if part in seen else
                          [e for e in self.entries if e.impl == impl and e.matches(op, cause, part)]
                          for part in parts]
            found.append(_listing(candidates, points) if candidates and all(candidates) else None)
        return [entry for entries in found for entry in entries or []] if found and all(found) else []


def _listing(candidates: list[list[Entry]], points: frozenset[int]) -> list[Entry] | None:
    """The entries that cover a share, one list of candidates per part (each at its step): each part's first
    candidate that lists every character the share is about, else the candidates that list some of them, when
    all the parts' together list every one (a v1 entry lists them all); None when they do not."""
    if any(entry.characters is None for part in candidates for entry in part):
        return [next(e for e in part if e.characters is None) if any(e.characters is None for e in part)
                else part[0] for part in candidates]
    listed: set[int] = set()
    chosen: list[Entry] = []
    for part in candidates:
        whole = next((e for e in part if points <= (e.characters or frozenset())), None)
        some = [e for e in part if points & (e.characters or frozenset())]
        picked = [whole] if whole is not None else some or [part[0]]
        chosen += picked
        listed.update(*(e.characters or frozenset() for e in part))
    return chosen if points <= listed else None


def cover(expected: ExpectedSet, record: ClassRecord) -> Coverage:
    """A record's coverage by the lists (the one place that decides new or expected): a pure function of the
    lists and the record, which it changes in nothing. Its own details were worked out when it was made
    (harness/classes/examine.py, ``worked_out``) and are kept; every divergent implementation must list its
    share. Nothing is asked of an implementation here."""
    own = record.coverage.own_details
    entries = expected.covering(record.divergent, record.op, record.cause, record.detail, own, record.step,
                                record.characters)
    names = tuple(dict.fromkeys(f"{entry.impl}/{entry.id}" for entry in entries))
    return Coverage(EXPECTED if entries else NEW, names, dict(own))


def covered(expected: ExpectedSet, record: ClassRecord) -> ClassRecord:
    """The record with its coverage by the lists (``cover``): a new value, the record given is as it was."""
    return replace(record, coverage=cover(expected, record))


def path_for(impl: str, directory: Path | None = None) -> Path:
    """The implementation's list: the one its declaration names, or ``<directory>/<impl>.json``."""
    if directory is not None:
        return directory / f"{impl}.json"
    try:
        declared = declaration(impl).expected
    except ImplementationUnavailable:
        declared = None
    return declared or EXPECTED_DIR / f"{impl}.json"


def new_list_path(impl: str, directory: Path | None = None) -> Path | str:
    """Where a list not yet written may be made, or why none may: the path its declaration names
    (``"expected"``), else the project's ``expected/<impl>.json`` (the schema's meaning of ``"expected": null``),
    unless that is the harness's own tree (the project found is the harness's checkout) and the declaration is
    not one of its own (``PARITY_IMPLEMENTATIONS``: an outside op family's, whose oracle says null): nothing of an
    outside family's run is written into the harness's ``expected/``."""
    if directory is not None:
        return directory / f"{impl}.json"
    try:
        declared = declaration(impl)
    except ImplementationUnavailable:
        return EXPECTED_DIR / f"{impl}.json"
    if declared.expected is not None:
        return declared.expected
    own = declared.source.parent.resolve() == paths.IMPLEMENTATIONS.resolve()
    if own or not EXPECTED_DIR.resolve().is_relative_to(paths.SOURCE.resolve()):
        return EXPECTED_DIR / f"{impl}.json"
    return (f"its declaration ({declared.source}) names no expected list (\"expected\": null); name one there "
            f"(\"{{here}}/expected/{impl}.json\") to keep its expected divergences")


WHAT = "list of expected divergences"
KINDS = ("expected-divergences-v2", "expected-divergences-v1")  # what a list is; what `expected update` replaces


def _validators() -> dict[str, Any]:
    return {version: jsonschema.Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))
            for version, path in (("expected-divergences-v2", SCHEMA), ("expected-divergences-v1", SCHEMA_V1))}


def _bad(path: Path, problem: str) -> BadDocument:
    return BadDocument(f"{path}: not a valid {WHAT}: {problem}; fix the file by hand (docs/fuzzing.md, "
                       "'Expected divergences'), or remove it")


def read_list(path: Path, impl: str, validators: dict[str, Any] | None = None) -> dict[str, Any]:
    """The expected list at ``path`` of ``impl``, whole and valid, or BadDocument (status 2) naming the file and
    the problem: unreadable, not JSON (cut short, NaN, a key twice, a BOM), nested too deep, another schema,
    entries that break it, another implementation's name, an entry id twice, characters or a witness that do
    not parse. Never a part of a list: a run judges nothing against a list it could not read whole."""
    document = untrusted.read_document(path, WHAT, unique_keys=True, max_depth=untrusted.MAX_DEPTH)  # args only
    validators = validators or _validators()
    version = document.get("schema")
    if not isinstance(version, str) or version not in validators:
        said = json.dumps(version, ensure_ascii=True)[:80] if "schema" in document else "missing"
        raise _bad(path, f"its schema is {said}, not {' or '.join(KINDS)}")
    errors = sorted(validators[version].iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        where = "/".join(map(str, errors[0].absolute_path)) or "(the top level)"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise _bad(path, f"at {where}: {errors[0].message[:200]}{more}")
    if document["implementation"] != impl:
        raise _bad(path, f"it names implementation {document['implementation']!r}, not {impl!r}")
    seen: set[str] = set()
    for raw in document["entries"]:
        if raw["id"] in seen:
            raise _bad(path, f"the entry id {raw['id']!r} twice")
        seen.add(raw["id"])
        try:
            if "characters" in raw:
                parse_char_ranges(raw["characters"])
        except ValueError as exc:
            raise _bad(path, f"entry {raw['id']!r}: characters: {exc}") from None
        try:
            hostvalues.decode_args(raw["args"])
        except ValueError as exc:
            raise _bad(path, f"entry {raw['id']!r}: args: {exc}") from None
    return document


def load(impls: list[str], directory: Path | None = None) -> ExpectedSet:
    """Every implementation's expected list (none where it has no file). A list that is not a valid one is
    BadDocument (status 2, ``read_list``): nothing is run against a part of the lists. What loads but is out
    of date is a problem of the run (a stale entry naming an op the registry lacks, a v1 list to migrate)."""
    validators = _validators()
    entries: list[Entry] = []
    problems: list[str] = []
    for impl in impls:
        path = path_for(impl, directory)
        if not path.exists() and not path.is_symlink():
            continue
        document = read_list(path, impl, validators)
        if document["schema"] == "expected-divergences-v1":
            problems.append(f"{path.name}: an expected-divergences-v1 list, whose entries name no step and no "
                            "characters: migrate it with `python -m harness expected update`")
        for raw in document["entries"]:
            if raw["op"] not in OPS:
                problems.append(f"{path.name}: stale entry {raw['id']!r}: unknown op {raw['op']!r}")
                continue
            characters = parse_char_ranges(raw["characters"]) if "characters" in raw else None
            entries.append(Entry(impl, raw["id"], raw["op"], raw["cause"], raw["args"], raw["note"],
                                 raw.get("detail"), raw.get("step"), characters))
    return ExpectedSet(entries, problems)


def recheck(expected: ExpectedSet, impls: dict[str, Testee], versions: dict[str, dict[str, str]]) -> list[str]:
    """Run every entry's witness again; problems for unexpected passes and changed causes."""
    return [message for message, _ in recheck_detailed(expected, impls, versions)]


def recheck_detailed(expected: ExpectedSet, impls: dict[str, Testee],
                     versions: dict[str, dict[str, str]]) -> list[tuple[str, dict[str, str] | None]]:
    """(message, {"impl", "id"} for an unexpected pass else None) for every problem."""
    problems: list[tuple[str, dict[str, str] | None]] = [(p, None) for p in expected.problems]
    for entry in expected.entries:
        if entry.impl not in impls:
            continue
        try:
            args = hostvalues.decode_args(entry.args)
        except ValueError as exc:
            problems.append((f"{entry.impl}/{entry.id}: stale entry, bad witness args: {exc}", None))
            continue
        # The share of the witness's divergence this implementation is in (explain.name_shares).
        divergence = next((d for d in examine_all(impls, entry.op, args, versions) if entry.impl in d.divergent),
                          None)
        if divergence is None and entry.impl not in observe(impls, entry.op, args):
            # Never advice to delete a correct entry: a witness it did not answer (taken out of the run, a fault,
            # work the budget cut) or an op it does not serve says nothing about the entry.
            why = (f"its declaration does not serve {entry.op} (an entry it can never match: remove it only if "
                   "it is not to serve the op)" if not serves(entry.impl, entry.op) else
                   "it gave no answer to the witness (taken out of the run, or a fault: see the findings)")
            problems.append((f"{entry.impl}/{entry.id}: not checked: {why}; the entry is kept", None))
        elif divergence is None:
            problems.append((f"{entry.impl}/{entry.id}: unexpected pass: the witness no longer diverges; "
                             "remove the entry (python -m harness expected update)",
                             {"impl": entry.impl, "id": entry.id}))
        else:
            # Its own share of the divergence (a skew in two steps: one entry per step, each matching).
            mine = divergence.coverage.own_details.get(entry.impl, divergence.detail)  # examine.worked_out
            parts = entry_details(divergence.cause, mine)
            if not any(entry.matches(entry.op, divergence.cause, part) for part in parts) or mine == UNEXPLAINED:
                problems.append((f"{entry.impl}/{entry.id}: the witness now diverges for {divergence.cause} "
                                 f"({mine}), not {entry.cause} ({entry.detail})", None))
            elif entry.characters is not None and \
                    class_step(entry.step, entry.cause) != class_step(divergence.step, entry.cause):
                problems.append((f"{entry.impl}/{entry.id}: the witness now diverges at step {divergence.step}, "
                                 f"not {entry.step}", None))
            elif not entry.explains(divergence.step, divergence.characters):
                outside = char_ranges(cp for cp in divergence.characters
                                      if entry.characters is not None and cp not in entry.characters)
                problems.append((f"{entry.impl}/{entry.id}: the witness's divergence is about characters the entry "
                                 f"does not list: {', '.join(outside[:8])}", None))
    return problems


def entry_id(op: str, cause: str, args: dict[str, Any]) -> str:
    digest = hashlib.sha256(json.dumps([op, cause, args], sort_keys=True).encode()).hexdigest()[:8]
    return f"{op.replace('_', '-')}-{cause.replace('_', '-')}-{digest}"


def skew_scope(steps: list[str], mine: dict[str, str], theirs: dict[str, str],
               platforms: tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]] = ({}, {})) -> frozenset[int]:
    """Every code point whose data for one of these Unicode steps differs between two implementations'
    versions (data/unicode-tables/; none for a step where one version has no table): the versions they report,
    and for each side the versions it declares for its other platforms (``platforms``: step -> versions), so
    the scope is the same whichever platform works it out."""
    points: set[int] = set()
    for step in steps:
        left = {v for v in (mine.get(step), *platforms[0].get(step, ())) if v}
        right = {v for v in (theirs.get(step), *platforms[1].get(step, ())) if v}
        for a in sorted(left):
            for b in sorted(right):
                if a != b and unicode_tables.has(a, step) and unicode_tables.has(b, step):
                    points |= unicode_tables.differing_set(step, a, b)
    return frozenset(points)


def entry_characters(impl: str, op: str, cause: str, detail: str | None, chars: frozenset[int],
                     versions: dict[str, dict[str, str]]) -> list[str]:
    """What a new or migrated entry lists: the characters its witness's divergence is about, and for a
    version skew every code point whose data for its step differs between the oracle's and its versions, on
    any platform either declares (unicode_platforms: the reference's case mapping on each Python it supports).
    The oracle is ``op``'s (an outside family's own reference, not the first declared one)."""
    if cause == SKEW and detail and detail != UNEXPLAINED:
        steps = list(steps_of(detail))
        against = oracle(op)
        sides = tuple({step: platform_versions(name, step) for step in steps} for name in (against, impl))
        chars = chars | skew_scope(steps, versions.get(against, {}), versions.get(impl, {}), sides)  # type: ignore[arg-type]
    return char_ranges(chars)


def _document(impl: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """A list as written: v2 once every entry names its step and characters (else v1, to migrate)."""
    migrated = all("step" in e and "characters" in e for e in entries)
    return {"schema": "expected-divergences-v2" if migrated else "expected-divergences-v1", "implementation": impl,
            "entries": entries}


def _write(path: Path, document: dict[str, Any]) -> None:
    """Write a list, only over a file that is one already (files.check_replaceable: never another file)."""
    text = json.dumps(document, indent=2, ensure_ascii=True) + "\n"
    try:  # never waits on a FIFO; what is not a list is refused by atomic_write's check below
        unchanged = untrusted.read_bounded(path, WHAT) == text.encode("ascii")
    except BadDocument:
        unchanged = False
    if not unchanged:
        atomic_write(path, text, replaces=KINDS, what=WHAT)


def migrate(impls: dict[str, Testee], versions: dict[str, dict[str, str]],
            directory: Path | None = None) -> list[str]:
    """Give every entry that names no step or characters (a v1 list) those of its witness's divergence, run
    on ``impls``; the list is written as v2 once all its entries have them. Returns what changed."""
    changes: list[str] = []
    validators = _validators()
    lists = {impl: (path, read_list(path, impl, validators))  # every list read whole before anything runs
             for impl in impls if impl != oracle() and (path := path_for(impl, directory)).exists()}
    for impl, (path, document) in lists.items():
        migrated = False
        for raw in document["entries"]:
            if "step" in raw and "characters" in raw:
                continue
            try:
                args = hostvalues.decode_args(raw["args"])
            except ValueError as exc:
                changes.append(f"{impl}: {raw['id']} not migrated: bad witness args: {exc}")
                continue
            divergence = next((d for d in examine_all(impls, raw["op"], args, versions) if impl in d.divergent),
                              None)
            if divergence is None or divergence.cause != raw["cause"]:
                changes.append(f"{impl}: {raw['id']} not migrated: its witness no longer diverges for "
                               f"{raw['cause']} (see `python -m harness expected check`)")
                continue
            raw["step"] = divergence.step
            raw["characters"] = entry_characters(impl, raw["op"], raw["cause"], raw.get("detail"),
                                                 divergence.characters, versions)
            order = ("id", "op", "cause", "detail", "step", "characters", "args", "note")
            for key in sorted(raw, key=lambda key: order.index(key) if key in order else 99):
                raw[key] = raw.pop(key)
            changes.append(f"{impl}: {raw['id']} now names step {divergence.step} and "
                           f"{len(raw['characters'])} code point range(s)")
            migrated = True
        written = _document(impl, document["entries"])
        if migrated or written["schema"] != document["schema"]:  # a list left as it was is not rewritten
            _write(path, written)
    return changes


def update(versions: dict[str, dict[str, str]], stale: set[tuple[str, str]], found: list[ClassRecord],
           found_by: str, directory: Path | None = None) -> list[str]:
    """Add each new class (an entry per divergent implementation, with its step, its characters and its
    witness), drop the entries ``stale`` names ((impl, id): found passing); returns what changed."""
    changes: list[str] = []
    by_impl: dict[str, list[dict[str, Any]]] = {}
    existing: dict[str, Path] = {}  # the lists there are (each rewritten where it is)
    validators = _validators()
    for impl in versions:  # every list read whole before one is written
        if impl == oracle():
            continue
        path = path_for(impl, directory)
        if path.exists() or path.is_symlink():
            existing[impl] = path
        document = read_list(path, impl, validators) if impl in existing else _document(impl, [])
        by_impl[impl] = document["entries"]
    for impl, entries in by_impl.items():
        kept = [e for e in entries if (impl, e["id"]) not in stale]
        changes += [f"{impl}: removed {e['id']} (no longer diverges)" for e in entries if (impl, e["id"]) in stale]
        entries[:] = kept
    for divergence in found:
        args = divergence.witness.args  # host-value encoded, as a list's witness
        for impl in divergence.divergent:
            entries = by_impl.setdefault(impl, [])
            mine = divergence.coverage.own_details.get(impl, divergence.detail)
            if mine == UNEXPLAINED:
                changes.append(f"{impl}: not added ({divergence.op}, {divergence.cause}): its share is not "
                               "explained by its Unicode versions; look at it by hand")
                continue
            target = existing.get(impl) or new_list_path(impl, directory)
            if isinstance(target, str):  # an outside declaration that names no list: none is made for it
                changes.append(f"{impl}: not added ({divergence.op}, {divergence.cause}, {divergence.step}): "
                               f"{target}")
                continue
            steps = entry_details(divergence.cause, mine)  # a skew in several steps: one entry per step
            for step in steps:
                if _listed(impl, entries, divergence, step):
                    continue
                new_id = entry_id(divergence.op, divergence.cause,
                                  {**args, "$detail": step} if len(steps) > 1 else args)
                entries.append({"id": new_id, "op": divergence.op, "cause": divergence.cause,
                                "detail": step, "step": divergence.step,
                                "characters": entry_characters(impl, divergence.op, divergence.cause, step,
                                                               divergence.characters, versions),
                                "args": args,
                                "note": f"TODO: explain. Found by {found_by}: {divergence.witness.explanation}"})
                changes.append(f"{impl}: added {new_id} ({divergence.op}, {divergence.cause}, {step})")
    for impl, entries in by_impl.items():
        if impl not in existing and not entries:
            continue  # nothing to list: no list is made (an oracle's, a run's that agreed)
        target = existing.get(impl) or new_list_path(impl, directory)
        if not isinstance(target, str):  # (one that names none was told about above, with what it lacks)
            _write(target, _document(impl, entries))
    return changes


def _listed(impl: str, entries: list[dict[str, Any]], divergence: ClassRecord, detail: str | None) -> bool:
    """Whether one of an implementation's entries (as its list holds them) already covers this part of a
    divergence: the lookup ``covering`` makes, by (op, cause, detail, step), with its characters; an entry of
    that cause at that step that lacks them covers nothing, and a second entry is added beside it."""
    for raw in entries:
        entry = Entry(impl, raw["id"], raw["op"], raw["cause"], raw["args"], raw["note"], raw.get("detail"),
                      raw.get("step"), parse_char_ranges(raw["characters"]) if "characters" in raw else None)
        if entry.matches(divergence.op, divergence.cause, detail) and \
                entry.explains(divergence.step, divergence.characters):
            return True
    return False
