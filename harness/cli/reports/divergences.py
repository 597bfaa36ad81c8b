"""The divergence reports' kind (``Kind.DIVERGENCES``, schemas divergence-report-v1 and -v2): its part in a run's
verdict, its table (``report show``), its diff (harness/classes/rundiff.py, ``diff_divergences``), its merge
(harness/classes/report.py) and its page section: every class once, a card each, anchored by its identity."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.classes import history, rundiff
from harness.classes.kinds import Kind
from harness.classes.record import ClassRecord, Swept
from harness.classes.replay import replay_of
from harness.classes.report import classes as report_classes
from harness.classes.report import expected_problems
from harness.cli import views
from harness.cli.html import (
    Source,
    attrs,
    badge,
    code,
    escape,
    html_table,
    marked,
    output_tokens,
    side_by_side,
    tokens,
)
from harness.cli.reports.kind import ReportKind, Section
from harness.cli.views import (
    Part,
    divergence_evidence,
    fenced,
    printable,
    show_value,
    table,
    witness,
)
from harness.differential.explain import char_ranges, code_point_runs
from harness.model import hostvalues
from harness.model.envelope import ledger_of
from harness.model.unicode_info import describe


def status_of(record: ClassRecord) -> str:
    """new, or expected with every covering entry named: ``expected: ID (impl, impl); ID2 (impl)``."""
    if record.status != "expected":
        return record.status
    by_id: dict[str, list[str]] = {}
    for entry in record.coverage.entries:
        impl, _, entry_id = entry.partition("/")
        by_id.setdefault(entry_id, []).append(impl)
    named = "; ".join(f"{entry_id} ({', '.join(owners)})" for entry_id, owners in by_id.items())
    return f"expected: {named}" if named else "expected"


def cause_text(record: ClassRecord) -> str:
    return record.cause + (f" ({record.detail})" if record.detail else "")


def extent(record: ClassRecord) -> str:
    """How far a class reaches: a sweep's code points and inputs; otherwise the characters it is about."""
    swept = record.extent.swept
    if swept is not None:
        return f"{swept.code_point_count:,} cp, {len(swept.ranges):,} runs"
    chars = char_ranges(record.characters)
    if not chars:
        return "-"
    return ", ".join(chars[:3]) + (f" +{len(chars) - 3}" if len(chars) > 3 else "")


CLASS_HEADERS = ("#", "op", "impls", "cause", "step", "extent", "witness", "status")


def class_rows(records: Sequence[ClassRecord]) -> list[list[str]]:
    return [[str(number), record.op, ", ".join(record.divergent), cause_text(record), record.step or "-",
             extent(record), witness(record.witness.args), status_of(record)]
            for number, record in enumerate(records, 1)]


def classes_view(report: dict[str, Any], fmt: str = "text", show: str = "new") -> str:
    """A divergence report: the table of its classes, then details of the new ones (``show='all'``: of
    every one), then the expected-list problems and the findings."""
    from harness.testees.findings import render as render_findings

    divergences = report_classes(report)
    out = []
    if divergences:
        out.append(table(CLASS_HEADERS, class_rows(divergences), fmt, title=f"{len(divergences)} divergence class(es)"))
    else:
        out.append("no divergences")
    details = [(n, d) for n, d in enumerate(divergences, 1) if show == "all" or d.new]
    for number, divergence in details:
        out.append(details_of(number, divergence, fmt))
    problems = expected_problems(report)
    if problems:
        listed = "\n".join(f"  - {printable(p)}" for p in problems)
        out.append("expected-divergence list problems:\n" + (fenced(listed) if fmt == "markdown" else listed))
    if report.get("findings"):
        rendered = render_findings(report["findings"])
        out.append("findings about testees (not divergences):\n"
                   + (fenced(rendered) if fmt == "markdown" else rendered))
    ledger = ledger_of(report)
    if ledger is not None:
        shown = "\n".join(piece for line in ledger.lines()  # continued deeper than its implementations' lines
                          for piece in views.hanging(printable(line), views.width(), more=4))
        out.append(fenced(shown) if fmt == "markdown" else shown)
    return "\n\n".join(out)


