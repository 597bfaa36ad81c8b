"""The conformance page: ``python -m harness report html [REPORTS...] -o DIR`` (``nox -s report``).

One static, self-contained ``index.html`` made from report documents (the JSON the commands write), that
opens from the file system and as a CI artifact: its styles and its script are inline, and it asks for
nothing outside its folder. What it shows (docs/reports.md, "The page"):

- the matrix of implementations x fixture cases (pass, fail with the mismatch, skip with its reason) with
  filters by implementation, family, state and step, from fixture-results documents (the newest run of each
  implementation wins);
- every divergence class of every divergence report: cause, step, extent (code points as ranges, with names
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

import difflib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape as html_escape
from pathlib import Path
from typing import Any

from harness.classes import history, rundiff
from harness.classes.kinds import Kind
from harness.classes.record import ClassRecord
from harness.classes.report import classes as report_classes
from harness.classes.report import expected_problems
from harness.cli import views
from harness.differential.explain import char_ranges, code_point_runs
from harness.model import envelope, hostvalues, untrusted
from harness.model.files import atomic_write
from harness.model.printable import printable, printable_block
from harness.model.unicode_info import describe

ASSETS = Path(__file__).with_name("page_assets")  # page.css and page.js, inlined into the page
RANGES_SHOWN = 12  # a class's character ranges listed with names; the rest counted
GENERATOR = "memgate-parity report html"  # the page's generator meta (harness/tools/reports_check.py knows it by it)
GENERATOR_META = f"<meta name='generator' content='{GENERATOR}'>"
VALUE_LIMIT = 4000  # characters of one shown value (an output, an argument, a trace value)
EVIDENCE_LIMIT = 600  # characters of one evidence field of a finding (findings.render's)


def escape(text: str, quote: bool = True) -> str:
    """A text for the page: its control characters (C0, DEL, C1, bidi controls, newlines too) made visible
    as ``report show`` prints them (harness/model/printable.py), then HTML-escaped; every text a report
    brings goes through here."""
    return html_escape(printable(text), quote)


@dataclass(frozen=True)
class Source:
    """One report the page is made from."""

    path: Path
    document: dict[str, Any]

    @property
    def kind(self) -> Kind:
        return rundiff.kind_of(self.document)

    @property
    def run(self) -> dict[str, Any]:
        if self.kind == Kind.JUNIT:  # a JUnit file has no envelope: its testsuite properties and start
            properties = self.document.get("properties") or {}
            return {"session": properties.get("session"), "project": {"commit": properties.get("commit")},
                    "ended": self.document.get("timestamp")}
        return self.document.get("run") or {}

    @property
    def label(self) -> str:
        if self.kind == Kind.DIVERGENCES:
            return f"{self.document.get('profile', '?')} run"
        return self.kind.label


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
        if source.kind not in rundiff.DIFFS:
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
        try:  # the untrusted reader: a file nested too deep is skipped like any other that is not a report
            schema = untrusted.loads(path.read_bytes(), want=dict, max_bytes=untrusted.MAX_FILE_BYTES,
                                    max_depth=untrusted.DOCUMENT_DEPTH).get("schema")
        except (OSError, ValueError):
            continue
        if schema in RUN_SCHEMAS:
            found.append(path)
    return found


# -- values shown as tokens, so that the characters that differ can be marked ------------------------------

def text_tokens(text: str) -> list[str]:
    """A string as views.show_text shows it, one token per code point (an escape is one token, marked whole)."""
    return [views.show_char(char) for char in text]


def tokens(value: Any) -> list[str]:
    """A decoded host value as the tables show it (views.show_value), in tokens (``text_tokens``), so that two
    values compared token by token are marked where they differ."""
    if isinstance(value, str):
        return ['"', *text_tokens(value), '"']
    if isinstance(value, list | tuple):
        out = ["["]
        for number, item in enumerate(value):
            out += ([", "] if number else []) + tokens(item)
        return out + ["]"]
    if isinstance(value, dict):
        out = ["{"]
        for number, (key, item) in enumerate(value.items()):
            out += ([", "] if number else []) + tokens(str(key)) + [": "] + tokens(item)
        return out + ["}"]
    return list(json.dumps(hostvalues.encode(value)))  # as views.show_value has it (ASCII JSON)


def output_tokens(output: dict[str, Any]) -> list[str]:
    """A report's output of one implementation (``{"ok": host value}`` or ``{"error": {code, message}}``)."""
    if "ok" in output:
        return tokens(hostvalues.decode(output["ok"]))
    error = output.get("error") or {}
    return text_tokens(f"error {error.get('code')}: ") + tokens(str(error.get("message", "")))


