"""A sweep's report: its classes as ``divergence-report-v2`` (profile ``sweep``), a terminal table,
and the merge of shard reports into one with each class once."""

from __future__ import annotations

from typing import Any

from harness.classes import report as divergence_report
from harness.classes.examine import worked_out
from harness.classes.expected import ExpectedSet, covered
from harness.classes.report import document
from harness.classes.shrink import shrink
from harness.differential.explain import name_shares
from harness.fuzzing import classes
from harness.fuzzing.sweep import SweepRun, groups, missing_shards, parse_shard, position_in_batch
from harness.fuzzing.templates import BY_NAME
from harness.model import envelope, wrapping
from harness.model.printable import printable
from harness.testees.fanout import harvest
from harness.testees.testee import Testee


def build_report(run: SweepRun, opened: dict[str, Testee], expected: ExpectedSet,
                 versions: dict[str, dict[str, str]]) -> dict[str, Any]:
    """Classes of the run's disagreements, each with a shrunk witness, as a report document; the
    findings about testees (the workers', the reproduction gate's, this process's) in its findings.

    Every disagreeing input is assigned to a class by its group (harness/fuzzing/classes.py ``build``: the
    classifier explains a sample spread across each group and bisects where its causes part; a member takes the
    causes of the explained members around it in a group whose every boundary was found, and is counted
    unclassified, "mixed groups: boundary not found", in one where a boundary was not); one witness per class is
    shrunk. An interrupted sweep is not classified (its report says
    how many disagreeing inputs were left unclassified: its ledger is not done); a Ctrl-C (SIGTERM, SIGHUP) while
    classifying or shrinking stops there: the classes shrunk so far are reported, the run marked interrupted and
    the ledger's classified inputs are theirs alone."""
    findings = run.findings()
    ledger = run.ledger()
    names = list(opened)
    divergences = []
    done: list[classes.SweepClass] = []
    built = False
    if not run.interrupted:
        try:
            found = classes.build(groups(run), opened, versions, findings,
                                  lambda template, index: position_in_batch(run.settings, template, index), ledger)
            built = True
            for sweep_class in found:
                template, index = sweep_class.witness_member()
                args, responses = shrink(opened, sweep_class.op, BY_NAME[template].args(index), versions,
                                         (sweep_class.cause, sweep_class.detail), share=sweep_class.divergent)
                shares = name_shares(opened, sweep_class.op, args, responses, versions, fallback=False)
                share = next((s for s in shares if set(s.impls) & set(sweep_class.divergent)), None)
                record = classes.to_record(sweep_class, args, responses, versions, names,
                                           share.found.chars if share else (), share.found.trace_at if share else None)
                divergences.append(covered(expected, worked_out(opened, record, args, versions)))
                done.append(sweep_class)
        except KeyboardInterrupt:  # Ctrl-C (SIGTERM, SIGHUP) while classifying: what is done is the report
            run.interrupted = ledger.interrupted = True
            ledger.classified = classes.members(done)
            if not built:  # the groups counted so far are not all there is: none is counted
                ledger.not_reproduced = 0
    findings.merge(harvest(opened).findings)
    settings = run.settings
    report = document("sweep", versions, divergences, run.values, run.seconds, [], findings=findings.to_json(),
                      taken_out=run.taken_out, described=envelope.descriptions(opened), ledger=ledger)
    report["sweep"] = {
        "templates": list(settings.templates),
        "range": [f"U+{settings.first:04X}", f"U+{settings.last:04X}"],
        "shards": [f"{settings.shard[0]}/{settings.shard[1]}"],
        "values": run.values,
        "compared": sum(r["compared"] for r in run.results),
        "inexpressible": run.inexpressible(),
        "interrupted": run.interrupted,
        # until every worker's implementations were up (not in the rate); none when they never were
        "startupSeconds": None if run.unavailable else round(run.startup, 3),
        "workerRestarts": run.worker_restarts,
        "testeeRestarts": dict(run.testee_restarts),
    }
    return report


VALIDATED = 256  # items of a class's array validated against the schema: its first and last halves of this


def for_validation(report: dict[str, Any]) -> dict[str, Any]:
    """The report with each class's long arrays (its ranges, code point ranges, characters: one item per run of
    code points, 370,000 of them for a class whose inputs alternate) cut to their first and last
    ``VALIDATED // 2`` items, for the schema check of the sweep's own report: every field and every kind of item is
    still checked (the items of one array are made alike), and the check no longer takes longer than the sweep
    (27 s for a class of 741,376 code points in 370,000 runs, profiled)."""
    half = VALIDATED // 2
    cut = [{key: (value[:half] + value[-half:] if isinstance(value, list) and len(value) > VALIDATED else value)
            for key, value in divergence.items()} for divergence in report["divergences"]]
    return {**report, "divergences": cut}