def ranges_text(swept: Swept, limit: int = 4) -> str:
    """A sweep class's code points as runs: the first ``limit``, then how many more; surrogate pairs."""
    shown = []
    for first, last in swept.ranges[:limit]:
        if first == last:
            shown.append(f"U+{first:04X} {describe(first, {}).name}")
        else:
            shown.append(f"U+{first:04X}..U+{last:04X} ({last - first + 1})")
    more = len(swept.ranges) - len(shown)
    if more > 0:
        shown.append(f"+{more} more runs")
    if swept.surrogate_pairs:
        shown.append(f"{swept.surrogate_pairs:,} surrogate pairs")
    return "; ".join(shown)


def details_of(number: int, record: ClassRecord, fmt: str = "text") -> str:
    """One class in full: the explanation, each implementation's output, the code points, the replay; every
    line safe to print (``printable``) and wrapped at spaces to the view's columns (``views.width``; its
    continuation lines indented under it; a word longer than the line broken)."""
    witness = record.witness
    lines = [f"#{number} {record.op}  {cause_text(record)}  [{status_of(record)}]"]
    lines.append(f"   {witness.explanation}")
    for name, value in hostvalues.decode_args(witness.args).items():
        lines.append(f"   {name} = {show_value(value, 100)}")
    for impl, output in witness.outputs.items():
        mark = "*" if impl in record.divergent else " "
        if "ok" in output:
            shown = "ok    " + show_value(hostvalues.decode(output["ok"]), 90)
        else:
            shown = f"error {output['error']['code']}: {output['error'].get('message', '')[:80]}"
        lines.append(f"   {mark} {impl:<10} {shown}")
    said = sides_text(record)  # the pairwise view: do the divergent sides agree with each other?
    if said:
        lines.append(f"   {said}")
    swept = record.extent.swept
    if swept is not None:  # a sweep class: its extent and templates
        lines.append(f"   {swept.inputs:,} inputs, {swept.code_point_count:,} code points: {ranges_text(swept)}")
        lines.append("   templates: " + ", ".join(f"{t} {n:,}" for t, n in swept.templates.items()))
    for info in witness.code_points[:8]:
        lines.append(f"   {info.code_point:<8} {info.general_category}  {info.name[:40]:<40} age {info.age}")
    lines.append(f"   replay: {replay_of(record)}")
    # Made printable before it is wrapped: textwrap would turn a CR or a tab into a space, unseen.
    columns = views.width()
    text = "\n".join(piece for line in lines for piece in views.hanging(printable(line), columns))
    return fenced(text) if fmt == "markdown" else text


def _divergence_part(path: str, document: dict[str, Any]) -> Part:
    new = sum(record.new for record in report_classes(document))
    problems = expected_problems(document)
    findings = sum(f.get("count", 1) for f in document.get("findings") or [])
    red = []
    if new:
        red.append(f"{new} new divergence class(es)")
    if problems:
        red.append(f"{len(problems)} expected-list problem(s)")
    if findings:
        red.append(f"{findings} finding(s) about testees")
    ledger = ledger_of(document)
    if ledger is not None and not ledger.ok:
        red.append("the work not done (its ledger): " + "; ".join(ledger.problems()))
    if not red and not document.get("ok", True):
        red.append("not ok (see the report)")
    evidence = divergence_evidence(document)
    return Part(path, f"{document.get('profile', '?')} run", evidence, red,
                uncounted=not evidence and document.get("profile") == "ci")


RANGES_SHOWN = 12  # a class's character ranges listed with names; the rest counted


