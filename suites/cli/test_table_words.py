"""Issue 52, item 4: at 80 columns the class table cut words at 6 characters (`expect`/`ed:`, `pyodid`/`e`), and the
`what` column was cut mid-word even at 120. Values now wrap at spaces only: no column is narrower than its longest
word (a header is abbreviated instead), a column that does not fit goes under its row ("    witness: ..."), and a
table where none fits is shown as records. Here every word of every value is read back, whole, from the tables of
`fuzz`, `sweep` and `report show` (one view: harness/cli/reports/divergences.py, classes_view), of `report diff` and
of `trace`, at 80, 100 and 120 columns; and no token of the output is anything but a value's word, a header (or its
abbreviation), a label or the title. The lines around the tables too: a class's details (and its report's ledger)
and the sweep's summary fit each width, wrapped at spaces, nothing lost (harness/model/wrapping.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from harness.classes.rundiff import Change, RunDiff
from harness.cli import trace_view, views
from harness.cli.reports import divergences
from harness.model import envelope
from harness.model.ledger import Ledger
from harness.model.schemas import problems

ROOT = Path(__file__).resolve().parents[2]
WIDTHS = [80, 100, 120]
IMPLS = ["pyodide", "pyo3", "wasm"]


def _record(number: int, status: str, entries: list[str], cause: str, detail: str | None, step: str,
            text: str) -> dict[str, Any]:
    return {
        "op": "normalize_fact_text", "args": {"text": text},
        "outputs": {"reference": {"ok": text.strip()}, **{impl: {"ok": text} for impl in IMPLS}},
        "divergent": IMPLS, "cause": cause, "detail": detail, "explanation": f"class {number}", "status": status,
        "codePoints": [], "expectedEntry": entries[0] if entries else None, "expectedEntries": entries,
        "step": step, "replay": "python -m harness diff normalize_fact_text",
    }


def class_report() -> dict[str, Any]:
    """A divergence report (it validates) whose statuses name long expected entries of three implementations
    (the issue's `expected:` and `pyodide`), with long causes, details and steps: the words the table cut."""
    entries = [f"{impl}/case-mapping-unicode-17-normalize-entry-{n}" for impl in IMPLS for n in (1, 2)]
    divergences_ = [
        _record(1, "expected", entries, "unicode_version_skew", "general_category and case_mapping", "norm.lowercase",
                "Stra\u00dfe \u03c3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2 long words here"),
        _record(2, "new", [], "whitespace_definition", "divergent-only", "norm.collapse_whitespace", "a\u2002b\u3000c"),
        _record(3, "expected", entries[:2], "length_rule", None, "norm.truncate_to_limit", "x" * 30),
    ]
    document = {
        "schema": "divergence-report-v2", "run": envelope.build(dict.fromkeys(IMPLS)), "profile": "fuzz", "seed": 7,
        "implementations": {"reference": {}, **{impl: {} for impl in IMPLS}},
        "examples": 3, "seconds": 0.1, "ok": False, "divergences": divergences_, "findings": [],
        "expectedCheck": {"problems": [], "unexpectedPasses": []},
    }
    assert problems(document) == [], problems(document)
    return document


def _table_of(shown: str) -> str:
    """The class table: up to the first class's details ("#2 normalize_fact_text ...") or the verdict."""
    found = re.search(r"\n\n(#\d+ |verdict: )", shown)
    return shown[: found.start()] if found else shown


def _read_back(table: str, values: list[list[str]], headers: tuple[str, ...] | list[str], title: str,
               columns: int) -> None:
    """Every word of every value in the output as often as the values hold it; no line over ``columns``; every
    token of the output a value's word, a header or its abbreviation, a "header:" label or the title's."""
    lines = table.splitlines()
    assert max(len(line) for line in lines) <= columns, "\n" + table
    tokens = Counter(token for line in lines for token in line.split() if set(token) != {"─"})
    words = Counter(word for row in values for cell in row for word in views.printable(cell).split())
    missing = words - tokens
    assert not missing, (f"words cut or lost at {columns} columns: {sorted(missing)}", "\n" + table)
    labels = set(title.split()) | {h + ":" for h in headers} | set(headers)
    unknown = [token for token in tokens if token not in words and token not in labels
               and not (token.endswith(".") and any(h.startswith(token[:-1]) for h in headers if h))]
    assert unknown == [], (f"fragments at {columns} columns: {unknown}", "\n" + table)


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_class_table_of_fuzz_sweep_and_report_show_keeps_every_word(columns: int,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    document = class_report()
    monkeypatch.setattr(views, "width", lambda: columns)
    shown = divergences.classes_view(document)
    records = divergences.report_classes(document)
    rows = divergences.class_rows(records)
    assert any(row[-1].startswith("expected: ") and "pyodide" in row[-1] for row in rows)
    title = f"{len(records)} divergence class(es)"
    _read_back(_table_of(shown), rows, divergences.CLASS_HEADERS, title, columns)


def test_report_show_from_the_command_line_keeps_every_word(tmp_path: Path) -> None:
    """The command as people run it (no terminal: 120 columns)."""
    path = tmp_path / "divergence-report.json"
    document = class_report()
    path.write_text(json.dumps(document), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "harness", "report", "show", str(path)], capture_output=True,
                          text=True, cwd=ROOT, check=False)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    table = _table_of(done.stdout)
    table = table[table.index("divergence class(es)") - 2:]
    rows = divergences.class_rows(divergences.report_classes(document))
    _read_back(table, rows, divergences.CLASS_HEADERS, "3 divergence class(es)", 120)


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_diff_table_keeps_every_word_of_what_changed(columns: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The `what` column (a class's op, cause and step) was cut mid-word even at 120."""
    monkeypatch.setattr(views, "width", lambda: columns)
    changes = [Change("class", "changed", ("pyodide", "pyo3"),
                      "normalize_fact_text unicode_version_skew (general_category) at norm.collapse_whitespace",
                      "expected (expected/pyodide.json: pyodide/case-mapping-unicode-17-normalize-entry-1)",
                      "new: not covered by any expected entry of this implementation"),
               Change("class", "not in the baseline", ("wasm",),
                      "decide_write whitespace_definition at gate.threshold_check", None, "new")]
    shown = views.diff_view(RunDiff("divergences", changes, 4, []))
    table = shown[: shown.index("\n\npyo")]
    rows = [[c.change, c.kind, ", ".join(c.impls), c.subject, c.before or "-", c.after or "-", "-"] for c in changes]
    _read_back(table, rows, views.DIFF_HEADERS, "changes since the baseline (divergences)", columns)


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_trace_table_keeps_every_word(columns: int) -> None:
    text = "Stra\u00dfe \u03c3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2 supercalifragilistic-expialidocious " * 2
    steps = {name: [{"step": "norm.nfc", "value": text + suffix},
                    {"step": "norm.collapse_whitespace", "value": (text + suffix).split()}]
             for name, suffix in (("reference", ""), ("pyodide", "pyodide-differs"), ("pyo3", "x" * 40),
                                  ("wasm", "the wasm testee's own tail"))}
    documents = {name: {"op": "normalize_fact_text", "steps": found, "outcome": {"ok": found[-1]["value"]}}
                 for name, found in steps.items()}
    shown = trace_view.side_by_side("normalize_fact_text", {"text": text}, documents, "reference", {}, {},
                                    width=columns)
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= columns, shown  # the call's line and the verdict's too
    called = "".join(lines[:lines.index("")])
    assert "".join(f"trace of normalize_fact_text(text={views.show_value(text, readable=True)})".split()) == \
        "".join(called.split()), called
    lines = lines[lines.index(""):]
    end = next(i for i, line in enumerate(lines) if line.startswith(("first difference", "every trace agrees")))
    table = "\n".join(lines[:end])
    # The oracle's column stays in the table; the others may go under the rows.
    assert "reference" in next(line for line in lines if line).split(), table
    names = list(documents)
    values = [[views.show_value(entry["value"], readable=True) for entry in documents[name]["steps"]]
              + [views.show_value(documents[name]["outcome"], readable=True)] for name in names]
    values.append(["norm.nfc", "norm.collapse_whitespace", "outcome", trace_view.MARK])
    _read_back(table, values, ["", "step", *names], "", columns)


# -- The lines around the tables: a class's details (report show, fuzz, sweep) and the sweep's summary were printed
# as they came, up to ~250 columns (a long status, the classifier's line), or cut at 120 with an ellipsis. They
# wrap at spaces now (harness/model/wrapping.py, views.hanging), a word longer than the line alone broken.

def _ledger(planned: int | None = None) -> Ledger:
    ledger = Ledger("sweep", planned=planned, inputs=1_234_567, compared=1_234_000, disagreeing=98_765,
                    classified=90_000, not_reproduced=12, mixed=8_000, stopped="the time budget of 3,600 s ended")
    for impl in IMPLS:
        tally = ledger.tally(impl)
        tally.sent, tally.answered, tally.cut, tally.faulted, tally.not_sent = 1_234_567, 1_234_500, 60, 7, 3
    return ledger


def detail_report() -> dict[str, Any]:
    """class_report's classes with long explanations, long arguments and the long statuses, and a ledger."""
    document = class_report()
    long_word = "supercalifragilisticexpialidocious" * 3  # 102 characters: longer than any line here
    for number, divergence in enumerate(document["divergences"], 1):
        divergence["explanation"] = (f"class {number}: the implementations part at {divergence['step']} where "
                                     "the reference keeps every character of the text; " * 4 + long_word)
        divergence["args"] = {"text": f"{divergence['args']['text']} {long_word} and some words after it " * 3}
    document["run"] = envelope.build(dict.fromkeys(IMPLS), ledger=_ledger(planned=2_000_000))
    assert problems(document) == [], problems(document)
    return document


def _details(document: dict[str, Any], columns: int, monkeypatch: pytest.MonkeyPatch) -> str:
    """report show's details of every class and its ledger (below the class table), at ``columns``."""
    monkeypatch.setattr(views, "width", lambda: columns)
    shown = divergences.classes_view(document, show="all")
    return shown[re.search(r"\n\n#1 ", shown).start() + 2:]  # type: ignore[union-attr]


def _reads_back(narrow: str, wide: str, columns: int, sources: list[str]) -> None:
    """No line of ``narrow`` over ``columns``; its characters, spaces aside, those of ``wide`` (the same text with
    no line wrapped) in order: nothing lost, nothing added; every word that fits a line whole in it; each of
    ``sources`` (what the lines were made of) whole in ``wide``."""
    assert max(len(line) for line in narrow.splitlines()) <= columns, "\n" + narrow
    assert "".join(narrow.split()) == "".join(wide.split()), "\n" + narrow
    fits = Counter(word for word in wide.split() if len(word) <= columns - 8)
    missing = fits - Counter(narrow.split())
    assert not missing, (f"words cut at {columns} columns: {sorted(missing)}", "\n" + narrow)
    lost = [source for source in sources if views.printable(source) not in wide]
    assert lost == [], (f"cut even unwrapped: {lost}", "\n" + wide)


@pytest.mark.parametrize("columns", WIDTHS)
def test_report_show_details_wrap_at_spaces_and_keep_every_word(columns: int,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    document = detail_report()
    wide = _details(document, 10_000, monkeypatch)
    narrow = _details(document, columns, monkeypatch)
    records = divergences.report_classes(document)
    statuses = [divergences.status_of(record) for record in records]
    assert max(len(status) for status in statuses) > 120  # the header line ran past every width
    sources = [*statuses, *(record.witness.explanation for record in records),
               *envelope.ledger_of(document).lines()]  # type: ignore[union-attr]
    _reads_back(narrow, wide, columns, sources)
    assert len(narrow.splitlines()) > len(wide.splitlines())  # wrapped, not cut


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_sweep_summary_wraps_at_spaces_and_keeps_every_word(columns: int) -> None:
    from harness.fuzzing import sweep_report

    report = {"sweep": {"values": 1_234_567, "templates": [f"template-number-{n}" for n in range(9)],
                        "range": ["U+0000", "U+10FFFF"], "shards": [f"{n}/16" for n in range(1, 17)],
                        "compared": 1_234_000,
                        "inexpressible": {"pyodide": {f"template-number-{n}": 2_048 for n in range(9)}}},
              "implementations": {"reference": {}, **{impl: {} for impl in IMPLS}, "a-long-implementation-name": {}},
              "divergences": [{"status": "new"}, {"status": "expected"}],
              "run": envelope.build(dict.fromkeys(IMPLS), ledger=_ledger())}
    wide = sweep_report.summary(report, 10_000)
    narrow = sweep_report.summary(report, columns)
    assert len(wide.splitlines()[0]) > 120 and max(len(line) for line in wide.splitlines()) > 200
    _reads_back(narrow, wide, columns, [*report["sweep"]["shards"], *report["implementations"],
                                        *envelope.ledger_of(report).lines()])  # type: ignore[union-attr]
