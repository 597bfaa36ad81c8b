"""What changed between two runs: ``python -m harness report diff OLD NEW`` and ``--baseline OLD``.

Two divergence reports (v1 or v2) are compared class by class, and two fixture-results documents case
by case. Each class is read as a record (``ClassRecord.from_json``, the one reader of a class) and known by
the identity of its ``ClassKey`` (op, the share's implementations as a set, cause, detail, the step where the
traces part), which survives another witness; a class whose identity changed between the runs (it grew, shrank
or moved: ``kinship`` says when two records are one class) is the same class, changed. A case is known by
(implementation, fixture, case id).

Changes, one row each:
  new       in NEW, not in OLD (a class, or a case that fails now and did not before)
  fixed     in OLD, not in NEW, where NEW's absence means something: a sweep (every input of its
            templates was tried again) or a fixture case that passes now
  not seen  in OLD, not in NEW, where NEW is a sample (a fuzz, diff or parity run): maybe only not hit
  changed   in both, with another status (new/expected), expected entry or characters (the characters
            gained and lost are named); a class of NEW that is one of OLD whose implementations, step or
            detail changed (``kinship``: ``implementations +wasm``, ``step A -> B`` named); a case with another
            state or mismatch
  not in the baseline
            in NEW, of an implementation OLD never ran: nothing to compare it with (a failing case or an
            uncovered class still counts)
Implementations whose self-description (version, Unicode versions) changed are listed too.

``read`` is the one reader of the reports the harness shows (report show, the page): divergence reports,
fixture results, the parity session's per-implementation counts (parity-ran-v1) and its pytest JUnit XML
file (read with a size bound, no DOCTYPE or entity, into a document of the pseudo-schema ``junit-xml``).
``run_reports`` finds the other reports of the run that wrote a report, as its command line names them
(the parity session's pytest: ``--junitxml``, ``--ran-report``, ``--parity-report``, ``--fixture-results``),
so that one report read alone still gives the verdict of its whole run.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, TypeVar

from harness.classes import kinds
from harness.classes.key import ClassKey
from harness.classes.kinds import Kind
from harness.classes.record import ClassRecord
from harness.differential.explain import char_ranges

EXHAUSTIVE = ("sweep",)  # profiles whose absence of a class is evidence that it is gone
DIVERGENCE_SCHEMAS = Kind.DIVERGENCES.schemas
RESULTS_SCHEMA, = Kind.RESULTS.schemas
RAN_SCHEMA, = Kind.RAN.schemas  # nox -s parity: tests passed, failed, skipped per implementation (suites/conftest.py)
JUNIT_SCHEMA, = Kind.JUNIT.schemas


# Every kind of row, in the order a diff shows them.
CHANGE_ORDER = {"new": 0, "changed": 1, "not in the baseline": 2, "fixed": 3, "not seen": 4}


@dataclass(frozen=True)
class Change:
    """One row of a diff: what (a class or a case), how it changed, and what it is."""

    kind: str  # "class" or "case"
    change: str  # a key of CHANGE_ORDER
    impls: tuple[str, ...]
    subject: str  # a class: "op cause (detail) at step"; a case: "fixture/case"
    before: str | None  # its state in OLD (None: absent)
    after: str | None  # its state in NEW
    witness: str | None = None  # a class: its witness's arguments, as JSON
    blocking: bool = False  # counts for the exit status: something new that is not covered
    how: tuple[str, ...] = ()  # a changed class: what changed besides its state (implementations, step, characters)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "change": self.change, "implementations": list(self.impls),
                "subject": self.subject, "before": self.before, "after": self.after, "witness": self.witness,
                "blocking": self.blocking, "how": list(self.how)}


@dataclass
class RunDiff:
    kind: Kind  # the kind of the two reports compared (harness/cli/reports: a kind with a diff)
    changes: list[Change] = field(default_factory=list)
    unchanged: int = 0
    implementations: list[str] = field(default_factory=list)  # lines: an implementation's description changed

    @property
    def new(self) -> list[Change]:
        return [change for change in self.changes if change.blocking]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "unchanged": self.unchanged, "implementations": self.implementations,
                "changes": [change.to_json() for change in self.changes], "new": len(self.new)}


def kind_of(document: dict[str, Any]) -> Kind:
    return kinds.of(document)


def identity(divergence: dict[str, Any]) -> tuple[Any, ...]:
    """The class's identity across runs (``ClassKey.identity``) of a divergence as a report holds it, read as
    its record."""
    return ClassRecord.from_json(divergence).key.identity


def records(report: dict[str, Any]) -> list[ClassRecord]:
    """A report's classes, each read by the one reader of a class (``ClassRecord.from_json``)."""
    return [ClassRecord.from_json(divergence) for divergence in report.get("divergences") or ()]


