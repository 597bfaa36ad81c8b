"""Divergence reports, the kind ``Kind.DIVERGENCES``: the document (schema:
schemas/divergence-report-v2.schema.json: v1 and the run's envelope; a v1 report is still read), written only
over another, and the join of shard reports (``merge_classes``, ``merged_document``). Its classes are
``harness.classes.record.ClassRecord``; the report's own camelCase names live here."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.classes import expected
from harness.classes.book import ClassBook
from harness.classes.record import ClassRecord
from harness.differential.outcomes import agreeing
from harness.model import envelope, schemas
from harness.model.files import write_document
from harness.model.ledger import Ledger
from harness.testees.findings import Findings

SCHEMA = "divergence-report-v2"
READABLE = ("divergence-report-v1", SCHEMA)  # what report diff, expected update and promote read


def document(profile: str, versions: dict[str, dict[str, str]], records: list[ClassRecord], examples: int,
             seconds: float, expected_problems: list[str], seed: int | None = None,
             unexpected_passes: list[dict[str, str]] | None = None, findings: list[dict[str, Any]] | None = None,
             cut: list[str] | None = None, taken_out: list[str] | None = None,
             batches_refused: dict[str, int] | None = None,
             described: dict[str, dict[str, Any] | None] | None = None,
             ledger: Ledger | None = None) -> dict[str, Any]:
    """The report; ``described``: each implementation's self-description (envelope.descriptions; default:
    none known, a test double's); ``findings``: about testees (harness/testees/findings.py), never divergences;
    ``cut``: work the budget cut; ``taken_out``: implementations taken out of the run;
    ``batches_refused``: testees that refuse batch lines (legitimate), counted; ``ledger``: the run's account
    of its work (harness/model/ledger.py), in the envelope: the report is ``ok`` only when its work was done."""
    for record in records:
        if agreeing(record.op, record.witness.answers):
            raise ValueError(f"a {record.op} divergence ({record.cause}) whose recorded outputs agree: "
                             "the verdict stage let it through (a harness bug)")
    new = [record for record in records if record.new]
    return {
        "schema": SCHEMA,
        "run": envelope.build(described if described is not None else dict.fromkeys(versions), seed, ledger),
        "profile": profile,
        "seed": seed,
        "implementations": versions,
        "examples": examples,
        "seconds": round(seconds, 3),
        "ok": not new and not expected_problems and not findings and (ledger is None or ledger.ok),
        "divergences": [record.to_json() for record in records],
        "findings": findings or [],
        "cut": cut or [],
        "takenOut": taken_out or [],
        "batchLinesRefused": batches_refused or {},
        "expectedCheck": {"problems": expected_problems, "unexpectedPasses": unexpected_passes or []},
    }


def write(path: Path, report: dict[str, Any]) -> None:
    """Write a divergence report, only over nothing or another divergence report (files.check_replaceable:
    a --report that names a source file, an expected list or a fixture is refused, status 2)."""
    write_document(path, report, replaces=READABLE, what="divergence report")


def validate(report: dict[str, Any]) -> list[str]:
    """Each way ``report`` breaks its schema (v2, or v1 for an older report), with where."""
    if report.get("schema") not in READABLE:
        return [f"schema {report.get('schema')!r}: not a divergence report ({', '.join(READABLE)})"]
    return schemas.problems(report)


def classes(report: dict[str, Any]) -> list[ClassRecord]:
    """A report's classes, as records (the report validated against its schema before)."""
    return [ClassRecord.from_json(divergence) for divergence in report.get("divergences", [])]


def unexpected_passes(report: dict[str, Any]) -> list[dict[str, str]]:
    """The expected entries the run found passing: {impl, id} each."""
    return list(report.get("expectedCheck", {}).get("unexpectedPasses", []))


def expected_problems(report: dict[str, Any]) -> list[str]:
    return list(report.get("expectedCheck", {}).get("problems", []))


def taken_out(report: dict[str, Any]) -> list[str]:
    return list(report.get("takenOut", []))


def batch_lines_refused(report: dict[str, Any]) -> dict[str, int]:
    return dict(report.get("batchLinesRefused", {}))


def check_alike(reports: list[dict[str, Any]], profile: str) -> None:
    """ValueError unless every report is of ``profile`` and compared the same implementations."""
    if not reports:
        raise ValueError("nothing to merge")
    for report in reports:
        if report.get("profile") != profile:
            raise ValueError(f"only {profile} reports can be merged here; one is a {report.get('profile')} report")
    base = reports[0]
    for report in reports[1:]:
        if set(report["implementations"]) != set(base["implementations"]):
            raise ValueError("the reports compared different implementations")


def merge_classes(reports: list[dict[str, Any]]) -> list[ClassRecord]:
    """Every class of every report once, by its class key (op, the share's implementations, cause, detail,
    step): a class one shard saw only on inputs some host could not hold names fewer implementations and is
    still the same class (``ClassBook``), named by the union, its witness one that reached all of them; two
    sightings joined by ``ClassRecord.merge`` (the smaller witness, the stricter coverage, extents summed)."""
    book: ClassBook[ClassRecord] = ClassBook(list(reports[0]["implementations"]))
    for report in reports:
        for record in classes(report):
            absent = frozenset(report["implementations"]) - frozenset(record.witness.outputs)
            filed = book.file(record, absent)
            if not filed.created:
                book.join(filed.key, record)
    return list(book.held.values())