def extent_html(record: ClassRecord) -> str:
    """The class's reach: a sweep's inputs and code point runs; the characters the cause is about, as ranges
    with the first and last one's name and age."""
    parts = []
    swept = record.extent.swept
    if swept is not None:
        parts.append(f"<p>{swept.inputs:,} swept inputs, {swept.code_point_count:,} code points in "
                     f"{len(swept.ranges):,} runs"
                     + (f", {swept.surrogate_pairs:,} surrogate pairs" if swept.surrogate_pairs else "")
                     + "; templates: " + escape(", ".join(f"{t} {n:,}" for t, n in swept.templates.items())) + "</p>")
    runs = code_point_runs(record.characters)
    if runs:
        rows = []
        for first, last in runs[:RANGES_SHOWN]:
            low, high = describe(first, {}), describe(last, {}) if last != first else None
            names = escape(low.name) + (f" .. {escape(high.name)}" if high else "")
            ages = escape(str(low.age)) + (f" .. {escape(str(high.age))}" if high and high.age != low.age else "")
            rows.append([code(f"U+{first:04X}" if first == last else f"U+{first:04X}..U+{last:04X}"),
                         str(last - first + 1), names, ages])
        more = len(runs) - RANGES_SHOWN
        parts.append(html_table(("characters", "count", "names", "age"), rows, class_="extent")
                     + (f"<p>+{more} more ranges (the report has all {len(runs)})</p>" if more > 0 else ""))
    elif not parts:
        parts.append("<p>not about characters</p>")
    return "".join(parts)


def witness_html(record: ClassRecord) -> str:
    rows = [[code(name), f"<code class='value'>{marked(tokens(value))}</code>"]
            for name, value in hostvalues.decode_args(record.witness.args).items()]
    return html_table(("argument", "value"), rows, class_="witness")


def json_fields(record: ClassRecord) -> dict[str, dict[str, Any]] | None:
    """An op whose result is a JSON text (the registry's ``result_kind``: decide_write), every output a JSON
    object: each implementation's fields (name -> value); None where any output is not one (an error, a text
    that is not JSON or no object): it is then shown as text."""
    from harness.model import registry

    op = registry.OPS.get(record.op)
    if op is None or op.result_kind != "json":
        return None
    fields = {}
    for name, output in record.witness.outputs.items():
        value = hostvalues.decode(output["ok"]) if "ok" in output else None
        try:
            parsed = json.loads(value) if isinstance(value, str) else None
        except ValueError:
            return None
        if not isinstance(parsed, dict):
            return None
        fields[name] = parsed
    return fields


def fields_html(record: ClassRecord, oracle: str, fields: dict[str, dict[str, Any]]) -> str:
    """A JSON result's fields, a row each (in the oracle's order, then the others'), a column per
    implementation; a field whose value differs from the oracle's is marked (``tr.differs``), and within it
    the characters that differ, as in a text output."""
    names = list(dict.fromkeys(key for name in (oracle, *fields) for key in fields.get(name, {})))
    heads = "".join(f"<th{attrs(data_impl=name, class_='divergent' if name in record.divergent else None)}>"
                    f"{escape(name)}{' (oracle)' if name == oracle else ''}</th>" for name in fields)
    rows = []
    missing = object()
    for key in names:
        values = {name: fields[name].get(key, missing) for name in fields}
        differs = any(value != values.get(oracle, missing) for value in values.values())
        shown = side_by_side({name: tokens(value) if value is not missing else ["(absent)"]
                              for name, value in values.items()}, oracle, record.divergent)
        cells = "".join(f"<td{attrs(data_impl=name)}><code class='value'>{html}</code></td>"
                        for name, html in shown.items())
        rows.append(f"<tr{attrs(data_field=key, class_='differs' if differs else None)}><th scope='row'>"
                    f"{escape(key)}</th>{cells}</tr>")
    return (f"<table class='outputs fields'><thead><tr><th>field</th>{heads}</tr></thead><tbody>{''.join(rows)}"
            "</tbody></table>")


