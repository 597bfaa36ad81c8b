"""Terminal safety (issue 31, part 4): no control character a testee or a report brings reaches a terminal, a
Markdown summary or the page raw. ESC sequences (a screen clear, a window title), BEL, BS, CR, DEL, the C1 CSI
and the bidi controls are fed through every path that prints such a text: the FINDING lines
(harness/testees/findings.render), every view of harness/cli/views.py (tables and Markdown, details), the
trace view, the page, and ``report show`` in a process of its own (its stdout bytes). Each must show the
visible escape (``\\u001B``, harness/model/printable.py) where the raw character was.

What counts as raw is written here again (``raw_controls``), not read from the helper under test."""

from __future__ import annotations

import copy
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.classes.rundiff import Change, RunDiff
from harness.cli import html as page_html
from harness.cli import page, trace_view, views
from harness.cli.reports import divergences, results
from harness.fixtures.runner import results_document
from harness.model import envelope
from harness.model.printable import printable, printable_block, printable_lines
from harness.model.schemas import problems
from harness.testees.findings import line_evidence, render
from suites.stand_ins import Terminal

ROOT = Path(__file__).resolve().parents[2]

CLEAR = "\x1b[2J"  # ESC [ 2 J: clear the screen
TITLE = "\x1b]0;title\x07"  # OSC 0: set the window's title, ended by BEL
# A testee's hostile text: every kind of control and a lone surrogate (a JSON string may hold one; no UTF-8
# stream takes it), the words apart so that a table wraps between them.
HOSTILE = (f"a {CLEAR} b {TITLE} c \x08 d \r e \x7f f \x9b g \u202e h \u2066 i \u2069 j \ud800 k \u00ad l \ufeff m "
           "\u200b n")
VISIBLE = ["\\u001B[2J", "\\u001B]0;title\\u0007", "\\u0008", "\\u000D", "\\u007F", "\\u009B", "\\u202E",
           "\\u2066", "\\u2069", "\\uD800", "\\u00AD", "\\uFEFF", "\\u200B"]
BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}
FORMAT = {0x00AD, 0xFEFF, 0x200B, 0x200D}  # soft hyphen, BOM, zero-width space and joiner (issue 49; all of Cf:
# suites/cli/test_terminal_table.py)


def raw_controls(text: str, newlines: bool = True) -> list[str]:
    """Every character of ``text`` a terminal acts on or that reorders a line: C0 (a newline allowed when
    ``newlines``), DEL, C1, the bidi controls, U+2028/U+2029, lone surrogates, the format characters of FORMAT."""
    found = []
    for char in text:
        point = ord(char)
        if newlines and char == "\n":
            continue
        if (point < 0x20 or 0x7F <= point <= 0x9F or point in BIDI or point in (0x2028, 0x2029)
                or 0xD800 <= point <= 0xDFFF or point in FORMAT):
            found.append(f"U+{point:04X}")
    return found


def plain(markdown: str) -> str:
    """Markdown's backslash escapes undone (a table cell doubles each backslash of an escape: ``\\\\u001B``)."""
    return re.sub(r"\\([\\`*\[\]<>|#])", r"\1", markdown)


def assert_safe(text: str, visible: list[str] = VISIBLE, newlines: bool = True) -> None:
    assert raw_controls(text, newlines) == [], text
    missing = [escape for escape in visible if escape not in text]
    assert missing == [], (missing, text)


# -- the helper ----------------------------------------------------------------------------------------------