def merged_document(reports: list[dict[str, Any]], records: list[ClassRecord]) -> dict[str, Any]:
    """The first report with the joined classes and every count summed, findings merged per (implementation,
    kind); a run of its own (this command, now), each shard's commit kept beside (``shard_commits``)."""
    base = reports[0]
    out = dict(base)
    described = next((r["run"]["implementations"] for r in reports if "run" in r),
                     dict.fromkeys(base["implementations"]))
    seeds = {r.get("seed") for r in reports}
    ledgers = [envelope.ledger_of(r) for r in reports]
    ledger = None
    if all(part is not None for part in ledgers):  # a merge of reports that all kept one (else: none known)
        ledger = Ledger(base.get("profile", "merge"), planned=0)
        for part in ledgers:
            assert part is not None
            ledger.add(part)
    unfinished = any(part is not None and not part.ok for part in ledgers)  # one shard's work not done: the merge's
    out["schema"], out["run"] = SCHEMA, envelope.build(described, seeds.pop() if len(seeds) == 1 else None, ledger)
    out["divergences"] = [record.to_json() for record in records]
    out["examples"] = sum(r["examples"] for r in reports)
    out["seconds"] = round(sum(r["seconds"] for r in reports), 3)
    book = Findings()
    for report in reports:
        book.merge(report.get("findings", []))
    out["findings"] = book.to_json()
    out["takenOut"] = sorted({name for report in reports for name in taken_out(report)})
    out["cut"] = [line for report in reports for line in report.get("cut", [])]
    refused: dict[str, int] = {}
    for report in reports:
        for name, count in batch_lines_refused(report).items():
            refused[name] = refused.get(name, 0) + count
    out["batchLinesRefused"] = refused
    problems = list(dict.fromkeys(p for r in reports for p in expected_problems(r)))
    passes = {(p["impl"], p["id"]): p for r in reports for p in unexpected_passes(r)}
    out["expectedCheck"] = {"problems": problems, "unexpectedPasses": list(passes.values())}
    out["ok"] = (not any(record.new for record in records) and not out["findings"] and not problems
                 and (ledger is None or ledger.ok) and not unfinished)
    return out


def without_shards(out: dict[str, Any], missing: list[str], what: str) -> dict[str, Any]:
    """A merged report that lacks the shards ``missing`` of its ``what`` (a campaign, a sweep): said among its cuts,
    its ledger stopped before its plan, and never ok (whether or not its reports kept ledgers)."""
    if not missing:
        return out
    why = f"shards {', '.join(missing)} of the {what} are not in this merge"
    out["cut"] = [*out.get("cut", []), why]
    ledger = envelope.ledger_of(out)
    if ledger is not None:
        ledger.stopped = why
        out["run"] = {**out["run"], "ledger": ledger.to_json()}
    out["ok"] = False
    return out


def shard_commits(reports: list[dict[str, Any]]) -> list[str]:
    return sorted({r["run"]["project"]["commit"] or "unknown" for r in reports if "run" in r})


def update_from_report(report: dict[str, Any], directory: Path | None = None,
                       causes: frozenset[str] | None = None) -> list[str]:
    """``expected update``: the report's new classes (of ``causes`` only, when given) added to the lists
    (``expected.update``), the entries it found passing dropped; returns what changed."""
    found = [r for r in classes(report) if r.new and (causes is None or r.cause in causes)]
    stale = {(p["impl"], p["id"]) for p in unexpected_passes(report)}
    return expected.update(report.get("implementations", {}), stale, found, report.get("profile", "a run"), directory)


def with_shard_commits(section: dict[str, Any], reports: list[dict[str, Any]]) -> dict[str, Any]:
    """A merged run's section (``sweep``, ``fuzz``) with each shard's commit beside."""
    return {**section, "shardCommits": shard_commits(reports)}


@dataclass(frozen=True)
class Campaign:
    """A fuzz report's ``fuzz`` section: which share of which task stream it ran (the stream: the seed and the
    ops, in their order), and whether a Ctrl-C stopped it (None, not known: as in reports written before it)."""

    seed: int | None
    max_examples: int | None
    ops: tuple[str, ...]
    shards: tuple[str, ...]
    interrupted: bool | None = None
    commits: tuple[str, ...] | None = None  # a merge's: each shard's commit

    STREAM = ("seed", "max_examples", "ops")  # what the shards of one campaign share

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seed": self.seed, "maxExamples": self.max_examples, "ops": list(self.ops),
                               "shards": list(self.shards)}
        if self.interrupted is not None:
            out["interrupted"] = self.interrupted
        if self.commits is not None:
            out["shardCommits"] = list(self.commits)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Campaign:
        commits = data.get("shardCommits")
        return cls(data.get("seed"), data.get("maxExamples"), tuple(data.get("ops", ())), tuple(data["shards"]),
                   data.get("interrupted"), None if commits is None else tuple(commits))

    def merged(self, shards: list[str], runs: list[Campaign], reports: list[dict[str, Any]]) -> Campaign:
        """The campaign of a merge: its shards, each one's commit; interrupted when one of its shards was."""
        known = [run.interrupted for run in runs if run.interrupted is not None]
        return replace(self, shards=tuple(shards), interrupted=any(known) if known else None,
                       commits=tuple(shard_commits(reports)))