@dataclass
class Differs:
    """Where one side of a comparison differs from the other: its tokens that differ (``spans``, [first,
    last) pairs), and the places where the other side has tokens this one lacks (``gaps``: index -> whether
    the missing tokens are letters or digits, a part of a word)."""

    spans: list[tuple[int, int]]
    gaps: dict[int, bool]


def _wordy(token: str) -> bool:
    return len(token) == 1 and token.isascii() and token.isalnum()


def compare(oracle: list[str], other: list[str]) -> tuple[Differs, Differs]:
    """Where ``other`` and ``oracle`` differ, token by token (difflib): (the oracle's side, the other's)."""
    mine, theirs = Differs([], {}), Differs([], {})
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, oracle, other, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            mine.spans.append((i1, i2))
        else:
            mine.gaps[i1] = any(map(_wordy, other[j1:j2]))
        if j2 > j1:
            theirs.spans.append((j1, j2))
        else:
            theirs.gaps[j1] = any(map(_wordy, oracle[i1:i2]))
    return mine, theirs


def marked(mine: list[str], differs: Differs | None = None) -> str:
    """HTML of ``mine`` with the tokens that differ inside <mark>, and an empty gap mark where the other side
    has more; cut at VALUE_LIMIT characters. A word (a run of ASCII letters and digits) that differs in part
    is marked whole, on both sides: "store" against "skip", "stor" against "store", never "s" kept and "tore"
    marked; a gap between two characters that are not a word's own letters stays a gap ("a" and "b" around
    the U+001C the other side has)."""
    differs = differs or Differs([], {})
    inside: set[int] = set()
    for first, last in differs.spans:
        inside.update(range(first, last))
    gaps = dict(differs.gaps)
    for first, last in _words(mine):
        touched = inside.intersection(range(first, last)) or any(
            wordy for at, wordy in differs.gaps.items() if first <= at <= last)
        if touched:
            inside.update(range(first, last))
            for at in range(first, last + 1):
                if gaps.get(at):
                    del gaps[at]  # the word is marked whole instead
    out, length, open_ = [], 0, False
    gap = '<mark class="gap" title="the other side has more here"></mark>'
    for index, token in enumerate(mine):
        if index in gaps:
            out.append(gap)
        if index in inside and not open_:
            out.append("<mark>")
            open_ = True
        elif index not in inside and open_:
            out.append("</mark>")
            open_ = False
        out.append(escape(token))
        length += len(token)
        if length > VALUE_LIMIT:
            out.append(("</mark>" if open_ else "") + '<span class="cut">... (cut)</span>')
            return "".join(out)
    if open_:
        out.append("</mark>")
    if len(mine) in gaps:
        out.append(gap)
    return "".join(out)


def _words(shown: list[str]) -> list[tuple[int, int]]:
    """The runs of tokens that are single ASCII letters or digits, as [first, last) index pairs."""
    runs: list[tuple[int, int]] = []
    start = None
    for index, token in enumerate([*shown, ""]):
        if _wordy(token) and start is None:
            start = index
        elif not _wordy(token) and start is not None:
            runs.append((start, index))
            start = None
    return runs