def _subject(record: ClassRecord) -> str:
    detail = f" ({record.detail})" if record.detail else ""
    return f"{record.op} {record.cause}{detail}" + (f" at {record.step}" if record.step else "")


def _state(record: ClassRecord) -> str:
    entry = record.coverage.entry
    return record.status + (f": {entry}" if entry else "")


def _witness(record: ClassRecord) -> str:
    import json

    return json.dumps(record.witness.args, ensure_ascii=True)


class Classed(Protocol):
    """What ``kinship`` compares: a class's key and the characters it is about (a ``ClassRecord``; a run
    summary's class, ``history.Summarised``, which has none)."""

    @property
    def key(self) -> ClassKey: ...

    @property
    def characters(self) -> frozenset[int]: ...


AClass = TypeVar("AClass", bound=Classed)
Name = TypeVar("Name")  # what the classes are keyed by: an identity, an anchor


@dataclass(frozen=True)
class Kinship:
    """How a class of NEW is a class of OLD whose identity it no longer has (``kinship``): the implementations
    it gained and lost, and its step and detail before and after where they differ (None: the same)."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    step: tuple[str | None, str | None] | None = None
    detail: tuple[str | None, str | None] | None = None

    @property
    def distance(self) -> int:
        """How many of implementations, step and detail differ: the nearer of two candidates is paired."""
        return sum((bool(self.added or self.removed), self.step is not None, self.detail is not None))

    def how(self) -> list[str]:
        """What changed, in words: ``implementations +wasm -pyo3``, ``step norm.trim -> norm.collapse``."""
        said = []
        if self.added or self.removed:
            said.append("implementations " + " ".join([*(f"+{name}" for name in self.added),
                                                         *(f"-{name}" for name in self.removed)]))
        for name, moved in (("step", self.step), ("detail", self.detail)):
            if moved is not None:
                said.append(f"{name} {moved[0] or '-'} -> {moved[1] or '-'}")
        return said


def kinship(old: Classed, new: Classed) -> Kinship | None:
    """Whether ``new`` (a class of NEW) is ``old`` (a class of OLD) changed, and how; None: two classes.

    Records of the same identity (``ClassKey.identity``) are one class. Records of two identities are one
    class, changed, exactly when:

    ===============  ==========================================================================================
    op, cause        equal (another op or cause is another bug)
    implementations  the sets overlap: it grew (``+wasm``), shrank (``-pyo3``) or both; disjoint sets are
                     another implementation's bug, another class
    step             any: the traces part elsewhere now (the class moved)
    detail           equal, or both name characters and some are the same (the same characters, named
                     otherwise); another detail about other characters is another class
    ===============  ==========================================================================================

    Anything else is two classes: ``new`` in NEW and ``not seen`` (or ``fixed``) in OLD. Step and detail are
    compared as the key knows them (``ClassKey.of``: the class step, no detail at ``args``)."""
    was, now = old.key, new.key
    return None if was.identity == now.identity else _kin(was, now, old.characters, new.characters)


def _kin(was: ClassKey, now: ClassKey, old_characters: frozenset[int],
         new_characters: frozenset[int]) -> Kinship | None:
    """``kinship`` of two keys of other identities, made once (a record works its key out each time)."""
    if (was.op, was.cause) != (now.op, now.cause):
        return None
    if set(was.impls).isdisjoint(now.impls):
        return None
    if was.detail != now.detail and old_characters.isdisjoint(new_characters):
        return None
    return Kinship(tuple(name for name in now.impls if name not in was.impls),
                   tuple(name for name in was.impls if name not in now.impls),
                   None if was.step == now.step else (was.step, now.step),
                   None if was.detail == now.detail else (was.detail, now.detail))


def pair(before: dict[Name, AClass], after: dict[Name, AClass]) -> dict[Name, tuple[Name, Kinship]]:
    """Each class of NEW only -> the class of OLD only it is (``kinship``), one to one: the nearest pairs first
    (fewest of implementations, step and detail changed, then most implementations and characters shared),
    ties in the order of the identities, so that a diff says the same every time. The classes are keyed by
    their identity (or their anchor, a digest of it); a key in both is the same class.

    The pairs one part apart are found by what the other parts share (a dictionary each, not every class of
    one run against every class of the other); only the classes those leave are compared two by two, within
    their op and cause."""
    olds = [(name, item.key, item.characters, repr(name)) for name, item in before.items() if name not in after]
    news = [(name, item.key, item.characters, repr(name)) for name, item in after.items() if name not in before]
    pairs: dict[Name, tuple[Name, Kinship]] = {}
    taken: set[Name] = set()

    def take(found: list[tuple[Any, ...]]) -> None:
        for _, old_name, new_name, kin in sorted(found, key=lambda candidate: candidate[0]):
            if old_name not in taken and new_name not in pairs:
                taken.add(old_name)
                pairs[new_name] = (old_name, kin)

    def candidates(part: Any, olds: list[Any], news: list[Any]) -> list[tuple[Any, ...]]:
        bucket: dict[Any, list[Any]] = {}
        for old in olds:
            bucket.setdefault(part(old[1]), []).append(old)
        found = []
        for new_name, now, new_characters, new_repr in news:
            for old_name, was, old_characters, old_repr in bucket.get(part(now), ()):
                kin = _kin(was, now, old_characters, new_characters)
                if kin is not None:
                    shared = len(set(was.impls) & set(now.impls)), len(old_characters & new_characters)
                    found.append(((kin.distance, -shared[0], -shared[1], old_repr, new_repr), old_name, new_name,
                                  kin))
        return found

    take([candidate for part in (lambda key: (key.op, key.cause, key.step, key.detail),  # grew or shrank
                                 lambda key: (key.op, key.cause, frozenset(key.impls), key.detail),  # moved
                                 lambda key: (key.op, key.cause, frozenset(key.impls), key.step))  # renamed
          for candidate in candidates(part, olds, news)])
    take(candidates(lambda key: (key.op, key.cause), [old for old in olds if old[0] not in taken],
                    [new for new in news if new[0] not in pairs]))
    return pairs


def _described_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """One line per implementation in both runs whose self-description's version or Unicode changed."""
    before = (old.get("run") or {}).get("implementations") or {}
    after = (new.get("run") or {}).get("implementations") or {}
    lines = []
    for name in sorted(set(before) & set(after)):
        was, now = before[name] or {}, after[name] or {}
        for field_name in ("version", "unicode", "language"):
            if was.get(field_name) != now.get(field_name):
                lines.append(f"{name}: {field_name} {was.get(field_name)} -> {now.get(field_name)}")
    return lines