def test_printable_shows_every_control_as_its_escape_and_leaves_the_rest() -> None:
    assert printable(CLEAR + TITLE) == "\\u001B[2J\\u001B]0;title\\u0007"
    assert printable("a\nb\tc\r\x00") == "a\\u000Ab\\u0009c\\u000D\\u0000"  # one line: a newline visible too
    assert printable("\x7f\x80\x9b\x9f") == "\\u007F\\u0080\\u009B\\u009F"
    assert printable("\u202e\u2066\u2069\u200f\u061c\u2028") == "\\u202E\\u2066\\u2069\\u200F\\u061C\\u2028"
    assert printable("\ud800") == "\\uD800"  # a lone surrogate (no UTF-8 stream takes it)
    assert printable("é → 😀 \\ \" \u00a0") == "é → 😀 \\ \" \u00a0"  # printable text as it is
    assert printable("\u200d\u00ad\ufeff\u200b") == "\\u200D\\u00AD\\uFEFF\\u200B"  # format characters (Cf): issue 49
    assert printable(printable(HOSTILE)) == printable(HOSTILE)


def test_a_cut_never_splits_an_escape() -> None:
    assert printable("ab" + "\x1b" * 10, 12) == "ab\\u001B..."
    assert len(printable("x" * 50, 20)) == 20
    assert printable_block("one\x1b\ntwo\nthree", "  ", limit=11) == "one\\u001B\n  ..."


def test_several_lines_keep_lf_and_crlf_breaks_and_show_a_lone_cr() -> None:
    assert printable_lines("one\ntwo\r\nthree\rover\x0bvt\u2028ls") == [
        "one", "two", "three\\u000Dover\\u000Bvt\\u2028ls"]
    assert printable_block(f"Traceback:\n  {CLEAR}x\r\nend", "    ") == "Traceback:\n      \\u001B[2Jx\n    end"


# -- FINDING lines ---------------------------------------------------------------------------------------------

def _finding() -> dict[str, Any]:
    return {"impl": "fake", "kind": "not_json", "family": "protocol", "count": 2,
            "message": f"a line that is not protocol JSON: {HOSTILE}\nsecond line",
            "evidence": {"line": f"{{\"id\": {CLEAR}", "request": '{"op": "x"}' + TITLE,
                         "stderr": f"Traceback (most recent call last):\n  {HOSTILE}\r\nValueError: \x07boom"}}


def test_finding_lines_show_controls_and_keep_a_stderr_tail_as_indented_lines() -> None:
    shown = render([_finding()])
    assert_safe(shown)
    lines = shown.splitlines()
    assert lines[0].startswith("FINDING fake: not_json x2: ") and "\\u000Asecond line" in lines[0]
    assert all(line.startswith("    ") for line in lines[1:]), lines
    assert "    stderr: Traceback (most recent call last):" in lines
    assert "      ValueError: \\u0007boom" in lines  # the tail's CRLF kept as a line break, indented
    assert "\\u000D" in shown  # the lone CR inside HOSTILE


def test_a_lines_evidence_is_printable_ascii() -> None:
    evidence = line_evidence(b"{\"ok\": 1}\x1b[2J\x07\x08\r\n\x7f\xff" + b"y" * 300)
    assert evidence.isascii() and raw_controls(evidence, newlines=False) == []
    assert evidence.startswith('{"ok": 1}\\u001B[2J\\u0007\\u0008\\u000D\\u000A\\u007F\\xff')
    assert evidence.endswith("...")


# -- the views -------------------------------------------------------------------------------------------------