def side_by_side(values: dict[str, list[str]], oracle: str, share: Sequence[str] = (),
                 comparable: Sequence[str] | None = None) -> dict[str, str]:
    """Each implementation's shown value as HTML, where it differs from the oracle's marked (whether or not it
    is of the class's ``share``: another share's difference shows too), and the oracle's side marked against
    the first of the share that differs (else the first that does: one comparison, never two mixed).
    ``comparable``: the implementations whose value may be compared with the oracle's (default: all)."""
    shown: dict[str, str] = {}
    base = values.get(oracle)
    oracle_side: Differs | None = None
    order = sorted(values, key=lambda name: name not in share)  # the share first, each group in its order
    for name in order:
        value = values[name]
        if name == oracle or base is None or value == base or (comparable is not None and name not in comparable):
            continue
        mine, theirs = compare(base, value)
        shown[name] = marked(value, theirs)
        oracle_side = oracle_side or mine
    for name, value in values.items():
        if name not in shown:
            shown[name] = marked(value, oracle_side if name == oracle else None)
    return {name: shown[name] for name in values}


# -- pieces of HTML ----------------------------------------------------------------------------------------

def attrs(**values: Any) -> str:
    """HTML attributes, escaped: ``data_impl="x"`` -> ` data-impl="x"`; None and False are left out."""
    out = []
    for name, value in values.items():
        if value is None or value is False:
            continue
        key = name.rstrip("_").replace("_", "-")
        out.append(f' {key}="{escape(str(value), quote=True)}"')
    return "".join(out)


def html_table(headers: Sequence[str], rows: Iterable[Sequence[str]], **table_attrs: Any) -> str:
    """A table whose cells are HTML already (escape them before)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table{attrs(**table_attrs)}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def code(text: str) -> str:
    return f"<code>{escape(text)}</code>"


def badge(text: str, kind: str) -> str:
    return f'<span class="badge {escape(kind)}">{escape(text)}</span>'


def slug(*parts: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else "_" for ch in part) for part in parts)


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
        head_cells = "".join(f"<td{attrs(class_='group-counts', data_impl=impl)}>{_counts_html(tallies[impl])}</td>"
                             for impl in columns)
        folded = sum(passing for _, passing in rows)
        toggle = (f"<button type='button' class='unfold'>{folded} passing case(s)</button>" if folded else "")
        body.append(f"<tbody{attrs(class_='group', data_fixture=fixture, data_op=op)}>"
                    f"<tr class='group-head'><th scope='rowgroup'>{escape(fixture)} <b>{escape(op)}</b>: "
                    f"{len(rows)} case(s) {toggle}</th><td class='op'></td>{head_cells}</tr>"
                    f"{''.join(row for row, _ in rows)}</tbody>")
    head = "".join(f"<th{attrs(data_impl=impl)}>{escape(impl)}<br>{_counts_html(counts[impl])}</th>"
                   for impl in columns)
    filters = (
        "<form class='filters' id='matrix-filters' onsubmit='return false'>"
        + _select("filter-impl", "implementation", columns)
        + _select("filter-family", "family", families)
        + _select("filter-state", "state", ["fail", "skip", "pass"])
        + _select("filter-step", "step", steps)
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


def _counts_html(counts: dict[str, int]) -> str:
    return (f"<span class='counts'>{counts['pass']} pass"
            + (f", <b class='fail'>{counts['fail']} fail</b>" if counts["fail"] else "")
            + (f", {counts['skip']} skip" if counts["skip"] else "") + "</span>")


def _select(ident: str, label: str, options: Sequence[str]) -> str:
    opts = "".join(f"<option{attrs(value=option)}>{escape(option)}</option>" for option in options)
    return f"<label>{escape(label)} <select id='{ident}'><option value=''>all</option>{opts}</select></label>"


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
    """The sighting a class is shown by: one no entry covers (some run found it new), else the smaller witness."""
    def rank(record: ClassRecord) -> tuple[bool, int]:
        return not record.new, len(json.dumps(record.witness.args, ensure_ascii=True))

    return other if rank(other) < rank(one) else one


LAZY_FROM = 100  # from this many classes on, a card's details are filled in when it is opened or comes near


def class_body(seen: Seen, oracle: str, notes: dict[str, dict[str, Any]]) -> str:
    """A class's details: who is in its share and what named it, the explanation, witness, outputs, where the
    traces part, extent, covering entries and the replay command."""
    record = seen.record
    rule, fallback = record.witness.rule, record.witness.fallback
    named_by = f"named by the trace rule {code(rule)}" if rule else "named by counterfactuals"
    if fallback:
        other = fallback[0] + (f" ({fallback[1]})" if fallback[1] else "")
        named_by += f"; the counterfactual classifier says {code(other)}"
    return "".join([
        f"<p class='impls'>Implementations of this share: <b>{escape(', '.join(record.divergent))}</b>"
        f" against the oracle {escape(oracle)}; {named_by}.</p>",
        f"<p class='explanation'>{escape(record.witness.explanation)}</p>",
        "<h4>Witness</h4>", witness_html(record),
        "<h4>Outputs</h4>", outputs_html(record, oracle),
        "<h4>Where the traces part</h4>", trace_html(record, oracle),
        "<h4>Extent</h4>", extent_html(record),
        "<h4>Expected entries</h4>", entries_html(record, notes),
        "<h4>Replay</h4>", f"<pre class='replay'>{escape(views.replay_of(record))}"
        "</pre>",
    ])


def class_html(seen: Seen, number: int, oracle: str, notes: dict[str, dict[str, Any]],
               bodies: dict[str, str] | None = None, since: str = "") -> str:
    """A class's card: its one-line head (always shown, its anchor a link to it), its details folded for an
    expected class (``<details>``, opened when the page is opened at its anchor) and open for a new one.
    ``bodies`` given (a page of many classes): the details go there, by anchor, and the card holds an empty
    slot the page's script fills when the card is opened or comes near the window."""
    record = seen.record
    cause = record.cause + (f" ({record.detail})" if record.detail else "")
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


