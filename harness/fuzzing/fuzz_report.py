"""Fuzz campaigns across machines: ``fuzz --shard K/N --seed S --max-examples M`` runs the share K of the task
stream of seed S (harness/fuzzing/fuzz.py, ``_tasks``), and ``fuzz --merge`` joins the shard reports
(harness/fuzzing/merging.py). With one worker each, N merged shards of one seed and one number of examples
find the classes one run with that seed and number finds."""

from __future__ import annotations

from typing import Any

from harness.fuzzing import merging


def campaign(seed: int | None, max_examples: int | None, shard: tuple[int, int]) -> dict[str, Any]:
    """A fuzz report's ``fuzz`` section: which share of which task stream it ran."""
    return {"seed": seed, "maxExamples": max_examples, "shards": [f"{shard[0]}/{shard[1]}"]}


def merge(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One report from the shard reports of one campaign: the same seed and number of examples, no shard
    twice (ValueError naming what differs)."""
    merging.check_alike(reports, "fuzz")
    runs = [report.get("fuzz") or campaign(report.get("seed"), None, (1, 1)) for report in reports]
    for field in ("seed", "maxExamples"):
        if len({run[field] for run in runs}) > 1:
            raise ValueError(f"the reports ran different {field}: {', '.join(sorted(str(r[field]) for r in runs))}")
    shards = [shard for run in runs for shard in run["shards"]]
    if len(set(shards)) < len(shards):
        raise ValueError(f"a shard is given twice: {', '.join(sorted(shards))}")

    def fold(into: dict[str, Any], divergence: dict[str, Any]) -> None:
        seen = [t for t in (into.get("foundAfterSeconds"), divergence.get("foundAfterSeconds")) if t is not None]
        into["foundAfterSeconds"] = min(seen) if seen else None

    out = merging.merged_document(reports, merging.join_classes(reports, fold))
    out["fuzz"] = {**runs[0], "shards": sorted(shards), "shardCommits": merging.shard_commits(reports)}
    return out