def diff_divergences(old: dict[str, Any], new: dict[str, Any]) -> RunDiff:
    """Two divergence reports class by class, each class read as a record: the same identity in both is the
    same class (unchanged, or changed in status, entry or characters); a class of one run only that is one of
    the other's changed (``kinship``: it grew, shrank, moved to another step) is one row, ``changed``, saying
    how; the rest are new in NEW and not seen (or fixed) in OLD."""
    result = RunDiff(Kind.DIVERGENCES, implementations=_described_changes(old, new))
    before = {record.key.identity: record for record in records(old)}
    after = {record.key.identity: record for record in records(new)}
    absent = "fixed" if new.get("profile") in EXHAUSTIVE else "not seen"
    ran_before = set(old.get("implementations") or ())
    kin_of = pair(before, after)
    for key, record in after.items():
        impls = record.divergent
        if key in kin_of:
            was_key, kin = kin_of[key]
            was = before[was_key]
            how = kin.how()
        elif key in before:
            was, how = before[key], []
        else:
            change = "new" if not ran_before or ran_before.issuperset(impls) else "not in the baseline"
            result.changes.append(Change("class", change, impls, _subject(record), None, _state(record),
                                         _witness(record), blocking=record.new))
            continue
        gained, lost = _characters(was, record)
        how += [f"{sign}{len(chars)} {_listed(chars)}" for sign, chars in (("+", gained), ("-", lost)) if chars]
        if _state(was) == _state(record) and not how:
            result.unchanged += 1
            continue
        # A class that was expected and is not covered now is something new as well; so is an implementation
        # that joined a class no entry covers, and an uncovered class that another detail names now (before
        # kinship it was a new class, and blocked: a diff's status never weakens by being paired).
        kin = kin_of[key][1] if key in kin_of else None
        grew_or_renamed = kin is not None and (bool(kin.added) or kin.detail is not None)
        result.changes.append(Change("class", "changed", impls, _subject(record), _state(was),
                                     "; ".join([_state(record), *how]), _witness(record),
                                     blocking=record.new and (not was.new or grew_or_renamed), how=tuple(how)))
    paired = {was_key for was_key, _ in kin_of.values()}
    for key, record in before.items():
        if key not in after and key not in paired:
            result.changes.append(Change("class", absent, record.divergent, _subject(record), _state(record), None,
                                         _witness(record)))
    return result