def data_block(ident: str, value: Any) -> str:
    """A JSON value the page carries as data (never run as a script): every "<" escaped (``\\u003c``, the same
    text to JSON; a "<" can only be inside a JSON string), so that no text in it can end the block or open
    a comment, whatever a browser makes of "<" there."""
    text = json.dumps(value, ensure_ascii=True).replace("<", "\\u003c")
    return f"<script type='application/json' id='{ident}'>{text}</script>"


def _run_name(summary: dict[str, Any]) -> str:
    ended = summary.get("ended") or summary["run"]["ended"]
    commit = (summary.get("commit") or "")[:8]
    return f"{ended}" + (f" ({commit})" if commit else "")


def since_html(seen: Seen, past: history.Past | None) -> str:
    """Since when a class is seen, in the runs of the history: since an earlier run, or new in this one."""
    if past is None or not past.runs:
        return ""
    first = past.first_seen(seen.anchor)
    times = sum(past.seen(seen.anchor))
    if first is None:
        return (f" <span{attrs(class_='since new-here', data_since='')}>not in the last run "
                f"({times} of the {len(past.runs)} before)</span>")
    return (f" <span{attrs(class_='since', data_since=_run_name(first))}>since {escape(_run_name(first))}, in "
            f"{times} of the {len(past.runs)} runs before</span>")


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
        "classes": [{"anchor": seen.anchor, "op": seen.record.op,
                     "implementations": sorted(seen.record.divergent), "cause": seen.record.cause,
                     "detail": seen.record.detail, "step": seen.record.step,
                     "status": seen.record.status} for seen in every],
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
    head = "".join(f"<th>{escape(_run_name(summary))}</th>" for summary in runs[:-1]) + "<th>this run</th>"
    verdicts = "".join(f"<td>{escape(summary['verdict'])}</td>" for summary in runs)
    rows = [f"<tr class='verdicts'><th scope='row'>verdict</th>{verdicts}</tr>"]
    rows += [f"<tr{attrs(data_impl=name)}><th scope='row'>{escape(name)}</th>"
             + "".join(f"<td>{escape(_tally(summary, name))}</td>" for summary in runs) + "</tr>" for name in names]
    last = {c["anchor"] for c in runs[-2]["classes"]}
    arrived = [c for c in now["classes"] if c["anchor"] not in last]
    gone = [c for c in runs[-2]["classes"] if c["anchor"] not in {x["anchor"] for x in now["classes"]}]
    lines = "".join(f"<li><a href='#{c['anchor']}'>{escape(c['op'])} {escape(c['cause'])}</a> "
                    f"({escape(', '.join(c['implementations']))})</li>" for c in arrived)
    gone_lines = "".join(f"<li>{escape(c['op'])} {escape(c['cause'])} ({escape(', '.join(c['implementations']))}"
                         f") at {escape(c['step'] or '-')}</li>" for c in gone)
    body = (f"<p>The last {len(past.runs)} run(s) kept (<code>report html --history DIR</code>), oldest first, "
            "and this one.</p>"
            f"<div class='scroll'><table id='history-table'><thead><tr><th></th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>"
            f"<h3>In this run, not in the last ({len(arrived)})</h3><ul id='arrived'>{lines}</ul>"
            f"<h3>In the last run, not in this one ({len(gone)})</h3><ul id='gone'>{gone_lines}</ul>")
    return section("history", "History", body)