def divergence_report(command: str = TITLE) -> dict[str, Any]:
    """A divergence report (it validates) whose every free text is hostile; ``command`` ends its run's command
    line."""
    document = {
        "schema": "divergence-report-v2", "run": envelope.build({"fake": None}), "profile": "diff", "seed": None,
        "implementations": {"reference": {"nfc": "17.0.0"}, "fake": {"nfc": "17.0.0\x1b[2J"}},
        "examples": 1, "seconds": 0.0, "ok": False,
        "divergences": [{
            "op": "normalize_fact_text", "args": {"text": f"x{CLEAR}"},
            "outputs": {"reference": {"ok": "x"},
                        "fake": {"error": {"code": "internal\x1b[31m", "message": f"it broke: {HOSTILE}"}}},
            "divergent": ["fake"], "cause": "crash", "detail": "d\x1b]0;t\x07",
            "explanation": f"the testee said {HOSTILE} ``` and a fence of its own", "status": "new",
            "codePoints": [{"codePoint": "U+001B", "name": "ESCAPE\x07\x08", "generalCategory": "Cc", "age": "1.1",
                            "versions": {}}],
            "expectedEntry": None, "step": "norm.edges\x1b[2J", "replay": f"python -m harness diff {TITLE}",
            "traceAtStep": {"reference": {"index": 1, "step": "norm.edges", "value": "x"},
                            "fake": {"index": 1, "step": f"norm.{CLEAR}", "value": f"x{TITLE}"}},
        }],
        "findings": [_finding()],
        "expectedCheck": {"problems": [f"fake/entry-1: {HOSTILE}"], "unexpectedPasses": []},
    }
    document["run"]["command"] += f" {command}"
    assert problems(document) == [], problems(document)
    return document


def results_report() -> dict[str, Any]:
    rows = [{"implementation": "fake", "fixture": "write-gate-v1", "case": f"case{CLEAR}", "op": "decide_write",
             "steps": ["gate.\x07"], "state": "fail", "why": f"mismatch: {HOSTILE}\nsecond line"},
            {"implementation": "fake", "fixture": "write-gate-v1", "case": "skipped", "op": "decide_write",
             "steps": [], "state": "skip", "why": f"cannot: {TITLE}"}]
    document = results_document({"fake": rows}, {"fake": None})
    assert problems(document) == [], problems(document)
    return document


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_divergence_report_shows_every_text_escaped(fmt: str) -> None:
    shown = divergences.classes_view(divergence_report(), fmt, "all")
    shown = plain(shown) if fmt == "markdown" else shown
    assert_safe(shown)
    assert "\\u001B[31m" in shown and "ESCAPE\\u0007\\u0008" in shown and "norm.edges\\u001B[2J" in shown
    assert "d\\u001B]0;t\\u0007" in shown  # the detail, in the table and the details
    assert "\\u000D" in shown.split("findings about testees")[1]  # the finding's message, after the classes


def test_the_markdown_keeps_one_row_per_line_and_no_fence_ends_early() -> None:
    shown = divergences.classes_view(divergence_report(), "markdown", "all")
    row = next(line for line in shown.splitlines() if line.startswith("| 1 |"))
    assert len(re.findall(r"(?<!\\)\|", row)) == len(divergences.CLASS_HEADERS) + 1, row
    # The explanation holds ```: the details' fence is longer, and closes only after the replay line.
    opening = next(line for line in shown.splitlines() if re.fullmatch("`{3,}", line))
    assert len(opening) > 3
    block = shown.split(opening + "\n", 1)[1].split("\n" + opening, 1)[0]
    assert "``` and a fence" in block and "replay: python -m harness diff" in block
    cells = views.markdown_table(("a", "witness"), [[f"x|y{CLEAR}\nz", f"p|q{TITLE}"]])
    assert cells.splitlines()[2] == "| x\\|y\\\\u001B\\[2J\\\\u000Az | `p\\|q\\u001B]0;title\\u0007` |"


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_fixture_results_show_every_mismatch_escaped(fmt: str) -> None:
    shown = results.results_view(results_report(), fmt, "all")
    shown = plain(shown) if fmt == "markdown" else shown
    assert_safe(shown)
    assert "\\u000Asecond line" in shown and "case\\u001B[2J" in shown  # one row each, the newline visible


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_diff_and_the_implementations_show_every_text_escaped(fmt: str) -> None:
    changes = [Change("class", "new", (f"fake{CLEAR}",), f"normalize_fact_text crash ({TITLE})", None, "new \x07",
                      json.dumps({"text": "x\x1b"}), blocking=True)]
    shown = views.diff_view(RunDiff("divergences", changes, 0, [f"fake: version 1 -> 2{HOSTILE}"]), fmt)
    assert raw_controls(shown) == [], shown
    assert "\\u001B]0;title\\u0007" in shown and "\\u202E" in shown
    listed = views.impls_view([[f"fake{CLEAR}", "Python", "command testee", "v1", f"yes, {TITLE}", "nfc \x9b"]], fmt)
    assert raw_controls(listed) == [] and "\\u009B" in listed, listed


