"""The conformance page: ``python -m harness report html [REPORTS...] -o DIR`` (``nox -s report``).

One static, self-contained ``index.html`` made from report documents (the JSON the commands write), that
opens from the file system and as a CI artifact: its styles and its script are inline, and it asks for
nothing outside its folder. What it shows (docs/reports.md, "The page"):

- the matrix of implementations x fixture cases (pass, fail with the mismatch, skip with its reason) with
  filters by implementation, family, state and step, from fixture-results documents (the newest run of each
  implementation wins);
- every divergence class of every divergence report, in folded groups of the classes that share op, cause,
  step and implementations, each group's row with its count and the witness of its smallest class
  (harness/cli/class_groups.py); each class's card: cause, step, extent (code points as ranges, with names
  and ages), the minimal witness, each implementation's output side by side with the characters that differ
  from the oracle's marked, each side's trace entry where the traces part, the covering expected entries
  with their notes, the replay command;
- each implementation's self-description and Unicode versions; the findings about testees; the expected-list
  problems;
- the parity run's own result: its tests per implementation (parity-ran-v1) and its JUnit file's failing tests;
- at the top, one verdict of every report of the run (views.Verdict: red when any part is red, naming what
  it rests on: "all agree on 1 input", "no divergence in 12,000 examples"); a report's run's other reports,
  as its command line names them (rundiff.read_run), are read with it;
- with baselines: what changed since (``harness/classes/rundiff.py``, as ``report diff`` says it).

Everything shown is computed here from the documents; nothing is fetched and no implementation is run. Every
text a report brings goes through ``escape``: its control characters made visible as the terminal shows them
(harness/model/printable.py: ``\\u001B``), then HTML-escaped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape as html_escape
from pathlib import Path
from typing import Any

from harness.classes import history, rundiff
from harness.classes.kinds import Kind
from harness.cli import reports, views
from harness.cli.html import PageContext, Source, attrs, badge, code, data_block, escape, html_table, section, slug
from harness.cli.reports.divergences import expected_notes, run_name, seen_classes
from harness.cli.reports.results import merged_results, results_part
from harness.model import envelope, untrusted
from harness.model.files import atomic_write, make_folder
from harness.model.printable import printable, printable_block
from harness.model.status import UsageError

ASSETS = Path(__file__).with_name("page_assets")  # page.css and page.js, inlined into the page
GENERATOR = "memgate-parity report html"  # the page's generator meta (harness/tools/reports_check.py knows it by it)
GENERATOR_META = f"<meta name='generator' content='{GENERATOR}'>"
EVIDENCE_LIMIT = 600  # characters of one evidence field of a finding (findings.render's)






def read(paths: Iterable[Path]) -> list[Source]:
    """The reports at ``paths``, each validated against the schema it names (rundiff.read: ValueError naming
    the file and what is wrong)."""
    return [Source(Path(path), rundiff.read(path)) for path in paths]


@dataclass(frozen=True)
class Run:
    """The reports a page is made from: the ones given and the others of their runs (``sources``), what is
    wrong with the runs (a report a run always writes, not there or another run's: red) and notes."""

    sources: list[Source]
    problems: list[str]
    notes: list[str]


def read_run(paths: Iterable[Path]) -> Run:
    """The reports at ``paths`` and the other reports of their runs (rundiff.read_run); ValueError naming a
    file that is not a report."""
    found = rundiff.read_run(list(paths))
    return Run([Source(path, document) for path, document in found.documents], found.problems, found.notes)


def read_baselines(paths: Iterable[Path]) -> list[Source]:
    """Baselines: divergence reports or fixture results (what report diff compares); anything else is a
    ValueError naming it."""
    sources = read(paths)
    for source in sources:
        if source.kind not in reports.COMPARABLE:
            raise ValueError(f"--baseline {source.path}: a {source.document['schema']} document; a baseline is a "
                             "divergence report or fixture results")
    return sources


RUN_SCHEMAS = (*rundiff.DIVERGENCE_SCHEMAS, rundiff.RESULTS_SCHEMA, rundiff.RAN_SCHEMA)


# The folders of the other parity runs (noxfile): reports/python-3.12/, a Python other than the default;
# reports/node-24/, the Node testees on a pinned LTS Node (nox -s parity-node).
PYTHON_FOLDERS = ("python-*", "node-*")


def latest_reports(directory: Path) -> list[Path]:
    """The reports in ``directory`` and in its folders of other runs (``python-3.12/``: the parity runs of the
    other Pythons of the matrix; ``node-24/``: the Node testees' on an LTS Node; each a run of its own) that the
    page shows: divergence reports, fixture results, the parity run's per-implementation counts (``*.json`` by
    their schema) and JUnit files (every ``*.xml``: a folder of reports holds no other XML, and a broken one is
    an error naming it), by name; others (bench) are left out. Every run counts in the verdict: its tests, its
    counts, its divergences."""
    found = []
    runs = sorted(p for pattern in PYTHON_FOLDERS for p in directory.glob(pattern) if p.is_dir())
    folders = [directory, *runs]
    for path in [p for folder in folders for p in sorted([*folder.glob("*.json"), *folder.glob("*.xml")])]:
        if path.suffix == ".xml":
            found.append(path)
            continue
        try:  # the untrusted reader: a file nested too deep, too big or no regular file (a FIFO: never waited
            # on) is skipped like any other that is not a report
            schema = untrusted.read_document(path, "report").get("schema")
        except ValueError:
            continue
        if schema in RUN_SCHEMAS:
            found.append(path)
    return found


# -- values shown as tokens, so that the characters that differ can be marked ------------------------------



















# -- pieces of HTML ----------------------------------------------------------------------------------------











# -- the sections ------------------------------------------------------------------------------------------

def implementations_of(sources: Sequence[Source]) -> list[str]:
    """Every implementation the reports name, in the order they first name them (the oracle first: every
    run opens it first)."""
    names: dict[str, None] = {}
    for source in sources:
        names.update(dict.fromkeys(source.run.get("implementations") or {}))
        names.update(dict.fromkeys(source.document.get("implementations") or {}))
        if source.kind == Kind.RAN:
            names.update(dict.fromkeys(source.document["counts"]))
        for row in source.document.get("results", []):
            names[row["implementation"]] = None
    return list(names)










































def run_summary(sources: Sequence[Source], merged: dict[str, Any] | None, judged: views.Verdict) -> dict[str, Any]:
    """This run in a few lines (schemas/run-summary-v1.schema.json): its classes by identity, each
    implementation's fixture cases and classes; what ``report html --history`` keeps."""
    every = seen_classes(sources)
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for row in (merged or {}).get("results", []):
        cases = counts.setdefault(row["implementation"], {"cases": {}, "classes": {}})["cases"]
        cases[row["state"]] = cases.get(row["state"], 0) + 1
    for seen in every:
        for name in seen.record.divergent:
            tally = counts.setdefault(name, {"cases": {}, "classes": {}})["classes"]
            tally[seen.record.status] = tally.get(seen.record.status, 0) + 1
    newest = max(sources, key=lambda s: s.run.get("ended") or "", default=None)
    return {
        "schema": history.SCHEMA, "run": envelope.build({}),
        "ended": newest.run.get("ended") if newest else None,
        "commit": ((newest.run.get("project") or {}).get("commit") if newest else None),
        "verdict": judged.headline,
        "classes": [history.Summarised.of(seen.record).to_json() for seen in every],
        "implementations": counts,
    }


def _tally(summary: dict[str, Any], name: str) -> str:
    got = summary["implementations"].get(name)
    if got is None:
        return "-"
    cases, classes = got["cases"], got["classes"]
    parts = [f"{cases.get('fail', 0)} failing case(s)"] if cases else []
    parts += [f"{classes.get('new', 0)} new, {classes.get('expected', 0)} expected class(es)"] if classes else []
    return "; ".join(parts) or "no class"


def history_section(now: dict[str, Any], past: history.Past | None) -> str:
    """The last runs side by side, oldest first, this one last: each run's verdict and, per implementation,
    its failing cases and its classes; the classes this run has that the last one had not."""
    if past is None or not past.runs:
        return ""
    runs = [summary for _, summary in past.runs] + [now]
    names = sorted({name for summary in runs for name in summary["implementations"]})
    head = "".join(f"<th>{escape(run_name(summary))}</th>" for summary in runs[:-1]) + "<th>this run</th>"
    verdicts = "".join(f"<td>{escape(summary['verdict'])}</td>" for summary in runs)
    rows = [f"<tr class='verdicts'><th scope='row'>verdict</th>{verdicts}</tr>"]
    rows += [f"<tr{attrs(data_impl=name)}><th scope='row'>{escape(name)}</th>"
             + "".join(f"<td>{escape(_tally(summary, name))}</td>" for summary in runs) + "</tr>" for name in names]
    # As report diff pairs them: a class that grew, shrank or moved is changed, not arrived and gone.
    since = history.since_last(history.classes_of(runs[-2]), history.classes_of(now))
    lines = "".join(f"<li><a href='#{c.anchor}'>{escape(c.op)} {escape(c.cause)}</a> "
                    f"({escape(', '.join(c.impls))})</li>" for c in since.arrived)
    changed = "".join(f"<li><a href='#{c.anchor}'>{escape(c.op)} {escape(c.cause)}</a> "
                      f"({escape(', '.join(c.impls))}): {escape('; '.join(how.how()))}</li>"
                      for c, _, how in since.changed)
    gone_lines = "".join(f"<li>{escape(c.op)} {escape(c.cause)} ({escape(', '.join(c.impls))}"
                         f") at {escape(c.step or '-')}</li>" for c in since.gone)
    body = (f"<p>The last {len(past.runs)} run(s) kept (<code>report html --history DIR</code>), oldest first, "
            "and this one.</p>"
            f"<div class='scroll'><table id='history-table'><thead><tr><th></th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>"
            f"<h3>In this run, not in the last ({len(since.arrived)})</h3><ul id='arrived'>{lines}</ul>"
            f"<h3>In the last run, changed in this one ({len(since.changed)})</h3><ul id='changed'>{changed}</ul>"
            f"<h3>In the last run, not in this one ({len(since.gone)})</h3><ul id='gone'>{gone_lines}</ul>")
    return section("history", "History", body)








def findings_section(sources: Sequence[Source]) -> str:
    rows = []
    for source in sources:
        for finding in source.document.get("findings") or []:
            rows.append([escape(source.label), escape(finding["impl"]), code(finding["kind"]),
                         escape(finding["family"]), str(finding["count"]), escape(finding["message"]),
                         evidence_html(finding.get("evidence") or {})])
    if not rows:
        return section("findings", "Findings about testees", "<p class='ok'>None: no testee broke the protocol, "
                       "crashed, hung or answered otherwise when asked again.</p>")
    intro = ("<p>What an implementation did wrong as a program (protocol faults, crashes and hangs a fresh "
             "process then answered, answers that do not come again): findings about that testee, never "
             "divergences (docs/protocol.md, \"Verdicts\").</p>")
    return section("findings", "Findings about testees",
                   intro + html_table(("report", "implementation", "kind", "family", "count", "message",
                                       "evidence"), rows, id="findings-table"))


def evidence_html(evidence: dict[str, Any]) -> str:
    """A finding's evidence as the FINDING lines have it (harness/testees/findings.render): ``name: value``,
    a value of several lines (a stderr tail) as lines of its own, each line escaped."""
    if not evidence:
        return "-"
    items = []
    for name, value in evidence.items():
        lines = printable_block(str(value), limit=EVIDENCE_LIMIT).split("\n")  # a line break only between lines
        shown = "<br>".join(html_escape(line) for line in lines)
        items.append(f"<dt>{escape(str(name))}</dt><dd><code class='value'>{shown}</code></dd>")
    return f"<dl class='evidence'>{''.join(items)}</dl>"


def _this_run(summary: dict[str, Any], name: str) -> str:
    """An implementation's counts in this run (its fixture cases, its classes), each class count a link to the
    classes filtered to it."""
    got = summary["implementations"].get(name) or {"cases": {}, "classes": {}}
    cases = ", ".join(f"{got['cases'][state]} {state}" for state in ("pass", "fail", "skip") if got["cases"].get(state))
    classes = sum(got["classes"].values())
    link = (f"<a href='#f:class-impl={escape(name)}'>{classes} class(es)</a> ({got['classes'].get('new', 0)} new)"
            if classes else "no class")
    return (f"cases: {escape(cases)}; " if cases else "") + link


def implementations_section(sources: Sequence[Source], impls: Sequence[str],
                            summary: dict[str, Any] | None = None) -> str:
    described: dict[str, dict[str, Any] | None] = {}
    versions: dict[str, dict[str, str]] = {}
    for source in sorted(sources, key=lambda s: s.run.get("ended") or ""):
        for name, description in (source.run.get("implementations") or {}).items():
            if description is not None or name not in described:
                described[name] = description
        versions.update(source.document.get("implementations") or {})
    rows = []
    for name in impls:
        description = described.get(name) or {}
        unicode = description.get("unicode") or versions.get(name) or {}
        rows.append(f"<tr{attrs(id=slug('impl', name), data_impl=name)}><th scope='row'>{escape(name)}</th>"
                    f"<td>{escape(description.get('version', '-'))}</td>"
                    f"<td>{escape(description.get('language', '-'))}</td>"
                    f"<td>{escape(', '.join(f'{k} {v}' for k, v in unicode.items()) or '-')}</td>"
                    f"<td>{escape(', '.join(description.get('contracts', [])) or '-')}</td>"
                    f"<td>{escape(', '.join(description.get('traces', [])) or 'none (a black box)')}</td>"
                    + (f"<td class='this-run'>{_this_run(summary, name)}</td>" if summary is not None else "")
                    + "</tr>")
    head = "".join(f"<th>{h}</th>" for h in ("implementation", "version", "language", "Unicode versions",
                                              "contracts", "traced ops", *(("this run",) if summary else ())))
    return section("implementations", "Implementations",
                   "<p>Each implementation's self-description, its answer to the protocol's <code>start</code>, "
                   "from the newest report that has it.</p>"
                   f"<table id='impls-table'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def baseline_section(sources: Sequence[Source], baselines: Sequence[Source], merged: dict[str, Any] | None) -> str:
    if not baselines:
        return ""
    parts = []
    for old in baselines:
        new_doc, new_label = _counterpart(old, sources, merged)
        if new_doc is None:
            parts.append(f"<p class='none'>{code(str(old.path))} ({escape(old.label)}): no report of that kind "
                         "to compare it with.</p>")
            continue
        found = reports.diff(old.document, new_doc)
        rows = []
        order = views.CHANGE_ORDER
        for change in sorted(found.changes, key=lambda c: (order[c.change], c.kind, c.subject)):
            label = change.change + (" (blocking)" if change.blocking else "")
            rows.append(f"<tr{attrs(class_='change', data_change=change.change, data_kind=change.kind)}>"
                        f"<td>{badge(label, change.change.replace(' ', '-'))}</td><td>{escape(change.kind)}</td>"
                        f"<td>{escape(', '.join(change.impls))}</td><td>{escape(change.subject)}</td>"
                        f"<td>{escape(change.before or '-')}</td><td>{escape(change.after or '-')}</td>"
                        f"<td>{'-' if change.witness is None else code(views.witness(json.loads(change.witness), 80))}"
                        "</td></tr>")
        counts = ", ".join(f"{sum(c.change == name for c in found.changes)} {name}" for name in order)
        described = "".join(f"<li>{escape(line)}</li>" for line in found.implementations)
        head = "".join(f"<th>{h}</th>" for h in ("change", "kind", "implementations", "what", "before", "after",
                                                  "witness"))
        table = (f"<table class='baseline-table'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
                 "</table>") if rows else "<p class='ok'>Nothing changed.</p>"
        parts.append(f"<section{attrs(class_='diff', data_kind=found.kind)}><h3>{escape(new_label)} against "
                     f"{code(str(old.path))}</h3><p>{escape(counts)}, {found.unchanged} unchanged.</p>"
                     + (f"<ul class='described'>{described}</ul>" if described else "") + table + "</section>")
    intro = ("<p>As <code>python -m harness report diff</code> says it: a class is known by op, implementations, "
             "cause, detail and step (<em>changed</em> too where it grew, shrank or moved: the same op and cause, "
             "implementations in common; how is named); "
             "<em>fixed</em> only where the new run's absence is evidence (a sweep, a "
             "passing case), <em>not seen</em> where it was a sample.</p>")
    return section("baseline", "Changes since the baseline", intro + "".join(parts))


def _counterpart(old: Source, sources: Sequence[Source],
                 merged: dict[str, Any] | None) -> tuple[dict[str, Any] | None, str]:
    """The current document a baseline is compared with: the merged fixture results for fixture results; the
    newest divergence report of the same profile for a divergence report."""
    if old.kind == Kind.RESULTS:
        if merged is None:
            return None, ""
        # Only the implementations the baseline ran: one it never ran has no cases to compare, not new ones.
        theirs = {row["implementation"] for row in old.document["results"]}
        rows = [row for row in merged["results"] if row["implementation"] in theirs]
        if not rows:
            return None, ""  # no current results of the implementations the baseline ran: nothing to compare
        others = sorted({row["implementation"] for row in merged["results"]} - theirs)
        return ({"schema": rundiff.RESULTS_SCHEMA, "results": rows},
                "fixture results of " + ", ".join(sorted(theirs))
                + (f" ({', '.join(others)}: not in the baseline)" if others else ""))
    same = [s for s in sources
            if s.kind == Kind.DIVERGENCES and s.document.get("profile") == old.document.get("profile")]
    if not same:
        return None, ""
    # The newest, and of two that ended in the same second the one given last (as merged_results takes it).
    _, newest = max(enumerate(same), key=lambda pair: (pair[1].run.get("ended") or "", pair[0]))
    return newest.document, f"{newest.label} ({newest.path})"


def verdict(sources: Sequence[Source], baselines: Sequence[Source] = (), merged: dict[str, Any] | None = None,
            problems: Sequence[str] = ()) -> views.Verdict:
    """What the page says at its top and ``report html``'s status (views.Verdict): one part per divergence report
    (a new class, a finding, an expected-list problem), one for the fixture results the page shows (a run
    another run of the same implementation replaced does not count; a finding in a check's results does), one
    per parity-ran document and JUnit file (a failed or errored test); red too for each blocking change since a
    baseline and each of the runs' ``problems`` (a report a run always writes, not there)."""
    merged = merged if merged is not None else merged_results(sources)
    parts = [reports.part_of(s.path, s.document, s.kind) for s in sources if s.kind != Kind.RESULTS]
    if merged is not None:
        shown = set(merged["from"].values())  # the results the page shows
        findings = [f for s in sources if s.kind == Kind.RESULTS and str(s.path) in shown
                    for f in s.document.get("findings") or []]
        part = results_part(", ".join(sorted(shown)), merged["results"], findings)
        for source in sources:  # a check whose work was not done (its ledger) is red on the page too
            ledger = envelope.ledger_of(source.document) if source.kind == Kind.RESULTS else None
            if str(source.path) in shown and ledger is not None and not ledger.ok:
                part.red.append(f"{source.path}: the work not done (its ledger): " + "; ".join(ledger.problems()))
        parts.insert(0, part)
    found = list(problems)
    for old in baselines:
        document, label = _counterpart(old, sources, merged)
        if document is not None:
            new = reports.diff(old.document, document).new
            if new:
                found.append(f"{label}: {len(new)} new change(s) since the baseline {old.path}")
    return views.Verdict(parts, found)


def something_new(sources: Sequence[Source], baselines: Sequence[Source],
                  merged: dict[str, Any] | None = None, problems: Sequence[str] = ()) -> bool:
    """Whether the verdict is not "all agree" (``verdict``): something is red, or a part checked nothing."""
    return verdict(sources, baselines, merged, problems).state != "agree"


def new_since(sources: Sequence[Source], baselines: Sequence[Source], merged: dict[str, Any] | None = None) -> bool:
    """Whether some baseline diff has a blocking change (something new that is not covered)."""
    merged = merged if merged is not None else merged_results(sources)
    for old in baselines:
        document, _ = _counterpart(old, sources, merged)
        if document is not None and reports.diff(old.document, document).new:
            return True
    return False


def sources_section(sources: Sequence[Source], baselines: Sequence[Source]) -> str:
    rows = []
    for role, group in (("report", sources), ("baseline", baselines)):
        for source in group:
            run = source.run
            project = run.get("project") or {}
            commit = (project.get("commit") or "-")[:12] + (" (dirty)" if project.get("dirty") else "")
            rows.append([escape(role), code(str(source.path)), escape(source.document.get("schema", "?")),
                         escape(source.label), escape(run.get("session") or "-"), escape(commit),
                         escape(run.get("ended") or "-"), work_cell(source.document), code(run.get("command") or "-")])
    return section("sources", "Reports", html_table(("role", "file", "schema", "what", "nox session", "commit",
                                                       "ended", "work", "command"), rows, id="sources-table"))


def work_cell(document: dict[str, Any]) -> str:
    """A report's run ledger (harness/model/ledger.py) in one cell: its counts and whether the work was done; "-" for a
    report that keeps none."""
    try:
        ledger = envelope.ledger_of(document)
    except ValueError:
        return escape("(a ledger that does not read)")
    if ledger is None:
        return "-"
    counts = (f"{ledger.inputs:,} inputs, {ledger.compared:,} compared, {ledger.disagreeing:,} disagreeing, "
              f"{ledger.classified:,} classified")
    if ledger.ok:
        return badge("done", "pass") + " " + escape(counts)
    return (badge("not done", "fail") + " " + escape(counts) + "<br>"
            + "<br>".join(escape(printable(problem)) for problem in ledger.problems()))


def summary_section(sources: Sequence[Source], merged: dict[str, Any] | None, impls: Sequence[str],
                    judged: views.Verdict | None = None) -> str:
    """The verdict (its headline badge, what it rests on, what is red), then a badge row per implementation:
    its fixture cases, its parity tests, the classes it is in (or how much it was checked without one), its
    findings."""
    judged = judged if judged is not None else verdict(sources, (), merged)
    every = seen_classes(sources)
    rows = []
    for name in impls:
        cells = []
        if merged is not None:
            states = [r["state"] for r in merged["results"] if r["implementation"] == name]
            fails, skips = states.count("fail"), states.count("skip")
            judged_cases = len(states) - skips  # a skip is not judged: never in the denominator of a pass rate
            cells.append(badge(f"{states.count('pass')}/{judged_cases} cases pass"
                               + (f", {skips} skipped" if skips else ""), "fail" if fails else "pass")
                         if states else badge("no fixture results", "skip"))
        # A class two reports both saw (a parity run and a fuzz run) is one class: known by its identity.
        classes = [seen.record for seen in every if name in seen.record.divergent]
        new = sum(record.new for record in classes)
        if new:
            cells.append(badge(f"{new} new class(es)", "new"))
        if len(classes) - new:
            cells.append(badge(f"{len(classes) - new} expected class(es)", "expected"))
        for source in sources:
            if source.kind == Kind.RAN and name in source.document["counts"]:
                got = source.document["counts"][name]
                ran = got["passed"] + got["failed"]
                cells.append(badge(f"{got['passed']:,}/{ran:,} parity tests pass", "fail" if got["failed"] else "pass")
                             if ran else badge("no parity test ran", "fail"))
        if not classes:  # "no divergence" only where a divergence run had it, with how much it checked
            runs = [s for s in sources if s.kind == Kind.DIVERGENCES and (
                name in (s.run.get("implementations") or {}) or name in (s.document.get("implementations") or {}))]
            evidence: dict[str, int] = {}
            for source in runs:
                for unit, number in views.divergence_evidence(source.document).items():
                    evidence[unit] = evidence.get(unit, 0) + number
            if not runs:
                cells.append(badge("no divergence run", "skip"))
            elif evidence:
                cells.append(badge("no divergence " + views.on(evidence), "pass"))
            else:
                cells.append(badge("no divergence counted (a parity report counts no examples: see its tests)",
                                   "skip"))
        findings = sum(f["count"] for s in sources for f in s.document.get("findings") or [] if f["impl"] == name)
        if findings:
            cells.append(badge(f"{findings} finding(s)", "fail"))
        rows.append(f"<li{attrs(data_impl=name)}><b>{escape(name)}</b> {' '.join(cells)}</li>")
    head = badge(judged.headline, {"agree": "pass", "partial": "skip"}.get(judged.state, "fail"))  # partial: not green
    checked = (f"<p class='evidence'>Checked: {escape(views.amount(judged.evidence))}, from "
               f"{escape(views.counted(len(judged.parts), 'report'))}.</p>")
    reasons = "".join(f"<li>{escape(reason)}</li>" for reason in judged.reasons)
    listed = f"<ul class='verdict' id='verdict-reasons'>{reasons}</ul>" if reasons else ""
    return section("summary", "Summary", f"<p id='verdict' data-state='{judged.state}'>{head}</p>{checked}{listed}"
                   f"<ul class='summary'>{''.join(rows)}</ul>")








def oracle_of(impls: Sequence[str]) -> str:
    """The oracle: the declared one (implementations/*.json) when the reports name it, else the first
    implementation they name (every run opens the oracle first; a sweep's outputs are ordered by name, so
    they cannot tell)."""
    from harness.testees.impls import oracle

    try:
        declared = oracle()
    except StopIteration:
        declared = None
    if declared in impls or not impls:
        return declared or "reference"
    return impls[0]


def oracles_html(sources: Sequence[Source], oracle: str) -> str:
    """Who the oracle was: the one each class recorded (its op's oracle in its run), else ``oracle``; one name
    when every class had the same, else each op's."""
    by_op: dict[str, set[str]] = {}
    for source in sources:
        if source.kind == Kind.DIVERGENCES:
            for record in rundiff.records(source.document):
                by_op.setdefault(record.op, set()).add(record.witness.oracle or oracle)
    names = set().union(*by_op.values()) if by_op else {oracle}
    if len(names) == 1:
        return f"the oracle is <b>{escape(names.pop())}</b>"
    return "the oracles: " + "; ".join(f"{escape(op)}: <b>{escape(', '.join(sorted(found)))}</b>"
                                       for op, found in sorted(by_op.items()))


def render(sources: Sequence[Source], baselines: Sequence[Source] = (), title: str = "memgate parity",
           problems: Sequence[str] = (), notes: Sequence[str] = (), past: history.Past | None = None,
           now: dict[str, Any] | None = None) -> str:
    """The whole page as one HTML document; ``problems``, ``notes``: the runs' (``read_run``); ``past``: the
    summaries of earlier runs (``history.read``), for since when each class and count is seen; ``now``: this
    run's summary when the caller has made it (``write``, which keeps it), else made here."""
    named = implementations_of([*sources, *baselines])
    oracle = oracle_of(named)
    impls = [oracle, *(name for name in named if name != oracle)] if oracle in named else named
    merged = merged_results(sources)
    page = PageContext(sources, merged, impls, oracle, expected_notes(sources), notes, past)
    css = (ASSETS / "page.css").read_text(encoding="utf-8")
    script = (ASSETS / "page.js").read_text(encoding="utf-8")
    ended = max((s.run.get("ended") or "" for s in sources), default="")
    kinds = reports.sections()  # each report kind's section (harness/cli/reports/)
    shown = [("summary", "Summary"), *((s.ident, s.title) for s in kinds), ("history", "History"),
             ("findings", "Findings"), ("implementations", "Implementations"), ("baseline", "Baseline"),
             ("sources", "Reports")]
    nav = "".join(f"<a href='#{ident}'>{label}</a>" for ident, label in shown
                  if (ident != "baseline" or baselines) and (ident != "history" or past))
    judged = verdict(sources, baselines, merged, problems)
    now = now if now is not None else run_summary(sources, merged, judged)
    body = "".join([
        summary_section(sources, merged, impls, judged),
        *(kind.render(page) for kind in kinds),  # the divergence classes: grouped (harness/cli/class_groups.py)
        history_section(now, past) if past is not None else "",
        findings_section(sources),
        implementations_section(sources, impls, now),
        baseline_section(sources, baselines, merged),
        sources_section(sources, baselines),
    ])
    policy = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self' data:"
    # The page names its own run (the command, the nox session, the commit), as every report does: data, not
    # a script the browser runs (data_block).
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"{GENERATOR_META}"
            f"<meta http-equiv='Content-Security-Policy' content=\"{policy}\">"
            + data_block("page-run", envelope.build({})) +
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{escape(title)}: conformance</title><style>{css}</style></head><body>"
            f"<header><h1>{escape(title)}: conformance</h1><p>Made from {len(sources)} report(s)"
            + (f", the newest ended {escape(ended)}" if ended else "")
            + f"; {oracles_html(sources, oracle)}.</p><nav>{nav}</nav></header>"
            f"<main>{body}</main><script>{script}</script></body></html>\n")


def is_own_page(text: str) -> bool:
    """Whether an HTML text is a page this project wrote (its generator meta, in the head)."""
    return GENERATOR_META in text


def _check_replaceable_page(target: Path) -> None:
    """A page is written only over nothing or a page this project wrote (its generator meta): an ``--out``
    that names a folder with somebody else's index.html is refused (NotADocument, status 2)."""
    from harness.model.files import NotADocument

    if not target.exists() and not target.is_symlink():
        return
    head = ""
    if target.is_file():  # its first 4 KB, from a regular file only (never waits on a FIFO)
        try:
            with untrusted.open_regular(target, "page", max_bytes=1 << 62) as handle:
                head = handle.read(4096).decode("ascii", "replace")
        except (OSError, ValueError) as exc:
            raise NotADocument(f"{target}: cannot look at it before replacing it: "
                               f"{getattr(exc, 'strerror', None) or exc}") from None
    if not is_own_page(head):
        raise NotADocument(f"{target}: not a page this project wrote (no generator meta '{GENERATOR}'); the "
                           "harness writes a page only over one of its own: move it away or name another --out")


def write(out: Path, sources: Sequence[Source], baselines: Sequence[Source] = (), problems: Sequence[str] = (),
          notes: Sequence[str] = (), history_dir: Path | None = None, keep: int = history.KEEP) -> Path:
    """Write the page as ``out/index.html`` (atomically); its path. ``history_dir``: the page shows the last
    ``keep`` runs kept there (this run's own summary, kept before, aside) and keeps this run's summary there."""
    target = out / "index.html"
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: a file, not a folder; the page is written into a folder ({out}/index.html): "
                         "name a folder (new or the page's own) with -o")
    _check_replaceable_page(target)
    past = now = None
    if history_dir is not None:
        now = run_summary(sources, merged_results(sources), verdict(sources, baselines, problems=problems))
        past = history.read(history_dir, keep + 1)
        own = history.name_of(now)
        past = history.Past([(path, summary) for path, summary in past.runs if path.name != own][-keep:])
    make_folder(out, "the page's folder")
    # ASCII on disk (atomic_write's contract): a character outside it becomes a numeric reference.
    html = render(sources, baselines, problems=problems, notes=notes, past=past, now=now)
    atomic_write(target, html.encode("ascii", "xmlcharrefreplace").decode("ascii"))
    if history_dir is not None:
        history.write(history_dir, now)
    return target