def classes_section(sources: Sequence[Source], oracle: str, notes: dict[str, dict[str, Any]],
                    past: history.Past | None = None) -> str:
    """The reports that hold classes (a line each: how many, how much they checked, their expected-list
    problems), then every class once: a table row and a card, anchored by its identity."""
    reports = [s for s in sources if s.kind == Kind.DIVERGENCES]
    if not reports:
        return section("classes", "Divergence classes", "<p class='none'>No divergence reports among the reports "
                       "(<code>nox -s parity</code>, <code>nox -s fuzz</code>, <code>nox -s sweep</code> write "
                       "them).</p>")
    lines = []
    for source in reports:
        document = source.document
        divergences = report_classes(document)
        new = sum(record.new for record in divergences)
        evidence = views.divergence_evidence(document)
        checked = views.amount(evidence) if evidence else "no examples counted (a parity report: its tests are)"
        summary = (f"{len(divergences)} class(es), {new} new; {checked} in {document.get('seconds', 0)} s"
                   + (f"; seed {document['seed']}" if document.get("seed") is not None else ""))
        problems = expected_problems(document)
        problem_html = ("<ul class='problems'>" + "".join(f"<li>{escape(p)}</li>" for p in problems) + "</ul>"
                        if problems else "")
        lines.append(f"<li{attrs(class_='report', data_report=source.label)}><b>{escape(source.label)}</b> "
                     f"({code(str(source.path))}): {escape(summary)}{problem_html}</li>")
    every = seen_classes(sources)
    rows = "".join(
        f"<tr{class_attrs(seen.record, 'class-row')}><td><a href='#{seen.anchor}'>{n}</a></td>"
        + "".join(f"<td>{escape(cell)}</td>" for cell in row[1:7])
        + f"<td>{badge(row[7], seen.record.status)}</td>"
        f"<td{attrs(title=seen.seen_in)}>{len(seen.reports)}</td></tr>"
        for n, (row, seen) in enumerate(zip(views.class_rows([s.record for s in every]), every, strict=True), 1))
    head = "".join(f"<th>{escape(h)}</th>" for h in (*views.CLASS_HEADERS, "reports"))
    table = (f"<table class='classes-table'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
             if rows else "<p class='ok'>No divergence.</p>")
    if len(every) >= LAZY_FROM:  # parsed, not laid out, until asked for: a long table's layout is slow
        table = (f"<p><button type='button' id='show-class-table'>show the table of the {len(every):,} classes"
                 f"</button></p><template id='class-table'>{table}</template>")
    bodies: dict[str, str] | None = {} if len(every) >= LAZY_FROM else None
    cards = "".join(class_html(seen, n, oracle, notes, bodies, since_html(seen, past))
                    for n, seen in enumerate(every, 1))
    if bodies is not None:
        cards += data_block("card-bodies", bodies)
    filters = ""
    if every:
        shown = [seen.record for seen in every]
        filters = ("<form class='filters' id='class-filters' onsubmit='return false'>"
                   + _select("class-impl", "implementation", sorted({i for r in shown for i in r.divergent}))
                   + _select("class-status", "status", sorted({r.status for r in shown}))
                   + _select("class-cause", "cause", sorted({r.cause for r in shown}))
                   + "<label>search <input id='class-text' type='search' placeholder='U+001C, a name, a witness'>"
                   "</label><span id='class-count' aria-live='polite'></span></form>")
    intro = (f"<p>{len(every)} class(es) in {len(reports)} report(s), each shown once (a class is known by op, "
             "implementations, cause, detail and step; its anchor is the same in every run that sees it)"
             + (f"; with {LAZY_FROM} classes or more, a card's details are filled in by the page's script when it "
                "is opened or comes near" if len(every) >= LAZY_FROM else "") + ".</p>"
             f"<ul class='reports'>{''.join(lines)}</ul>")
    return section("classes", "Divergence classes", intro + filters + table + cards)


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
        found = rundiff.diff(old.document, new_doc)
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
             "cause, detail and step (<em>moved</em>: the same but for its step); "
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
    parts = [views.part_of(s.path, s.document, s.kind) for s in sources if s.kind != Kind.RESULTS]
    if merged is not None:
        shown = set(merged["from"].values())  # the results the page shows
        findings = [f for s in sources if s.kind == Kind.RESULTS and str(s.path) in shown
                    for f in s.document.get("findings") or []]
        parts.insert(0, views.results_part(", ".join(sorted(shown)), merged["results"], findings))
    found = list(problems)
    for old in baselines:
        document, label = _counterpart(old, sources, merged)
        if document is not None:
            new = rundiff.diff(old.document, document).new
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
        if document is not None and rundiff.diff(old.document, document).new:
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
                         escape(run.get("ended") or "-"), code(run.get("command") or "-")])
    return section("sources", "Reports", html_table(("role", "file", "schema", "what", "nox session", "commit",
                                                       "ended", "command"), rows, id="sources-table"))


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
            fails = states.count("fail")
            cells.append(badge(f"{states.count('pass')}/{len(states)} cases pass", "fail" if fails else "pass")
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
    head = badge(judged.headline, "pass" if judged.state == "agree" else "fail")
    checked = (f"<p class='evidence'>Checked: {escape(views.amount(judged.evidence))}, from "
               f"{escape(views.counted(len(judged.parts), 'report'))}.</p>")
    reasons = "".join(f"<li>{escape(reason)}</li>" for reason in judged.reasons)
    listed = f"<ul class='verdict' id='verdict-reasons'>{reasons}</ul>" if reasons else ""
    return section("summary", "Summary", f"<p id='verdict' data-state='{judged.state}'>{head}</p>{checked}{listed}"
                   f"<ul class='summary'>{''.join(rows)}</ul>")


def tests_section(sources: Sequence[Source], notes: Sequence[str] = ()) -> str:
    """The parity run's own result: each parity-ran document's counts per implementation and each JUnit
    file's counts and failing tests (with their messages)."""
    parts = []
    for source in sources:
        document = source.document
        if source.kind == Kind.RAN:
            rows = [[escape(impl), str(got["passed"]), str(got["failed"]), str(got["skipped"])]
                    for impl, got in document["counts"].items()]
            parts.append(f"<h3>Per implementation ({code(str(source.path))})</h3>"
                         + html_table(views.RAN_HEADERS, rows, class_="ran-table"))
        elif source.kind == Kind.JUNIT:
            failing = "".join(
                f"<li{attrs(class_='failing-test', data_outcome=item['outcome'])}><b>{escape(item['outcome'])}</b> "
                f"{code(item['test'])}<pre class='mismatch'>{escape(item['message'])}</pre></li>"
                for item in document["failing"])
            parts.append(f"<h3>JUnit ({code(str(source.path))})</h3><p>{document['tests']:,} tests: "
                         f"{document['passed']:,} passed, {document['failures']:,} failed, "
                         f"{views.counted(document['errors'], 'error')}, {document['skipped']:,} skipped.</p>"
                         + (f"<ol class='failing-tests'>{failing}</ol>" if failing
                            else "<p class='ok'>No test failed or errored.</p>"))
    noted = "".join(f"<li>{escape(note)}</li>" for note in notes)
    if not parts:
        return section("tests", "Parity tests", "<p class='none'>No parity tests among the reports (<code>nox -s "
                       "parity</code> writes <code>reports/parity-ran.json</code> and <code>reports/parity-junit.xml"
                       "</code>).</p>" + (f"<ul class='notes'>{noted}</ul>" if noted else ""))
    return section("tests", "Parity tests", "".join(parts) + (f"<ul class='notes'>{noted}</ul>" if noted else ""))


def section(ident: str, title: str, body: str) -> str:
    return f"<section id='{ident}'><h2>{escape(title)}</h2>{body}</section>"


def expected_notes(sources: Sequence[Source]) -> dict[str, dict[str, Any]]:
    """The covering entries the reports name, ``IMPL/ID`` -> the entry as its list has it (its note), read from
    each implementation's expected list (harness/differential/expected.path_for); a list that cannot be read
    gives none (the page says so at the entry)."""
    from harness.differential.expected import path_for, read_list

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
    notes = expected_notes(sources)
    css = (ASSETS / "page.css").read_text(encoding="utf-8")
    script = (ASSETS / "page.js").read_text(encoding="utf-8")
    ended = max((s.run.get("ended") or "" for s in sources), default="")
    nav = "".join(f"<a href='#{ident}'>{label}</a>" for ident, label in (
        ("summary", "Summary"), ("matrix", "Fixture cases"), ("tests", "Parity tests"),
        ("history", "History"), ("classes", "Divergence classes"),
        ("findings", "Findings"), ("implementations", "Implementations"), ("baseline", "Baseline"),
        ("sources", "Reports")) if (ident != "baseline" or baselines) and (ident != "history" or past))
    judged = verdict(sources, baselines, merged, problems)
    now = now if now is not None else run_summary(sources, merged, judged)
    body = "".join([
        summary_section(sources, merged, impls, judged),
        matrix_section(merged, impls),
        tests_section(sources, notes),
        history_section(now, past) if past is not None else "",
        classes_section(sources, oracle, notes, past),
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
            + f"; the oracle is <b>{escape(oracle)}</b>.</p><nav>{nav}</nav></header>"
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
    try:
        head = target.read_bytes()[:4096].decode("ascii", "replace") if target.is_file() else ""
    except OSError as exc:
        raise NotADocument(f"{target}: cannot look at it before replacing it: {exc.strerror or exc}") from None
    if not is_own_page(head):
        raise NotADocument(f"{target}: not a page this project wrote (no generator meta '{GENERATOR}'); the "
                           "harness writes a page only over one of its own: move it away or name another --out")


def write(out: Path, sources: Sequence[Source], baselines: Sequence[Source] = (), problems: Sequence[str] = (),
          notes: Sequence[str] = (), history_dir: Path | None = None, keep: int = history.KEEP) -> Path:
    """Write the page as ``out/index.html`` (atomically); its path. ``history_dir``: the page shows the last
    ``keep`` runs kept there (this run's own summary, kept before, aside) and keeps this run's summary there."""
    target = out / "index.html"
    _check_replaceable_page(target)
    past = now = None
    if history_dir is not None:
        now = run_summary(sources, merged_results(sources), verdict(sources, baselines, problems=problems))
        past = history.read(history_dir, keep + 1)
        own = history.name_of(now)
        past = history.Past([(path, summary) for path, summary in past.runs if path.name != own][-keep:])
    out.mkdir(parents=True, exist_ok=True)
    # ASCII on disk (atomic_write's contract): a character outside it becomes a numeric reference.
    html = render(sources, baselines, problems=problems, notes=notes, past=past, now=now)
    atomic_write(target, html.encode("ascii", "xmlcharrefreplace").decode("ascii"))
    if history_dir is not None:
        history.write(history_dir, now)
    return target
