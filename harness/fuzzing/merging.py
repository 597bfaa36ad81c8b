"""Reports of one search run in shards, joined into one: the sweep's (``sweep --merge``,
harness/fuzzing/sweep_report.py) and the fuzzer's (``fuzz --merge``, harness/fuzzing/fuzz_report.py).

Each class once, by its class key (op, the share's implementations, cause, detail, step): a class one shard
saw only on inputs some host could not hold names fewer implementations and is still the same class
(``harness.classes.book.ClassBook``), named by the union, its witness one that reached all of them. Of two witnesses of
a class the smaller is kept; a class new in one shard is new in the merge (the stricter coverage). What is
counted is summed, findings are merged per (implementation, kind), and the merge is a run of its own (this
command, now), each shard's commit kept beside.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.classes.book import ClassBook
from harness.classes.key import ClassKey
from harness.classes.shrink import size
from harness.model import envelope, hostvalues
from harness.testees.findings import Findings

# What goes with a class's witness: replaced whole when a smaller witness is kept.
WITNESS_FIELDS = ("args", "outputs", "explanation", "codePoints", "replay", "traceAtStep", "rule", "fallbackCause",
                  "ownDetails")


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


def join_classes(reports: list[dict[str, Any]], fold: Callable[[dict[str, Any], dict[str, Any]], None],
                 with_witness: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Every class of every report once (see the module's text); ``fold(into, other)`` adds what the profile
    counts of another sighting (a sweep's extent, a fuzz run's first sighting), before the smaller witness is
    kept; ``with_witness``: the profile's fields that go with the witness too."""
    fields = (*WITNESS_FIELDS, *with_witness)
    book: ClassBook[dict[str, Any]] = ClassBook(list(reports[0]["implementations"]))

    def witness_from(into: dict[str, Any], divergence: dict[str, Any]) -> None:
        for name in fields:
            if name in divergence:
                into[name] = divergence[name]
            else:
                into.pop(name, None)

    def join(into: dict[str, Any], divergence: dict[str, Any]) -> None:
        fold(into, divergence)
        if size(hostvalues.decode_args(divergence["args"])) < size(hostvalues.decode_args(into["args"])) and \
                set(into["divergent"]) <= set(divergence["outputs"]):
            witness_from(into, divergence)
        if "new" in (into["status"], divergence["status"]):  # coverage of a merged class: the stricter
            into["status"], into["expectedEntry"], into["expectedEntries"] = "new", None, []

    for report in reports:
        for divergence in report["divergences"]:
            absent = frozenset(report["implementations"]) - frozenset(divergence["outputs"])
            def grow(held: dict[str, Any], key: ClassKey, divergence: dict[str, Any] = divergence) -> None:
                held["divergent"] = list(key.impls)
                witness_from(held, divergence)  # this sighting reached every implementation the class names

            _, held, created = book.file(ClassKey.of_report(divergence), absent,
                                         new=lambda key, divergence=divergence: dict(divergence), join=join, grow=grow)
            if not created:
                join(held, divergence)
    return list(book.held.values())


def merged_document(reports: list[dict[str, Any]], divergences: list[dict[str, Any]]) -> dict[str, Any]:
    """The first report with the joined classes and every count summed; a run envelope of its own."""
    base = reports[0]
    out = dict(base)
    described = next((r["run"]["implementations"] for r in reports if "run" in r),
                     dict.fromkeys(base["implementations"]))
    seeds = {r.get("seed") for r in reports}
    out["schema"], out["run"] = "divergence-report-v2", envelope.build(described, seeds.pop() if len(seeds) == 1
                                                                      else None)
    out["divergences"] = divergences
    out["examples"] = sum(r["examples"] for r in reports)
    out["seconds"] = round(sum(r["seconds"] for r in reports), 3)
    book = Findings()
    for report in reports:
        book.merge(report.get("findings", []))
    out["findings"] = book.to_json()
    out["takenOut"] = sorted({name for report in reports for name in report.get("takenOut", [])})
    out["cut"] = [line for report in reports for line in report.get("cut", [])]
    refused: dict[str, int] = {}
    for report in reports:
        for name, count in report.get("batchLinesRefused", {}).items():
            refused[name] = refused.get(name, 0) + count
    out["batchLinesRefused"] = refused
    problems = list(dict.fromkeys(p for r in reports for p in r.get("expectedCheck", {}).get("problems", [])))
    passes = {(p["impl"], p["id"]): p for r in reports for p in r.get("expectedCheck", {}).get("unexpectedPasses", [])}
    out["expectedCheck"] = {"problems": problems, "unexpectedPasses": list(passes.values())}
    out["ok"] = all(d["status"] != "new" for d in divergences) and not out["findings"] and not problems
    return out


def shard_commits(reports: list[dict[str, Any]]) -> list[str]:
    return sorted({r["run"]["project"]["commit"] or "unknown" for r in reports if "run" in r})