def outputs_html(record: ClassRecord, oracle: str) -> str:
    """Each implementation's output side by side, the characters that differ from the oracle's marked; a
    JSON result (``json_fields``) field by field, the fields that differ marked, under the outputs as sent."""
    fields = json_fields(record)
    values = {name: output_tokens(output) for name, output in record.witness.outputs.items()}
    shown = side_by_side(values, oracle, record.divergent)
    heads = "".join(f"<th{attrs(data_impl=name, class_='divergent' if name in record.divergent else None)}>"
                    f"{escape(name)}{' (oracle)' if name == oracle else ''}</th>" for name in shown)
    cells = "".join(f"<td{attrs(data_impl=name, class_='divergent' if name in record.divergent else None)}>"
                    f"<code class='value'>{html}</code></td>" for name, html in shown.items())
    sent = f"<table class='outputs'><thead><tr>{heads}</tr></thead><tbody><tr>{cells}</tr></tbody></table>"
    if fields is None:
        return sent
    return (fields_html(record, oracle, fields)
            + f"<details class='as-sent'><summary>the outputs as sent</summary>{sent}</details>")


def trace_html(record: ClassRecord, oracle: str) -> str:
    found = record.witness.trace_at
    if not found:
        return ("<p class='none'>No trace on some side: the cause was named by counterfactuals (a black box, "
                "or a crash).</p>")
    values = {name: tokens(entry["value"]) for name, entry in found.items()}
    # Entries are compared with the oracle's only at the same place in the trace (an implementation that
    # parts elsewhere is shown as it is).
    at = found.get(oracle, {}).get("index")
    shown = side_by_side(values, oracle, record.divergent,
                         comparable=[name for name, entry in found.items() if entry["index"] == at])
    rows = [[escape(name), str(found[name]["index"]), code(found[name]["step"]),
             f"<code class='value'>{shown[name]}</code>"] for name in found]
    return html_table(("implementation", "entry", "step", "value"), rows, class_="trace-at")


def entries_html(record: ClassRecord, notes: dict[str, dict[str, Any]]) -> str:
    named = record.coverage.entries
    if not named:
        return "<p class='entries none'>No expected entry covers it: it is new.</p>"
    items = []
    for name in named:
        entry = notes.get(name)
        note = escape(entry.get("note") or "") if entry else "(not found in the expected lists read)"
        items.append(f"<li{attrs(data_entry=name)}>{code(name)}: {note}</li>")
    return f"<ul class='entries'>{''.join(items)}</ul>"


@dataclass(frozen=True)
class Seen:
    """A class as the page shows it: once, whichever reports saw it (each a label and its path), by one of
    its sightings (``pick``: uncovered before covered, then the smallest witness)."""

    record: ClassRecord
    reports: tuple[tuple[str, str], ...]

    @property
    def seen_in(self) -> str:
        return ", ".join(f"{label} ({Path(path).name})" for label, path in self.reports)

    @property
    def anchor(self) -> str:
        return self.record.key.anchor


def seen_classes(sources: Sequence[Source]) -> list[Seen]:
    """Every class of the divergence reports once, new ones first, in the order the reports first show them."""
    found: dict[tuple[Any, ...], tuple[ClassRecord, list[tuple[str, str]]]] = {}
    for source in sources:
        if source.kind != Kind.DIVERGENCES:
            continue
        for record in report_classes(source.document):
            key = record.key.identity
            report = (source.label, str(source.path))
            if key not in found:
                found[key] = (record, [report])
                continue
            shown, reports = found[key]
            if report not in reports:
                reports.append(report)
            found[key] = (pick(shown, record), reports)
    classes = [Seen(record, tuple(reports)) for record, reports in found.values()]
    return sorted(classes, key=lambda seen: not seen.record.new)  # stable: first seen first


