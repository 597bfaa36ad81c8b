"""Fuzz campaigns across machines: ``fuzz --shard K/N --seed S --max-examples M`` runs the share K of the task
stream of seed S (harness/fuzzing/fuzz.py, ``_tasks``), and ``fuzz --merge`` joins the shard reports
(``harness.classes.report.merge_classes``). A campaign classifies an example by its place in the stream alone
(``harness.classes.sightings.campaign_classifies``), so N merged shards of one seed, one number of examples
and one list of ops find the classes one run with those finds."""

from __future__ import annotations

from typing import Any

from harness.classes import report as divergence_report
from harness.classes.report import Campaign
from harness.fuzzing.sweep import missing_shards, parse_shard


def campaign(seed: int | None, max_examples: int | None, shard: tuple[int, int], ops: list[str],
             interrupted: bool | None = None) -> dict[str, Any]:
    """A fuzz report's ``fuzz`` section (``harness.classes.report.Campaign``): which share of which task stream
    it ran, and whether a Ctrl-C stopped it (``FuzzResult.interrupted``: a partial run)."""
    return Campaign(seed, max_examples, tuple(ops), (f"{shard[0]}/{shard[1]}",), interrupted).to_json()


def merge(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One report from the shard reports of one campaign: one seed, one number of examples, one list of ops,
    one N, no share twice (ValueError naming what differs); shares that are missing are said among the
    merged report's cuts."""
    divergence_report.check_alike(reports, "fuzz")
    runs = []
    for report in reports:
        if not report.get("fuzz"):
            raise ValueError("a report without a fuzz section (written before campaigns): run its shard again")
        runs.append(Campaign.from_json(report["fuzz"]))
    for field in Campaign.STREAM:
        if len({repr(getattr(run, field)) for run in runs}) > 1:
            raise ValueError(f"the reports ran different {field}: "
                             + ", ".join(sorted({repr(getattr(run, field)) for run in runs})))
    shards = [shard for run in runs for shard in run.shards]
    missing = missing_shards(shards)
    # A fuzz class's characters are its witness's (Found.chars): they go with the witness kept.
    out = divergence_report.merged_document(reports, divergence_report.merge_classes(reports))
    divergence_report.without_shards(out, missing, "campaign")  # its plan not all run: said, and not ok
    out["fuzz"] = runs[0].merged(sorted(shards, key=parse_shard), runs, reports).to_json()
    return out