def merge(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One report from shard reports of the same sweep (``harness.classes.report.merge_classes``: each class
    once, the smallest witness kept, each class's code points and templates united)."""
    divergence_report.check_alike(reports, "sweep")
    base = reports[0]
    for report in reports:
        if "sweep" not in report:
            raise ValueError("only sweep reports can be merged")
    for report in reports[1:]:
        for field in ("templates", "range"):
            if report["sweep"][field] != base["sweep"][field]:
                raise ValueError(f"the reports swept different {field}: {base['sweep'][field]} and "
                                 f"{report['sweep'][field]}")

    shards = [shard for report in reports for shard in report["sweep"]["shards"]]
    missing = missing_shards(shards)  # a shard given twice, or two splits: refused (ValueError)
    out = divergence_report.merged_document(reports, divergence_report.merge_classes(reports))
    divergence_report.without_shards(out, missing, "sweep")  # the sweep's plan not all run: said, and not ok
    sweep = dict(base["sweep"])
    sweep["shards"] = sorted(shards, key=parse_shard)
    for field in ("values", "compared"):
        sweep[field] = sum(r["sweep"][field] for r in reports)
    inexpressible: dict[str, dict[str, int]] = {}
    for report in reports:
        for impl, per in report["sweep"]["inexpressible"].items():
            for template, count in per.items():
                inexpressible.setdefault(impl, {})[template] = inexpressible.get(impl, {}).get(template, 0) + count
    sweep["inexpressible"] = inexpressible
    sweep["interrupted"] = any(r["sweep"].get("interrupted") for r in reports)
    sweep["startupSeconds"] = max((r["sweep"].get("startupSeconds") or 0.0 for r in reports), default=0.0)
    sweep["workerRestarts"] = sum(r["sweep"].get("workerRestarts", 0) for r in reports)
    restarted: dict[str, int] = {}
    for report in reports:
        for impl, count in report["sweep"].get("testeeRestarts", {}).items():
            restarted[impl] = restarted.get(impl, 0) + count
    sweep["testeeRestarts"] = restarted
    out["sweep"] = divergence_report.with_shard_commits(sweep, reports)
    return out


def summary(report: dict[str, Any], columns: int | None = None) -> str:
    """What was swept: inputs, templates, range, shards, implementations, and what some hosts cannot hold
    (the classes' table follows it: harness/cli/views.py); every line wrapped at spaces to ``columns`` (default:
    the terminal's, else 120: harness/model/wrapping.py, the views' helper), continued deeper than the lines
    under it."""
    lines = []
    sweep = report["sweep"]
    lines.append(f"swept {sweep['values']:,} inputs ({len(sweep['templates'])} templates, {sweep['range'][0]}.."
                 f"{sweep['range'][1]}, shards {', '.join(sweep['shards'])}) "
                 f"on {', '.join(report['implementations'])}; "
                 f"{sweep['compared']:,} compared")
    if sweep.get("startupSeconds") is not None:
        restarted = [f"{impl} {count:,} testee process(es)" for impl, count in sweep.get("testeeRestarts", {}).items()]
        restarted += [f"{sweep['workerRestarts']:,} worker(s)"] if sweep.get("workerRestarts") else []
        lines.append(f"  start-up: {sweep['startupSeconds']:.1f}s until every worker's implementations were up "
                     "(not in the rate)" + (f"; restarted while it ran: {', '.join(restarted)}" if restarted else ""))
    for impl, per in sweep["inexpressible"].items():
        lines.append(f"  not expressible in {impl}'s host (not sent, not compared): "
                     + ", ".join(f"{template} {count:,}" for template, count in per.items()))
    new = sum(1 for d in report["divergences"] if d["status"] == "new")
    lines.append(f"{len(report['divergences'])} class(es): {new} new, {len(report['divergences']) - new} expected")
    ledger = envelope.ledger_of(report)
    if ledger is not None:
        lines.extend(ledger.lines())
        if ledger.disagreeing:
            lines.append(f"  classified: assigned to a class by its group (the classifier explains {classes.SAMPLES} "
                         f"members spread across a group and bisects where they part, at most {classes.CALL_LIMIT}; "
                         "a stretch whose boundary is not found is left unclassified; one witness a class is shrunk)")
    room = columns or wrapping.columns()
    return "\n".join(piece for line in lines for piece in wrapping.hanging(printable(line), room, more=4))

