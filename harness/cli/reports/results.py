"""The fixture results' kind (``Kind.RESULTS``, schema fixture-results-v1): its part in a run's verdict, its
table, its diff (harness/classes/rundiff.py, ``diff_results``), its merge (the newest run of each implementation:
``merged_results``) and its page section, the matrix of implementations x fixture cases."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.classes import rundiff
from harness.classes.kinds import Kind
from harness.cli.html import (
    Source,
    attrs,
    code,
    counts_html,
    escape,
    section,
    select_html,
    slug,
)
from harness.cli.reports.kind import ReportKind, Section
from harness.cli.views import Part, counted, fenced, table
from harness.model.envelope import ledger_of

RESULT_HEADERS = ("implementation", "fixture", "pass", "fail", "skip")


FAILURE_HEADERS = ("implementation", "case", "steps", "mismatch")


def results_view(document: dict[str, Any], fmt: str = "text", show: str = "new") -> str:
    """Fixture results: a row per implementation x fixture, then the failing cases (``show='all'``: the
    skipped ones too, with their reasons), then the findings about testees when the document has them."""
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for row in document["results"]:
        per = counts.setdefault((row["implementation"], row["fixture"]), {"pass": 0, "fail": 0, "skip": 0})
        per[row["state"]] += 1
    rows = [[impl, fixture, str(c["pass"]), str(c["fail"]), str(c["skip"])] for (impl, fixture), c in counts.items()]
    out = [table(RESULT_HEADERS, rows, fmt, title="fixture cases")]
    shown = [row for row in document["results"] if row["state"] == "fail" or (show == "all" and row["state"] == "skip")]
    if shown:
        out.append(table(FAILURE_HEADERS, [[r["implementation"], f"{r['fixture']}/{r['case']}", ", ".join(r["steps"]),
                                            f"{r['state']}: {r['why']}"] for r in shown], fmt,
                         title="failing cases" + (" and skipped ones" if show == "all" else "")))
    if document.get("findings"):  # check's (a file of schema fixture-results-v1 may hold the run's findings)
        from harness.testees.findings import render as render_findings

        rendered = render_findings(document["findings"])
        out.append("findings about testees (not failures of a case):\n"
                   + (fenced(rendered) if fmt == "markdown" else rendered))
    return "\n\n".join(out)


def _results_part_of(path: str, document: dict[str, Any]) -> Part:
    part = results_part(path, document["results"], document.get("findings") or [], document.get("ok", True))
    ledger = ledger_of(document)
    if ledger is not None and not ledger.ok:
        part.red.insert(0, "the work not done (its ledger): " + "; ".join(ledger.problems()))
    return part


def results_part(path: str, rows: Sequence[dict[str, Any]], findings: Sequence[dict[str, Any]],
                 ok: bool = True) -> Part:
    """Fixture results' part: the cases that passed or failed are its evidence; each implementation's failing
    cases and the findings are red."""
    failing: dict[str, int] = {}
    for row in rows:
        if row["state"] == "fail":
            failing[row["implementation"]] = failing.get(row["implementation"], 0) + 1
    red = [f"{counted(number, 'fixture case')} fail on {impl}" for impl, number in failing.items()]
    if findings:
        red.append(f"{sum(f.get('count', 1) for f in findings)} finding(s) about testees")
    if not red and not ok:
        red.append("not ok (see the report)")
    return Part(path, Kind.RESULTS.label, {"fixture case": sum(row["state"] != "skip" for row in rows)}, red)


def merged_results(sources: Sequence[Source]) -> dict[str, Any] | None:
    """One fixture-results document from every one given: each implementation's rows from the newest run
    that has it (by the run's end, then the order given); None without any."""
    documents = [s for s in sources if s.kind == Kind.RESULTS]
    if not documents:
        return None
    ordered = sorted(enumerate(documents), key=lambda pair: ((pair[1].run.get("ended") or ""), pair[0]))
    rows_of: dict[str, tuple[Source, list[dict[str, Any]]]] = {}
    for _, source in ordered:
        by_impl: dict[str, list[dict[str, Any]]] = {}
        for row in source.document["results"]:
            by_impl.setdefault(row["implementation"], []).append(row)
        for impl, rows in by_impl.items():
            rows_of[impl] = (source, rows)
    results = [row for _, rows in rows_of.values() for row in rows]
    return {"schema": rundiff.RESULTS_SCHEMA, "results": results,
            "from": {impl: str(source.path) for impl, (source, _) in rows_of.items()}}


def matrix_section(merged: dict[str, Any] | None, impls: Sequence[str]) -> str:
    if merged is None:
        return section("matrix", "Fixture cases", "<p class='none'>No fixture results among the reports "
                       "(<code>nox -s parity</code> writes <code>reports/fixture-results.json</code>; "
                       "<code>python -m harness check --impl NAME</code> one implementation's).</p>")
    columns = [name for name in impls if name in merged["from"]]
    cases: dict[tuple[str, str], dict[str, Any]] = {}
    cells: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in merged["results"]:
        key = (row["fixture"], row["case"])
        cases.setdefault(key, {"op": row["op"], "steps": row["steps"]})
        cells[(row["implementation"], *key)] = row
    ordered = sorted(cases, key=lambda key: key[0])  # by fixture, each fixture's cases in their file's order
    families = sorted({fixture for fixture, _ in cases})
    steps = sorted({step for case in cases.values() for step in case["steps"]})
    counts = {name: {"pass": 0, "fail": 0, "skip": 0} for name in columns}
    groups: dict[tuple[str, str], list[tuple[str, bool]]] = {}  # (fixture, op) -> its rows (and whether each
    # passes everywhere), in the order of the cases
    group_counts: dict[tuple[str, str], dict[str, dict[str, int]]] = {}
    failures, skips = [], {}
    for fixture, case in ordered:
        info = cases[(fixture, case)]
        group = (fixture, info["op"])
        tallies = group_counts.setdefault(group, {name: {"pass": 0, "fail": 0, "skip": 0} for name in columns})
        tds = []
        states = set()
        for impl in columns:
            row = cells.get((impl, fixture, case))
            state = row["state"] if row else "absent"
            why = (row or {}).get("why") or ("not in this implementation's results" if row is None else "")
            states.add(state)
            if state in counts[impl]:
                counts[impl][state] += 1
                tallies[impl][state] += 1
            anchor = slug("case", impl, fixture, case)
            label = {"pass": "pass", "fail": "FAIL", "skip": "skip", "absent": "-"}[state]
            inner = f'<a href="#{anchor}">{label}</a>' if state == "fail" else label
            tds.append(f"<td{attrs(class_=f'cell {state}', data_impl=impl, data_state=state, title=why)}>"
                       f"{inner}</td>")
            if state == "fail":
                failures.append((anchor, impl, fixture, case, info, why))
            elif state == "skip":
                skips.setdefault(why, []).append(f"{impl}: {fixture}/{case}")
        passing = states <= {"pass", "absent"}  # nothing to look at: folded in its group until asked for
        row_attrs = attrs(class_="case passing" if passing else "case", data_fixture=fixture, data_case=case,
                          data_op=info["op"], data_steps=" ".join(info["steps"]))
        groups.setdefault(group, []).append((
            f"<tr{row_attrs}><th scope='row'><span class='family'>{escape(fixture)}</span> {escape(case)}</th>"
            f"<td class='op'>{escape(info['op'])}</td>{''.join(tds)}</tr>", passing))
    body = []
    for (fixture, op), rows in groups.items():
        tallies = group_counts[(fixture, op)]
        head_cells = "".join(f"<td{attrs(class_='group-counts', data_impl=impl)}>{counts_html(tallies[impl])}</td>"
                             for impl in columns)
        folded = sum(passing for _, passing in rows)
        toggle = (f"<button type='button' class='unfold'>{folded} passing case(s)</button>" if folded else "")
        body.append(f"<tbody{attrs(class_='group', data_fixture=fixture, data_op=op)}>"
                    f"<tr class='group-head'><th scope='rowgroup'>{escape(fixture)} <b>{escape(op)}</b>: "
                    f"{len(rows)} case(s) {toggle}</th><td class='op'></td>{head_cells}</tr>"
                    f"{''.join(row for row, _ in rows)}</tbody>")
    head = "".join(f"<th{attrs(data_impl=impl)}>{escape(impl)}<br>{counts_html(counts[impl])}</th>"
                   for impl in columns)
    filters = (
        "<form class='filters' id='matrix-filters' onsubmit='return false'>"
        + select_html("filter-impl", "implementation", columns)
        + select_html("filter-family", "family", families)
        + select_html("filter-state", "state", ["fail", "skip", "pass"])
        + select_html("filter-step", "step", steps)
        + "<label>case <input id='filter-text' type='search' placeholder='id contains'></label>"
        + "<span id='matrix-count' aria-live='polite'></span></form>")
    table = (f"<div class='scroll'><table id='matrix-table'><thead><tr><th>case</th><th>op</th>{head}</tr></thead>"
             f"{''.join(body)}</table></div>")
    fail_html = "".join(
        f"<li{attrs(id=anchor, class_='failure', data_impl=impl, data_fixture=fixture, data_case=case)}>"
        f"<b>{escape(impl)}</b> {code(f'{fixture}/{case}')} ({escape(info['op'])}; steps "
        f"{escape(', '.join(info['steps']) or '-')})<pre class='mismatch'>{escape(why)}</pre></li>"
        for anchor, impl, fixture, case, info, why in failures)
    failing = (f"<h3>Failing cases ({len(failures)})</h3><ol id='failures'>{fail_html}</ol>" if failures
               else "<p id='failures' class='ok'>No fixture case fails.</p>")
    skip_html = "".join(
        f"<li><b>{len(which)}</b> {escape(why)}<details><summary>which</summary>{escape(', '.join(which))}"
        "</details></li>" for why, which in sorted(skips.items(), key=lambda item: -len(item[1])))
    skipped = (f"<details id='skips'><summary>Skipped cases, by reason ({sum(map(len, skips.values()))})"
               f"</summary><ul>{skip_html}</ul></details>" if skips else "")
    sources = "; ".join(f"{escape(impl)} from {code(path)}" for impl, path in merged["from"].items())
    intro = (f"<p>{len(ordered)} cases x {len(columns)} implementations ({sources}), grouped by fixture and op "
             "with each group's counts; the cases every implementation passes are folded into their group until "
             "it is unfolded or a filter asks for them. A cell's tooltip is its mismatch or skip reason; a failing "
             "cell links to its mismatch below.</p>")
    return section("matrix", "Fixture cases", intro + filters + table + failing + skipped)


KIND = ReportKind(Kind.RESULTS, part=_results_part_of, view=results_view, diff=rundiff.diff_results,
                  section=Section("matrix", "Fixture cases", lambda page: matrix_section(page.merged, page.impls)))