def pick(one: ClassRecord, other: ClassRecord) -> ClassRecord:
    """The sighting a class is shown by: one no entry covers (some run found it new), else the smaller witness
    by the one order of smaller the merge keeps too (``Witness.size``, harness/classes/shrink.py's measure; not
    the JSON text's length, which counts an escaped character six times); the first of two equal ones."""
    def rank(record: ClassRecord) -> tuple[bool, int]:
        return not record.new, record.witness.size

    return other if rank(other) < rank(one) else one


LAZY_FROM = 100  # from this many classes on, a card's details are filled in when it is opened or comes near


def sides_text(record: ClassRecord) -> str | None:
    """The pairwise view of a class of several implementations, in words (None for one implementation)."""
    if len(record.divergent) < 2:
        return None
    sides = record.witness.sides(record.op, record.divergent)
    if len(sides) == 1:
        return "the divergent sides agree with each other"
    return "the divergent sides differ from each other too: " + " | ".join(" = ".join(side) for side in sides)


def sides_html(record: ClassRecord) -> str:
    said = sides_text(record)
    return f"<p class='sides'>{escape(said)}.</p>" if said else ""


def class_body(seen: Seen, oracle: str, notes: dict[str, dict[str, Any]]) -> str:
    """A class's details: who is in its share and what named it, the explanation, witness, outputs, where the
    traces part, extent, covering entries and the replay command."""
    record = seen.record
    oracle = record.witness.oracle or oracle  # the run's oracle of the op, as the report recorded it
    rule, fallback = record.witness.rule, record.witness.fallback
    named_by = f"named by the trace rule {code(rule)}" if rule else "named by counterfactuals"
    if fallback:
        other = fallback[0] + (f" ({fallback[1]})" if fallback[1] else "")
        named_by += f"; the counterfactual classifier says {code(other)}"
    return "".join([
        f"<p class='impls'>Implementations of this share: <b>{escape(', '.join(record.divergent))}</b>"
        f" against the oracle {escape(oracle)}; {named_by}.</p>", sides_html(record),
        f"<p class='explanation'>{escape(record.witness.explanation)}</p>",
        "<h4>Witness</h4>", witness_html(record),
        "<h4>Outputs</h4>", outputs_html(record, oracle),
        "<h4>Where the traces part</h4>", trace_html(record, oracle),
        "<h4>Extent</h4>", extent_html(record),
        "<h4>Expected entries</h4>", entries_html(record, notes),
        "<h4>Replay</h4>", f"<pre class='replay'>{escape(replay_of(record))}"
        "</pre>",
    ])


def class_html(seen: Seen, number: int, oracle: str, notes: dict[str, dict[str, Any]],
               bodies: dict[str, str] | None = None, since: str = "") -> str:
    """A class's card: its one-line head (always shown, its anchor a link to it), its details folded for an
    expected class (``<details>``, opened when the page is opened at its anchor) and open for a new one.
    ``bodies`` given (a page of many classes): the details go there, by anchor, and the card holds an empty
    slot the page's script fills when the card is opened or comes near the window."""
    record = seen.record
    cause = cause_text(record)
    status = record.status
    anchor = seen.anchor
    head = (f"<h3><a href='#{anchor}'>#{number}</a> {code(record.op)} "
            f"<span class='cause'>{escape(cause)}</span> at <span class='step'>"
            f"{escape(record.step or '- (counterfactuals)')}</span> "
            f"{badge(status, status)} <span class='seen-in'>seen in {escape(seen.seen_in)}</span>{since}</h3>")
    body = class_body(seen, oracle, notes)
    if bodies is not None:
        bodies[anchor] = body
        body = "<div class='card-body' data-lazy='1'>(its details come with the page's script)</div>"
    folded = "" if status == "new" else " class='folded'"
    article = attrs(id=anchor, data_op=record.op, data_reports=" ".join(path for _, path in seen.reports)) \
        + class_attrs(record, f"class {status}")
    summary = "details" if status == "new" else "details (an expected entry covers it)"
    return (f"<article{article}>{head}<details{folded}{' open' if status == 'new' else ''}><summary>{summary}"
            f"</summary>{body}</details></article>")