# -- the trace view --------------------------------------------------------------------------------------------

def test_the_trace_view_shows_every_text_a_testee_sent_escaped() -> None:
    reference = {"op": "normalize_fact_text", "steps": [{"step": "norm.edges", "value": "x"}], "outcome": {"ok": "x"}}
    fake = {"op": "normalize_fact_text", "steps": [{"step": f"norm.{CLEAR}", "value": "x\x7f"}],
            "outcome": {"ok": "x\x7f"}}
    shown = trace_view.side_by_side("normalize_fact_text", {"text": "x"}, {"reference": reference, "fake": fake},
                                    "reference", {"blackbox": {"ok": "y\x7f"}},
                                    {"fake": [f"the trace's step {TITLE} is not the op's"]}, width=160)
    assert_safe(shown, ["\\u001B[2J", "\\u001B]0;title\\u0007"])
    assert '"x\\u007F"' in shown  # a value, as views.show_value shows it: a control character escaped
    assert "blackbox: a black box (no traces); the op answered {\"ok\": \"y\\u007F\"}" in shown


# -- the page --------------------------------------------------------------------------------------------------

def _page_safe(text: str) -> None:
    """No raw control in the HTML but its own newlines, and no character reference that makes one."""
    assert raw_controls(text) == [], raw_controls(text)
    for reference in re.findall(r"&#[xX]?[0-9a-fA-F]+;", text):
        assert raw_controls(html.unescape(reference)) == [], reference


def test_the_page_shows_every_control_visibly(tmp_path: Path) -> None:
    paths = []
    for name, document in (("diff.json", divergence_report()), ("check.json", results_report())):
        (tmp_path / name).write_text(json.dumps(document, ensure_ascii=True), encoding="utf-8")
        paths.append(tmp_path / name)
    sources = page.read(paths)
    shown = page.render(sources)
    _page_safe(shown)
    text = html.unescape(re.sub(r"<[^>]+>", " ", shown))  # the page's text, as a reader sees it
    for escape in VISIBLE:
        assert escape in text, escape
    assert "\\u001B[31m" in text and "norm.\\u001B[2J" in text
    findings = page.findings_section(sources)
    assert "<br>" in findings and "ValueError: \\u0007boom" in findings  # the stderr tail, line by line
    cell = re.search(r'<td class="cell fail"[^>]*title="([^"]*)"', shown)
    assert cell is not None and "\\u000Asecond line" in cell.group(1)  # the tooltip: one line
    _page_safe(page.write(tmp_path / "site", sources).read_text(encoding="ascii"))


# -- report show, in a process of its own ----------------------------------------------------------------------

