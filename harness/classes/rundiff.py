"""What changed between two runs: ``python -m harness report diff OLD NEW`` and ``--baseline OLD``.

Two divergence reports (v1 or v2) are compared class by class, and two fixture-results documents case
by case. A class is known by the identity of its ``ClassKey`` (op, the share's implementations as a set,
cause, detail, the step where the traces part), which survives another witness; a case by (implementation,
fixture, case id).

Changes, one row each:
  new       in NEW, not in OLD (a class, or a case that fails now and did not before)
  fixed     in OLD, not in NEW, where NEW's absence means something: a sweep (every input of its
            templates was tried again) or a fixture case that passes now
  not seen  in OLD, not in NEW, where NEW is a sample (a fuzz, diff or parity run): maybe only not hit
  moved     a class of NEW that OLD has at another step (same op, implementations, cause and detail): the
            step where the traces part is named on each side
  changed   in both, with another status (new/expected), expected entry or characters (the characters
            gained and lost are named); a case with another state or mismatch
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
from typing import Any

from harness.classes import kinds
from harness.classes.key import ClassKey
from harness.classes.kinds import Kind

EXHAUSTIVE = ("sweep",)  # profiles whose absence of a class is evidence that it is gone
DIVERGENCE_SCHEMAS = Kind.DIVERGENCES.schemas
RESULTS_SCHEMA, = Kind.RESULTS.schemas
RAN_SCHEMA, = Kind.RAN.schemas  # nox -s parity: tests passed, failed, skipped per implementation (suites/conftest.py)
JUNIT_SCHEMA, = Kind.JUNIT.schemas


# Every kind of row, in the order a diff shows them.
CHANGE_ORDER = {"new": 0, "moved": 1, "changed": 2, "not in the baseline": 3, "fixed": 4, "not seen": 5}


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

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "change": self.change, "implementations": list(self.impls),
                "subject": self.subject, "before": self.before, "after": self.after, "witness": self.witness,
                "blocking": self.blocking}


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
    """The class's identity across runs (``ClassKey.identity``) of a divergence as a report holds it."""
    return ClassKey.of_report(divergence).identity


def _subject(divergence: dict[str, Any]) -> str:
    detail = f" ({divergence['detail']})" if divergence.get("detail") else ""
    step = divergence.get("step")
    return f"{divergence['op']} {divergence['cause']}{detail}" + (f" at {step}" if step else "")


def _state(divergence: dict[str, Any]) -> str:
    entry = divergence.get("expectedEntry")
    return divergence["status"] + (f": {entry}" if entry else "")


def _witness(divergence: dict[str, Any]) -> str:
    import json

    return json.dumps(divergence["args"], ensure_ascii=True)


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
    result = RunDiff(Kind.DIVERGENCES, implementations=_described_changes(old, new))
    before = {identity(d): d for d in old["divergences"]}
    after = {identity(d): d for d in new["divergences"]}
    absent = "fixed" if new.get("profile") in EXHAUSTIVE else "not seen"
    ran_before = set(old.get("implementations") or ())
    moved_from = _moves(before, after)
    for key, divergence in after.items():
        impls = tuple(divergence["divergent"])
        is_new = divergence["status"] == "new"
        if key in moved_from:
            was = before[moved_from[key]]
            result.changes.append(Change("class", "moved", impls, _subject(divergence),
                                         f"at {was.get('step')}: {_state(was)}", f"at {divergence.get('step')}: "
                                         f"{_state(divergence)}", _witness(divergence),
                                         blocking=is_new and was["status"] != "new"))
            continue
        if key not in before:
            change = "new" if not ran_before or ran_before.issuperset(impls) else "not in the baseline"
            result.changes.append(Change("class", change, impls, _subject(divergence), None, _state(divergence),
                                         _witness(divergence), blocking=is_new))
            continue
        was = before[key]
        gained, lost = _characters(was, divergence)
        if _state(was) != _state(divergence) or gained or lost:
            # A class that was expected and is not covered now is something new as well.
            moved = "".join(f"; {sign}{len(chars)} {_listed(chars)}" for sign, chars in (("+", gained), ("-", lost))
                            if chars)
            result.changes.append(Change("class", "changed", impls, _subject(divergence), _state(was),
                                         _state(divergence) + moved, _witness(divergence),
                                         blocking=is_new and was["status"] != "new"))
        else:
            result.unchanged += 1
    gone_to = set(moved_from.values())
    for key, divergence in before.items():
        if key not in after and key not in gone_to:
            result.changes.append(Change("class", absent, tuple(divergence["divergent"]), _subject(divergence),
                                         _state(divergence), None, _witness(divergence)))
    return result


def _moves(before: dict[tuple[Any, ...], dict[str, Any]],
           after: dict[tuple[Any, ...], dict[str, Any]]) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """A class of NEW only -> the class of OLD only it moved from: the same identity but for the step (op,
    implementations, cause, detail), paired one to one in the order of the steps' names."""
    gone: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
    for key in sorted((k for k in before if k not in after), key=repr):
        gone.setdefault(ClassKey.of_report(before[key]).unstepped, []).append(key)
    moves = {}
    for key in sorted((k for k in after if k not in before), key=repr):
        candidates = gone.get(ClassKey.of_report(after[key]).unstepped)
        if candidates:
            moves[key] = candidates.pop(0)
    return moves


def _characters(was: dict[str, Any], now: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The characters (a sweep class's code points) NEW has and OLD had not, and the other way round."""
    before, after = set(was.get("characters") or ()), set(now.get("characters") or ())
    return sorted(after - before), sorted(before - after)


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