def run_name(summary: dict[str, Any]) -> str:
    ended = summary.get("ended") or summary["run"]["ended"]
    commit = (summary.get("commit") or "")[:8]
    return f"{ended}" + (f" ({commit})" if commit else "")


def since_html(seen: Seen, past: history.Past | None, since: history.Since | None = None) -> str:
    """Since when a class is seen, in the runs of the history: since an earlier run, changed since the last
    (``since``: it grew, shrank or moved, as report diff says it), or new in this one."""
    if past is None or not past.runs:
        return ""
    first = past.first_seen(seen.anchor)
    times = sum(past.seen(seen.anchor))
    kin = since.kin(seen.anchor) if since is not None and first is None else None
    if kin is not None:
        return (f" <span{attrs(class_='since changed-here', data_since='')}>changed since the last run: "
                f"{escape('; '.join(kin[1].how()))} ({times} of the {len(past.runs)} before)</span>")
    if first is None:
        return (f" <span{attrs(class_='since new-here', data_since='')}>not in the last run "
                f"({times} of the {len(past.runs)} before)</span>")
    return (f" <span{attrs(class_='since', data_since=run_name(first))}>since {escape(run_name(first))}, in "
            f"{times} of the {len(past.runs)} runs before</span>")


def classes_section(sources: Sequence[Source], oracle: str, notes: dict[str, dict[str, Any]],
                    past: history.Past | None = None) -> str:
    """The page's section of divergence classes: the one renderer, harness/cli/class_groups.py's (every class once,
    in groups of the classes that share op, cause, step and implementations, each holding its classes' cards made
    here: ``class_html``). Imported when called: class_groups builds on this module's cards."""
    from harness.cli import class_groups

    return class_groups.classes_section(sources, oracle, notes, past)


def search_text(record: ClassRecord) -> str:
    """What the class search matches (lowercase): op, cause, detail, step, the characters (as U+XXXX and
    ranges), the witness's code points with their names, and the witness as the tables show it."""
    points = [f"{p.code_point} {p.name}" for p in record.witness.code_points]
    parts = [record.op, record.cause, record.detail or "", record.step or "", *char_ranges(record.characters),
             *points, views.witness(record.witness.args, 400)]
    return " ".join(parts).lower()


def class_attrs(record: ClassRecord, kind: str) -> str:
    """What the class filters read (page.js): the share's implementations, the status, the cause, the text
    the search matches."""
    return attrs(class_=kind, data_impls=" ".join(record.divergent), data_status=record.status,
                 data_cause=record.cause, data_search=search_text(record))


def expected_notes(sources: Sequence[Source]) -> dict[str, dict[str, Any]]:
    """The covering entries the reports name, ``IMPL/ID`` -> the entry as its list has it (its note), read from
    each implementation's expected list (harness/classes/expected.path_for); a list that cannot be read
    gives none (the page says so at the entry)."""
    from harness.classes.expected import path_for, read_list

    wanted = {name.partition("/")[0] for s in sources if s.kind == Kind.DIVERGENCES for r in report_classes(s.document)
              for name in r.coverage.entries}
    notes: dict[str, dict[str, Any]] = {}
    for impl in sorted(wanted):
        try:  # read whole and valid, or not at all (a BadDocument is a ValueError)
            document = read_list(path_for(impl), impl)
        except ValueError:
            continue
        for entry in document.get("entries", []):
            notes[f"{impl}/{entry['id']}"] = entry
    return notes


KIND = ReportKind(Kind.DIVERGENCES, part=_divergence_part, view=classes_view, diff=rundiff.diff_divergences,
                  section=Section("classes", "Divergence classes",
                                  lambda page: classes_section(page.sources, page.oracle, page.entries, page.past)))