def _report_show(folder: Path, fmt: str, diff: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
    paths = []
    for name, document in (("diff.json", diff), ("check.json", results_report())):
        (folder / name).write_text(json.dumps(document, ensure_ascii=True), encoding="utf-8")
        paths.append(str(folder / name))
    done = subprocess.run([sys.executable, "-m", "harness", "report", "show", *paths, "--show", "all", "--format",
                           fmt], cwd=ROOT, capture_output=True, timeout=120, check=False,
                          env=dict(os.environ, PYTHONIOENCODING="utf-8"))
    assert done.returncode == 1, done.stderr.decode("utf-8", "replace")  # a new class, a finding, a failing case
    return done


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_report_show_prints_no_control_byte(tmp_path: Path, fmt: str) -> None:
    done = _report_show(tmp_path, fmt, divergence_report(command="--plain"))
    out = done.stdout.decode("utf-8")  # strict: every byte is UTF-8 (no lone surrogate got through)
    assert raw_controls(out) == [], [line for line in out.splitlines() if raw_controls(line)]
    out = plain(out) if fmt == "markdown" else out
    assert_safe(out)
    assert b"\x1b" not in done.stdout and b"\x07" not in done.stdout and b"\r" not in done.stdout


def test_a_copy_of_the_reports_is_left_as_it_was() -> None:
    """The views read the documents: they escape what they print, never the report itself."""
    document = divergence_report()
    before = copy.deepcopy(document)
    divergences.classes_view(document, "text", "all")
    page.findings_section([page_html.Source(Path("d.json"), document)])
    assert document == before


def test_report_show_names_a_reports_command_line_escaped(tmp_path: Path) -> None:
    out = _report_show(tmp_path, "text", divergence_report(command=TITLE)).stdout.decode("utf-8")
    header = out.splitlines()[0]
    assert raw_controls(header) == [] and header.endswith(" \\u001B]0;title\\u0007"), header


@pytest.mark.parametrize("columns", [30, 60, 80, 100, 120])
def test_a_table_never_loses_a_character_of_a_cell(columns: int) -> None:
    """Wrapped to fit, or shown as records when no wrapping fits: every cell's characters, in order, within the
    width (an expected entry's id once lost its last digit, e76e173 for e76e1736, and a status column vanished)."""
    import random

    chosen = random.Random(columns)
    headers = ("cause", "witness", "status", "extent", "what", "available")
    alphabet = "abcdef0123456789-_ "
    for _ in range(40):
        rows = [["".join(chosen.choice(alphabet) for _ in range(chosen.randint(1, 70))) for _ in headers]
                for _ in range(3)]
        shown = views.text_table(headers, rows, columns=columns)
        assert max(len(line) for line in shown.splitlines()) <= columns, shown
        kept = "".join(shown.replace("─", "").split())
        for row in rows:
            for cell in row:
                for word in cell.split():
                    assert _in_order(word, kept), (word, shown)
        # Nothing else is shown but the headers: the table's (abbreviated where need be), and "header:" before a
        # value shown under its row or in a record.
        layout = views._fitted(headers, [[views.printable(c) for c in r] for r in rows], columns)
        if "──" in shown:
            labels = sum(len(views.abbreviated(h, w)) for h, w in layout.widths.items()) + \
                sum(len(h) + 1 for h in layout.below) * len(rows)
        else:
            assert layout is None
            labels = sum(len(h) + 1 for h in headers) * len(rows)
        assert sum(len("".join(c.split())) for r in rows for c in r) + labels == len(kept)


def _in_order(word: str, text: str) -> bool:
    found = iter(text)
    return all(ch in found for ch in word)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_diff_shows_the_changed_state_in_full(fmt: str) -> None:
    """Issue 36: before and after were cut to 40 characters; a changed expected entry's state is the point of
    the row, so it is shown whole (wrapped in a terminal's table, one cell in Markdown)."""
    before = "expected (expected/pyo3.json: " + "e" * 60 + "-entry-id-1)"
    after = "new: " + "not covered by any expected entry of this implementation " * 2
    changes = [Change("class", "changed", ("pyo3",), "decide_write unicode_version_skew at norm.nfc", before, after)]
    shown = views.diff_view(RunDiff("divergences", changes, 0, []), fmt)
    kept = "".join(shown.replace("─", "").split())
    for state in (before, after):
        assert _in_order("".join(state.split()), kept), (state, shown)


@pytest.mark.parametrize("columns", [80, 100, 120])
def test_the_trace_view_fits_and_shows_letters_as_themselves(columns: int) -> None:
    """Issue 36: the trace table was 154 columns wide, astral characters came out as surrogate pairs and every
    letter outside ASCII as an escape. Now it is the other tables' (wrapped to the width, nothing cut), a
    letter is itself, and a mark or a control character an escape, so what hides still shows."""
    text = "Stra\u00dfe \u03c3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2 \U0001d11e e\u0301\u001c " + "long " * 30
    steps = [{"step": "norm.nfc", "value": text}, {"step": "norm.lowercase", "value": text.lower()}]
    documents = {name: {"op": "normalize_fact_text", "steps": steps, "outcome": {"ok": text.lower()}}
                 for name in ("reference", "pyo3", "wasm", "pyodide")}
    shown = trace_view.side_by_side("normalize_fact_text", {"text": text}, documents, "reference", {}, {},
                                    width=columns)
    table = shown.split("\n\n", 1)[1]  # the call's line above it is one line, as long as the arguments
    assert max(len(line) for line in table.splitlines()) <= columns, shown
    assert "\u03c3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2" in shown and "\U0001d11e" in shown and "Stra\u00dfe" in shown
    assert "e\\u0301" in shown and "\\u001C" in shown and "\\ud834" not in shown.lower()
    kept = "".join(table.split())
    assert kept.count("long") == 30 * 3  # the reference's three cells (args, two steps), whole; the others "="


@pytest.mark.parametrize("env, coloured", [({}, True), ({"NO_COLOR": "1"}, False), ({"TERM": "dumb"}, False)])
def test_a_status_is_coloured_on_a_terminal_unless_no_color(monkeypatch: pytest.MonkeyPatch, env: dict[str, str],
                                                             coloured: bool) -> None:
    """Issue 36: colour on a terminal, off with NO_COLOR (or TERM=dumb) and in a pipe; the words the same."""
    import re

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    rows = [["1", "new"], ["2", "expected: some-entry (pyo3)"], ["3", "fixed"]]
    plain = views.text_table(("#", "status"), rows, columns=80)  # pytest's stdout is no terminal
    assert "\x1b" not in plain
    monkeypatch.setattr(sys, "stdout", Terminal())
    shown = views.text_table(("#", "status"), rows, columns=80)
    assert ("\x1b[" in shown) is coloured, repr(shown)
    assert re.sub(r"\x1b\[[0-9;]*m", "", shown) == plain
    if coloured:
        assert re.search(r"\x1b\[[0-9;]*31m\s*new", shown) and re.search(r"\x1b\[[0-9;]*33mexpected", shown), shown


@pytest.mark.parametrize("op, args", [
    ("normalize_fact_text", {"text": "  \u201cStra\u00dfe\u201d \u03a3\u0399\u03a3\u03a5\u03a6 \u2014 " * 3}),
    ("decide_write", {"text": "The user's cat is called M\u00f6hre", "embedding_json": "[0.1, 0.2, 0.3]",
                      "candidates_json": json.dumps([{"id": f"c{i}", "text": "the user\u2019s cat is called m\u00f6hre",
                                                      "embedding": [0.1, 0.2, 0.30001]} for i in range(3)])}),
    ("build_dedup_context", {"topical_json": json.dumps([{"id": "t1", "text": "likes tea " * 8, "score": 0.9}]),
                             "pinned_json": json.dumps([{"id": "p1", "text": "lives in Z\u00fcrich"}]),
                             "recent_json": json.dumps([{"id": "r1", "text": "asked about trains"}]), "cap": 5}),
])
def test_the_trace_of_each_op_fits_120_columns(op: str, args: dict[str, object]) -> None:
    """Issue 36: `trace` fits 120 columns for the three ops, on the reference's real traces (long values wrap)."""
    import reference

    traced = json.loads(reference.trace(op, args))
    documents = {name: traced for name in ("reference", "pyo3", "wasm", "pyodide")}
    shown = trace_view.side_by_side(op, args, documents, "reference", {}, {}, width=120)
    table = shown.split("\n\n", 1)[1]
    assert max(len(line) for line in table.splitlines()) <= 120, shown
    assert "every trace agrees with reference's, step for step" in shown