def _characters(was: ClassRecord, now: ClassRecord) -> tuple[list[str], list[str]]:
    """The characters (a sweep class's code points) NEW has and OLD had not, and the other way round, as
    ranges."""
    return char_ranges(now.characters - was.characters), char_ranges(was.characters - now.characters)


def _listed(characters: list[str], most: int = 4) -> str:
    shown = " ".join(characters[:most])
    return shown + (f" and {len(characters) - most} more" if len(characters) > most else "")


def _case_state(row: dict[str, Any]) -> str:
    return row["state"] + (f": {row['why']}" if row.get("why") else "")


def diff_results(old: dict[str, Any], new: dict[str, Any]) -> RunDiff:
    result = RunDiff(Kind.RESULTS, implementations=_described_changes(old, new))

    def keyed(document: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
        return {(row["implementation"], row["fixture"], row["case"]): row for row in document["results"]}

    before, after = keyed(old), keyed(new)
    ran_before = {impl for impl, _, _ in before}
    for key, row in after.items():
        impl, fixture, case = key
        was = before.get(key)
        subject = f"{fixture}/{case}"
        if was is None or was["state"] != row["state"] or was.get("why") != row.get("why"):
            if impl not in ran_before:
                change = "not in the baseline"
            elif row["state"] == "fail" and (was is None or was["state"] != "fail"):
                change = "new"
            elif row["state"] == "pass" and was is not None and was["state"] == "fail":
                change = "fixed"
            elif was is None:
                change = "new"
            else:
                change = "changed"
            result.changes.append(Change("case", change, (impl,), subject, None if was is None else _case_state(was),
                                         _case_state(row), blocking=row["state"] == "fail"
                                         and change in ("new", "not in the baseline")))
        else:
            result.unchanged += 1
    for key, row in before.items():
        if key not in after:
            result.changes.append(Change("case", "not seen", (key[0],), f"{key[1]}/{key[2]}", _case_state(row), None))
    return result


def read(path: Any) -> dict[str, Any]:
    """A report (a divergence report v1 or v2, fixture results, parity-ran counts), read through the untrusted
    reader and validated against the schema it names, or a JUnit XML file (``read_junit``: a file named
    ``.xml`` or whose text begins with ``<``); ValueError (BadDocument where the file is no JSON object or
    no JUnit XML) naming the file and what is wrong."""
    from harness.model import untrusted
    from harness.model.schemas import problems

    if Path(path).suffix == ".xml":
        return read_junit(Path(path))
    data = untrusted.read_bounded(Path(path), "report")  # a regular file within untrusted.LIMITS["report"]
    if data.lstrip()[:1] == b"<":
        return read_junit(Path(path), data)
    try:  # bounded and strict: a report is a file anybody can hand over (too big, too deep, NaN, a BOM: refused)
        document = untrusted.loads(data, want=dict, max_bytes=untrusted.MAX_FILE_BYTES,
                                   max_depth=untrusted.DOCUMENT_DEPTH)
    except untrusted.Refused as exc:
        raise untrusted.BadDocument(f"{path}: cannot read it as JSON: {exc}") from None
    try:
        kind_of(document)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    found = problems(document)
    if found:
        raise ValueError(f"{path}: does not match its schema {document['schema']}: {'; '.join(found[:3])}")
    return document


def read_junit(path: Path, data: bytes | None = None) -> dict[str, Any]:
    """A pytest JUnit XML file as a ``junit-xml`` document: how many tests, passed, failed, errored and were
    skipped (counted from its test cases, and never fewer failures or errors than its suites claim), each
    failing or erroring test with its message, the suites' properties (session, commit) and the first suite's
    start. Read with a size bound (``untrusted.LIMITS``); a DOCTYPE or an entity declaration is refused (a
    JUnit file has none, and entities are how XML grows); BadDocument names the file and the problem."""
    import xml.etree.ElementTree as ElementTree

    from harness.model.untrusted import BadDocument, limit_of, read_bounded

    what = "JUnit XML file"
    if data is None:
        data = read_bounded(path, what)
    elif len(data) > limit_of(what):
        raise BadDocument(f"{path}: not a {what}: {len(data):,} bytes, more than the limit of {limit_of(what):,}")
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise BadDocument(f"{path}: not a {what}: it has a DOCTYPE or an entity declaration (a JUnit file has none)")
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise BadDocument(f"{path}: not a {what}: not well-formed XML ({exc})") from None
    except (ValueError, RecursionError) as exc:  # ValueError: e.g. text that is not in its declared encoding
        raise BadDocument(f"{path}: not a {what}: {exc}") from None
    if root.tag == "testsuites":
        suites = root.findall("testsuite")
    elif root.tag == "testsuite":
        suites = [root]
    else:
        raise BadDocument(f"{path}: not a {what}: its root element is <{root.tag[:40]}>, not <testsuites> or "
                          "<testsuite>")
    claimed = {"failures": 0, "errors": 0}
    failing: list[dict[str, str]] = []
    counts = {"tests": 0, "passed": 0, "failures": 0, "errors": 0, "skipped": 0}
    properties: dict[str, str] = {}
    for suite in suites:
        for name in claimed:
            value = suite.get(name, "0")
            if not value.isdigit():
                raise BadDocument(f"{path}: not a {what}: a testsuite's {name} is {value[:40]!r}, not a count")
            claimed[name] += int(value)
        for item in suite.iter("property"):
            properties[str(item.get("name"))] = str(item.get("value"))
        for case in suite.iter("testcase"):
            counts["tests"] += 1
            test = "::".join(part for part in (case.get("classname"), case.get("name")) if part) or "(unnamed)"
            marks = {child.tag for child in case}
            for tag, outcome, key in (("failure", "failed", "failures"), ("error", "error", "errors")):
                if tag in marks:
                    counts[key] += 1
                    found = case.find(tag)
                    message = (found.get("message") or found.text or "") if found is not None else ""
                    failing.append({"test": test, "outcome": outcome, "message": message.strip()[:500]})
            if not marks & {"failure", "error"}:
                counts["skipped" if "skipped" in marks else "passed"] += 1
    for name, number in claimed.items():  # a suite that says more failed than its cases show: it is believed
        counts[name] = max(counts[name], number)
    return {"schema": JUNIT_SCHEMA, "file": str(path), **counts, "failing": failing, "properties": properties,
            "timestamp": suites[0].get("timestamp") if suites else None}


# -- the other reports of a run ------------------------------------------------------------------------------

RUN_OPTIONS = {  # what the parity session's pytest writes, by option: whether every run of it writes one
    "--junitxml": True, "--junit-xml": True, "--ran-report": True,
    "--parity-report": False,  # only with two implementations or more (suites/parity/test_differential.py)
    "--fixture-results": False,  # only when the fixture suite ran
}
WHAT = {"--junitxml": "JUnit file", "--junit-xml": "JUnit file", "--ran-report": "parity-ran counts",
        "--parity-report": "divergence report", "--fixture-results": "fixture results"}


@dataclass(frozen=True)
class Named:
    """A report the command line of a run names: the option, the path as named, whether the run always writes
    it, and where it is (None: nowhere)."""

    option: str
    named: str
    required: bool
    found: Path | None


def named_reports(path: Path, document: dict[str, Any]) -> list[Named]:
    """The reports the run that wrote ``document`` (read from ``path``) wrote besides, as its command line
    names them (``RUN_OPTIONS``), each looked for next to ``path`` first (a reports folder copied whole, a CI
    artifact), then where the command put it; ``path`` itself is left out. Only a report its own command line
    names (by one of those options, as that path or that file name) is of such a run: a report a command run
    inside a pytest session wrote (``check`` called by a test) has that session's command line, and is not.
    A command that is not a shell line names none."""
    command = (document.get("run") or {}).get("command")
    if not isinstance(command, str):
        return []
    try:
        tokens = shlex.split(command)
    except ValueError:
        return []
    own = Path(path).resolve()
    named_here = [value for option, _, value in (token.partition("=") for token in tokens) if option in RUN_OPTIONS]
    named_here += [tokens[i + 1] for i, token in enumerate(tokens[:-1]) if token in RUN_OPTIONS]
    if not any(Path(value).name == own.name or Path(value).resolve() == own for value in named_here if value):
        return []
    out: list[Named] = []
    for index, token in enumerate(tokens):
        option, sep, value = token.partition("=")
        if option not in RUN_OPTIONS:
            continue
        if not sep:
            if index + 1 >= len(tokens):
                continue
            value = tokens[index + 1]
        if not value:
            continue
        found = None
        for candidate in (Path(path).parent / Path(value).name, Path(value)):
            if candidate.is_file():
                found = candidate
                break
        if found is not None and found.resolve() == own:
            continue
        out.append(Named(option, value, RUN_OPTIONS[option], found))
    return out


def _moment(stamp: Any) -> datetime | None:
    try:
        moment = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def of_run(document: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether ``other``, a report named by ``document``'s command line, was written by the same run: a JSON
    report's envelope has the same command and start; a JUnit file names the same commit (when both do) and
    its suite started within the run (to the second); one that says nothing against it is taken."""
    run = document.get("run") or {}
    if kind_of(other) != Kind.JUNIT:
        theirs = other.get("run") or {}
        return (theirs.get("command"), theirs.get("started")) == (run.get("command"), run.get("started"))
    commit = (run.get("project") or {}).get("commit")
    named = other.get("properties", {}).get("commit")
    if commit and named and named != "unknown" and named != commit:
        return False
    began, started, ended = _moment(other.get("timestamp")), _moment(run.get("started")), _moment(run.get("ended"))
    if began is None or started is None:
        return True
    slack = timedelta(seconds=2)  # the envelope's stamps are to the second
    return started - slack <= began <= (ended or began) + slack


@dataclass
class RunReports:
    """Reports read with the other reports of their runs: the ones given, the others their command lines name
    (path, document, the option that named it), what is wrong with the runs (a report a run always writes, not
    there or written by another run: red) and notes (one a run writes only sometimes, from another run)."""

    given: list[tuple[Path, dict[str, Any]]]
    others: list[tuple[Path, dict[str, Any], str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def documents(self) -> list[tuple[Path, dict[str, Any]]]:
        return [*self.given, *((path, document) for path, document, _ in self.others)]


def read_run(paths: Any) -> RunReports:
    """The reports at ``paths`` (``read``) and every other report their runs wrote (``named_reports``), each
    read once; a report named that is not one is a ValueError naming it, as a report given would be."""
    found = RunReports([(Path(path), read(path)) for path in paths])
    seen = {path.resolve(): document for path, document in found.given}
    for path, document in found.given:
        for named in named_reports(path, document):
            what = WHAT[named.option]
            if named.found is None:
                if named.required:
                    found.problems.append(f"{path}: the {what} its run wrote ({named.option}={named.named}) is not "
                                          "there: that run's verdict cannot be read whole")
                continue
            key = named.found.resolve()
            other = seen.get(key)
            if other is None:
                other = read(named.found)
            if not of_run(document, other):
                if named.required:
                    found.problems.append(f"{path}: {named.found}, where its run wrote its {what}, was written by "
                                          "another run: that run's verdict cannot be read whole")
                else:
                    found.notes.append(f"{path}: {named.found} is of another run (its run wrote no {what} there)")
                continue
            if key not in seen:
                seen[key] = other
                found.others.append((named.found, other, named.option))
    return found
