"""The conformance page without a browser (suites/cli/test_page_browser.py drives it in one): what
``python -m harness report html`` writes, from which reports, with which exit status; the marking of the
characters that differ; the trace entries reports now carry (``traceAtStep``)."""

from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from harness.classes import rundiff
from harness.classes.key import ClassKey
from harness.classes.record import ClassRecord
from harness.cli import html as page_html
from harness.cli import main as cli
from harness.cli import page
from harness.cli.reports import divergences, results
from harness.model.schemas import problems
from harness.model.status import AGREE, FOUND, USAGE
from suites.cli import page_reports as making


class _Links(HTMLParser):
    """Every src, href and action attribute of a page, and its script and style elements."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.links += [value or "" for name, value in attrs if name in ("src", "href", "action")]


def test_the_page_is_one_ascii_file_that_links_only_inside_itself(page_reports: making.Made, tmp_path: Path) -> None:
    done = making.render(page_reports, tmp_path)
    assert done.returncode == FOUND, done.stdout + done.stderr  # the reports hold something new
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html"]
    text = (tmp_path / "index.html").read_bytes().decode("ascii")  # raises on anything else
    found = _Links()
    found.feed(text)
    assert found.links and all(link.startswith("#") for link in found.links), found.links
    assert "link" not in found.tags and "img" not in found.tags
    assert "default-src 'none'" in text  # the page's own policy forbids every fetch


def test_report_html_statuses(page_reports: making.Made, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    """0: a page of reports where all agree; 1: the page is written and the reports hold something new;
    2: no report to read, or one that is not a report (named)."""
    monkeypatch.chdir(tmp_path)  # no reports/ here
    assert cli.main(["report", "html", "-o", str(tmp_path / "empty")]) == USAGE
    assert "no reports given and none in reports/" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "fixture-results-v1"}', encoding="utf-8")
    assert cli.main(["report", "html", str(bad), "-o", str(tmp_path / "bad")]) == USAGE
    assert "bad.json" in capsys.readouterr().err and not (tmp_path / "bad").exists()
    ok = page_reports.reports["check-reference"]
    assert cli.main(["report", "html", str(ok), "-o", str(tmp_path / "ok")]) == AGREE
    assert (tmp_path / "ok" / "index.html").is_file()
    assert cli.main(["report", "html", str(ok), "--baseline", str(page_reports.baseline),
                     "-o", str(tmp_path / "base")]) == AGREE  # the reference's results against the fake's: none shared
    failing = page_reports.reports["check-fake"]
    assert cli.main(["report", "html", str(failing), "-o", str(tmp_path / "fail")]) == FOUND
    assert (tmp_path / "fail" / "index.html").is_file()


def test_report_html_reads_the_latest_reports_of_a_folder(page_reports: making.Made, tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    for name, path in page_reports.reports.items():
        (folder / f"{name}.json").write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "bench.json").write_text('{"schema": "bench-report-v1"}', encoding="utf-8")
    (folder / "junk.json").write_text("not json", encoding="utf-8")
    assert [p.name for p in page.latest_reports(folder)] == sorted(f"{name}.json" for name in page_reports.reports)


def test_reports_carry_each_sides_trace_entry_where_the_traces_part(page_reports: making.Made) -> None:
    document = page_reports.document("diff-expected")
    assert problems(document) == []
    (divergence,) = document["divergences"]
    at = divergence["traceAtStep"]
    assert set(at) == {"reference", "fake"}
    assert at["reference"]["step"] == at["fake"]["step"] == divergence["step"] == "norm.edges"
    assert at["reference"]["value"] == "a\x1c" and at["fake"]["value"] == "a"  # what each side's step gave


def test_a_black_box_class_has_no_trace_entries_and_the_page_says_why(tmp_path: Path) -> None:
    from suites.fake_impl import declare, run

    declare(tmp_path / "impls", bug="strip")  # the same bug outside the steps, and no traces served
    done = run(tmp_path / "impls", "-m", "harness", "diff", "normalize_fact_text", making.WITNESS, "--impls", "fake",
               "--json")
    document = json.loads(done.stdout)
    (divergence,) = document["divergences"]
    assert "traceAtStep" not in divergence and divergence["step"] is None
    source = page_html.Source(tmp_path / "d.json", document)
    record = ClassRecord.from_json(divergence)
    assert "named by counterfactuals" in divergences.trace_html(record, "reference")
    seen = divergences.Seen(record, ((source.label, str(source.path)),))
    assert "named by counterfactuals" in divergences.class_html(seen, 1, "reference", {})


def _marks(html: str) -> list[str]:
    return re.findall(r"<mark>(.*?)</mark>", html)


def _pair(oracle: Any, other: Any) -> tuple[str, str]:
    shown = page_html.side_by_side({"reference": page_html.tokens(oracle), "x": page_html.tokens(other)}, "reference")
    return shown["reference"], shown["x"]


GAP = '<mark class="gap"'


@pytest.mark.parametrize("oracle, other, oracle_marks, other_marks, oracle_gap, other_gap", [
    ("a\x1cb", "ab", ["\\u001C"], [], False, True),  # the escape whole; a separator gone is a gap, not a word
    ('{"action":"store"}', '{"action":"skip"}', ["store"], ["skip"], False, False),  # a word whole, both sides
    ("store", "stor", ["store"], ["stor"], False, False),  # a letter gone from a word: the word, on both sides
    ("ab", "abc", ["ab"], ["abc"], False, False),  # a letter added to a word: the word, on both sides
    ("a b", "a  b", [], [" "], True, False),  # a space added: marked on its side, a gap on the oracle's
    ("\U00016ea1", "\U00016ec1", ["\\U+16EA1"], ["\\U+16EC1"], False, False),  # one astral code point, whole
    (float("nan"), 1.5, ['{"$float": "NaN"}'], ["1.5"], False, False),  # as views.show_value shows a NaN
])
def test_the_characters_that_differ_are_marked_whole_on_both_sides(oracle: Any, other: Any, oracle_marks: list[str],
                                                                  other_marks: list[str], oracle_gap: bool,
                                                                  other_gap: bool) -> None:
    import html as html_module

    mine, theirs = _pair(oracle, other)
    assert [html_module.unescape(m) for m in _marks(mine)] == oracle_marks
    assert [html_module.unescape(m) for m in _marks(theirs)] == other_marks
    assert (GAP in mine, GAP in theirs) == (oracle_gap, other_gap)
    same = page_html.side_by_side({"reference": page_html.tokens(oracle), "same": page_html.tokens(oracle)},
                                  "reference")
    assert "<mark" not in same["same"] + same["reference"]


def test_the_oracle_is_marked_against_the_share_first() -> None:
    values = {"reference": page_html.tokens("ab"), "other": page_html.tokens("xb"), "mine": page_html.tokens("ab!")}
    shown = page_html.side_by_side(values, "reference", share=["mine"])
    assert GAP in shown["reference"] and _marks(shown["reference"]) == []  # against "mine", not "other"


def test_a_failing_output_and_an_error_are_compared_as_shown() -> None:
    error = {"error": {"code": "invalid_text", "message": "bad"}}
    assert "".join(page_html.output_tokens(error)) == 'error invalid_text: "bad"'
    assert "".join(page_html.output_tokens({"ok": "a\x1c"})) == '"a\\u001C"'


def _cells(html: str) -> dict[tuple[str, str, str], tuple[str, str]]:
    """(implementation, fixture, case) -> (state, tooltip) from the page's matrix rows."""
    out = {}
    rows = r'<tr class="case(?: passing)?" data-fixture="([^"]+)" data-case="([^"]+)"[^>]*>(.*?)</tr>'
    for row in re.finditer(rows, html):
        for cell in re.finditer(r'<td class="cell [a-z]+" data-impl="([^"]+)" data-state="([a-z]+)" '
                                r'title="([^"]*)">', row.group(3)):
            out[(cell.group(1), row.group(1), row.group(2))] = (cell.group(2), cell.group(3))
    return out


def test_the_matrix_holds_every_case_of_every_implementation_as_its_report_says(page_reports: making.Made) -> None:
    import html as html_module

    sources = page.read(page_reports.reports.values())
    shown = _cells(page.render(sources))
    rows = [row for name in ("check-reference", "check-fake") for row in page_reports.document(name)["results"]]
    assert len(shown) == len(rows)
    for row in rows:
        state, tooltip = shown[(row["implementation"], row["fixture"], row["case"])]
        assert (state, html_module.unescape(tooltip)) == (row["state"], row["why"] or ""), row
    assert any(state == "skip" for state, _ in shown.values())  # the fake's host skips some cases
    assert sum(state == "fail" for state, _ in shown.values()) == page_reports.document("check-fake")["counts"]["fake"]["fail"] > 0  # noqa: E501


def test_the_newest_run_of_an_implementation_wins_in_the_matrix(page_reports: making.Made, tmp_path: Path) -> None:
    """The baseline (every case passing) and the newer failing run of the same fake: the matrix shows the newer."""
    older = json.loads(page_reports.baseline.read_text(encoding="utf-8"))
    older["run"]["ended"] = "2000-01-01T00:00:00Z"  # the two runs may end within one second
    (tmp_path / "older.json").write_text(json.dumps(older), encoding="utf-8")
    sources = page.read([tmp_path / "older.json", page_reports.reports["check-fake"]])
    for given in (sources, list(reversed(sources))):  # the order given does not decide, the run's end does
        merged = results.merged_results(given)
        assert merged is not None and merged["from"] == {"fake": str(page_reports.reports["check-fake"])}
        assert any(row["state"] == "fail" for row in merged["results"])


def test_notes_of_covering_entries_come_from_the_expected_lists(page_reports: making.Made,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(page_reports.impls))
    sources = page.read([page_reports.reports["diff-expected"]])
    notes = divergences.expected_notes(sources)
    (name,) = sources[0].document["divergences"][0]["expectedEntries"]
    listed: dict[str, Any] = json.loads((page_reports.impls / "lists" / "fake.json").read_text())
    assert notes[name]["note"] == listed["entries"][0]["note"]


def test_the_reports_check_knows_the_page_by_its_own_run(page_reports: making.Made, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """nox -s report writes reports/site/index.html: harness/tools/reports_check.py takes it when the page names its
    session (its page-run envelope), and refuses one written outside nox, or an HTML file of anyone else."""
    from harness.tools import reports_check

    folder = tmp_path / "reports"
    sources = page.read([page_reports.reports["check-reference"]])
    monkeypatch.delenv("NOX_CURRENT_SESSION", raising=False)
    page.write(folder / "site", sources)
    assert reports_check.main([str(folder)]) == 1
    monkeypatch.setenv("NOX_CURRENT_SESSION", "report")
    page.write(folder / "site", sources)
    assert reports_check.main([str(folder)]) == 0
    (folder / "site" / "other.html").write_text("<html><body>hand-made</body></html>", encoding="utf-8")
    assert reports_check.main([str(folder)]) == 1


def test_a_sweep_class_shows_its_swept_extent_and_trace_entries(tmp_path: Path) -> None:
    """A sweep on the fake with the traced bug: its class carries the swept runs and templates, and each side's
    trace entry (sweep_report passes the share's through); the card shows both."""
    from suites.fake_impl import declare, run

    declare(tmp_path / "impls", bug="edges")
    report = tmp_path / "sweep.json"
    done = run(tmp_path / "impls", "-m", "harness", "sweep", "--impls", "fake", "--templates", "alone", "--range",
               "U+0000..U+007F", "--workers", "1", "--checkpoint", str(tmp_path / "cp.jsonl"), "--report", str(report))
    assert done.returncode == FOUND, done.stdout[-2000:] + done.stderr[-2000:]
    document = json.loads(report.read_text())
    assert problems(document) == []
    divergence = next(d for d in document["divergences"] if d["cause"] == "whitespace_definition")
    assert divergence["traceAtStep"]["fake"]["step"] == "norm.edges"
    card = divergences.class_html(divergences.Seen(ClassRecord.from_json(divergence), (("sweep run", str(report)),)), 1,
                           "reference", {})
    assert f"{divergence['inputs']:,} swept inputs" in card and "U+001C..U+001F" in card
    assert "<table class=\"trace-at\">" in card


def test_findings_about_a_testee_are_on_the_page_never_as_a_class(tmp_path: Path) -> None:
    from suites.fake_impl import declare, run

    declare(tmp_path / "impls", bug="protocol")  # answers "result" where the protocol says "ok"
    done = run(tmp_path / "impls", "-m", "harness", "diff", "normalize_fact_text", "x", "--impls", "fake", "--json")
    document = json.loads(done.stdout)
    assert document["findings"] and not document["divergences"]
    shown = page.findings_section([page_html.Source(tmp_path / "d.json", document)])
    for finding in document["findings"]:
        assert finding["kind"] in shown and finding["impl"] in shown
    # The page's classes come from one renderer (harness/cli/class_groups.py, the divergences kind's section): a
    # divergence report with no class says so there, on the page as written.
    sources = [page_html.Source(tmp_path / "d.json", document)]
    classes = re.search(r"<section id='classes'>.*?</section>", page.render(sources), re.S)
    assert classes is not None and "<p class='ok'>No divergence.</p>" in classes.group(0)
    assert classes.group(0) == divergences.classes_section(sources, "reference", {})


def test_the_summary_counts_a_class_two_reports_saw_once_and_puts_the_oracle_first(page_reports: making.Made,
                                                                                  tmp_path: Path) -> None:
    again = tmp_path / "again.json"
    again.write_text(page_reports.reports["diff-new"].read_text(encoding="utf-8"), encoding="utf-8")
    sources = page.read([page_reports.reports["check-fake"], page_reports.reports["diff-new"], again,
                         page_reports.reports["check-reference"]])
    shown = page.render(sources)
    fake = re.search(r'<li data-impl="fake">(.*?)</li>', shown)
    assert fake is not None and "1 new class(es)" in fake.group(1), fake
    matrix = shown[shown.index("<table id='matrix-table'>"):]
    columns = re.findall(r'<th data-impl="([^"]+)">', matrix[:matrix.index("</thead>")])
    assert columns == ["reference", "fake"]  # the oracle first, whichever report named it first


HOSTILE = "<x-inj q=\"1\" s='2'></script><!--<script>"


def test_report_strings_never_become_markup(page_reports: making.Made, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Markup in every string a report can bring (a command line, a mismatch, an explanation, a message, a
    note, an implementation's name and description) is shown as text, and the page's own run block ends
    where it should."""
    fake = page_reports.document("check-fake")
    fake["run"]["command"] += " " + HOSTILE
    fake["results"][0]["why"] = HOSTILE if fake["results"][0]["state"] != "pass" else None
    failing = next(row for row in fake["results"] if row["state"] == "fail")
    failing["why"] += HOSTILE
    failing["case"] += HOSTILE
    diff = page_reports.document("diff-new")
    diff["divergences"][0]["explanation"] += HOSTILE
    diff["run"]["implementations"]["fake"]["language"] += HOSTILE
    paths = []
    for name, document in (("fake" + HOSTILE.replace("/", "") + ".json", fake), ("diff.json", diff)):
        (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
        paths.append(tmp_path / name)
    monkeypatch.setattr(sys, "orig_argv", [*sys.orig_argv, str(paths[0])])  # the page's own command line
    target = page.write(tmp_path / "site", page.read(paths))
    text = target.read_text(encoding="ascii")
    found = _Links()
    found.feed(text)
    # the run block, the classes' index (harness/cli/class_groups.py), the filters
    assert "x-inj" not in found.tags and found.tags.count("script") == 3, found.tags
    run = re.search(r"<script type='application/json' id='page-run'>(.*?)</script>", text, re.S)
    assert run is not None and "<!--<script>" in json.loads(run.group(1))["command"]
    # Not one "<" inside the block: a browser reads "<!--<script>" there as the start of an escaped script and
    # the rest of the page as its text (Python's parser does not, so this is said of the text itself).
    assert "<" not in run.group(1)
    assert text.count("&lt;x-inj") >= 5


def test_a_baseline_that_shares_no_implementation_is_not_compared(page_reports: making.Made) -> None:
    sources = page.read([page_reports.reports["check-reference"]])
    shown = page.baseline_section(sources, page.read([page_reports.baseline]), results.merged_results(sources))
    assert "no report of that kind to compare it with" in shown and "tr class=\"change\"" not in shown


def test_the_verdict_reads_the_results_the_page_shows(page_reports: making.Made, tmp_path: Path) -> None:
    """A failing run replaced by a newer passing run of the same implementation is not something new."""
    older = page_reports.document("check-fake")
    older["run"]["ended"] = "2000-01-01T00:00:00Z"
    (tmp_path / "older.json").write_text(json.dumps(older), encoding="utf-8")
    sources = page.read([tmp_path / "older.json", page_reports.baseline])
    assert not page.something_new(sources, [])
    assert 'badge pass">all agree' in page.render(sources)
    older["run"]["ended"] = "2100-01-01T00:00:00Z"  # now the failing run is the newer one
    (tmp_path / "newer.json").write_text(json.dumps(older), encoding="utf-8")
    assert page.something_new(page.read([tmp_path / "newer.json", page_reports.baseline]), [])


def test_no_divergence_is_said_only_of_an_implementation_a_divergence_run_had(page_reports: making.Made) -> None:
    """...and with how much that run checked: a diff is one input, never a bare "no divergence"."""
    shown = page.render(page.read([page_reports.reports["check-reference"]]))
    assert "no divergence run" in shown and not re.search(">no divergence (on|in) ", shown)
    shown = page.render(page.read([page_reports.reports["check-reference"], page_reports.reports["diff-new"]]))
    assert re.search(r'<li data-impl="reference">.*?>no divergence on 1 input<', shown)
    assert ">no divergence<" not in shown


def test_the_verdict_at_the_top_names_its_evidence(page_reports: making.Made) -> None:
    """"all agree" says on how much: the fixture cases the results hold (passed or failed, not skipped)."""
    document = page_reports.document("check-reference")
    cases = sum(row["state"] != "skip" for row in document["results"])
    shown = page.render(page.read([page_reports.reports["check-reference"]]))
    assert f'badge pass">all agree on {cases:,} fixture cases<' in shown
    shown = page.render(page.read([page_reports.reports["check-fake"]]))
    assert 'badge fail">something new<' in shown and "fixture cases fail on fake" in shown


def test_two_reports_of_one_kind_have_their_own_anchors(page_reports: making.Made) -> None:
    shown = page.render(page.read([page_reports.reports["diff-new"], page_reports.reports["diff-expected"]]))
    ids = re.findall(r' id="([^"]+)"', shown) + re.findall(r" id='([^']+)'", shown)
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_a_class_two_reports_saw_is_one_card_naming_both_with_an_anchor_of_its_identity(
        page_reports: making.Made, tmp_path: Path) -> None:
    """Each class once, whichever reports saw it, anchored by its identity: the same anchor in another run
    that sees it (another witness, another report), never its place in a report."""
    again = tmp_path / "again.json"
    document = page_reports.document("diff-new")
    again.write_text(json.dumps(document), encoding="utf-8")
    sources = page.read([page_reports.reports["diff-new"], page_reports.reports["diff-expected"], again])
    shown = page.render(sources)
    cards = re.findall(r'<article id="([^"]+)"[^>]*data-reports="([^"]*)"', shown)
    classes = {rundiff.identity(d) for name in ("diff-new", "diff-expected")
               for d in page_reports.document(name)["divergences"]}
    assert len(cards) == len(classes) == 2, cards
    [(anchor, reports)] = [card for card in cards if str(again) in card[1]]
    assert reports.split() == [str(page_reports.reports["diff-new"]), str(again)]
    assert anchor == ClassKey.of_report(document["divergences"][0]).anchor
    other = json.loads(json.dumps(document))  # another run, another witness: the same anchor
    other["divergences"][0]["args"] = dict(other["divergences"][0]["args"], text="B\u001c")
    later = tmp_path / "later.json"
    later.write_text(json.dumps(other), encoding="utf-8")
    assert f'<article id="{anchor}"' in page.render(page.read([later]))
    assert len(re.findall(r"<tr class=\"class-row\"", shown)) == 2


def test_a_data_block_cannot_be_ended_by_what_it_holds() -> None:
    """The page's data (its run, a large page's card details) is JSON in a script element of another type:
    no text in it ends the element or opens a comment, and it reads back as it was."""
    value = {"a": "</script><!--<script>x</SCRIPT>", "b": "\\</", "c": "<\\/"}
    block = page_html.data_block("d", value)
    inner = block[block.index(">") + 1:block.rindex("</script>")]
    assert "<" not in inner
    assert json.loads(inner) == value


def test_the_history_shows_since_when_a_class_is_seen(page_reports: making.Made, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """report html --history DIR: each page keeps its run's summary there and shows the runs kept before,
    side by side; a class of this run is "since" the run that first saw it, or "not in the last run"; what
    the last run had and this one has not is listed. The same reports made again keep one summary."""
    history = tmp_path / "history"
    first = [page_reports.reports["check-fake"], page_reports.reports["diff-expected"]]
    second = [*first, page_reports.reports["diff-new"]]

    def make(paths: list[Path]) -> str:
        status = cli.main(["report", "html", *map(str, paths), "-o", str(tmp_path / "site"), "--history",
                           str(history)])
        assert status in (AGREE, FOUND), capsys.readouterr()
        return (tmp_path / "site" / "index.html").read_text(encoding="ascii")

    alone = make(first)
    assert "id='history-table'" not in alone  # nothing kept before it
    kept = sorted(history.glob("*.json"))
    assert len(kept) == 1 and not problems(json.loads(kept[0].read_text()))
    again = make(first)  # the same reports: the same summary, not a run of its own
    assert sorted(history.glob("*.json")) == kept and "id='history-table'" not in again
    shown = make(second)
    assert len(list(history.glob("*.json"))) == 2
    assert "id='history-table'" in shown
    expected = ClassKey.of_report(page_reports.document("diff-expected")["divergences"][0]).anchor
    new = ClassKey.of_report(page_reports.document("diff-new")["divergences"][0]).anchor
    card = re.search(rf'<article id="{expected}".*?</h3>', shown, re.S)
    assert card is not None and "since " in card.group(0) and "in 1 of the 1 runs before" in card.group(0)
    card = re.search(rf'<article id="{new}".*?</h3>', shown, re.S)
    assert card is not None and "not in the last run (0 of the 1 before)" in card.group(0)
    arrived = re.search(r"<ul id='arrived'>(.*?)</ul>", shown, re.S)
    assert arrived is not None and re.findall(r"href='#([^']+)'", arrived.group(1)) == [new]
    back = make(first)  # the class gone again: listed as in the last run, not in this one
    gone = re.search(r"<ul id='gone'>(.*?)</ul>", back, re.S)
    assert gone is not None and "decide_write" in gone.group(1)


def test_a_history_file_that_is_not_a_run_summary_is_status_2_naming_it(page_reports: making.Made, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    history = tmp_path / "history"
    history.mkdir()
    for name, text in (("other.json", json.dumps({"schema": "fixture-results-v1"})), ("bad.json", "{"),
                       ("shape.json", json.dumps({"schema": "run-summary-v1", "classes": 3}))):
        for old in history.iterdir():
            old.unlink()
        (history / name).write_text(text, encoding="utf-8")
        status = cli.main(["report", "html", str(page_reports.reports["check-fake"]), "-o", str(tmp_path / "site"),
                           "--history", str(history)])
        err = capsys.readouterr().err
        assert status == USAGE and name in err and "Traceback" not in err, err
        assert not (tmp_path / "site").exists() and [p.name for p in history.iterdir()] == [name]
    assert cli.main(["report", "html", str(page_reports.reports["check-fake"]), "-o", str(tmp_path / "site"),
                     "--keep", "0", "--history", str(history)]) == USAGE
    assert "--keep 0" in capsys.readouterr().err and not (tmp_path / "site").exists()


def test_each_implementation_row_counts_this_run(page_reports: making.Made) -> None:
    """The implementations table: each one's fixture cases by state and its classes, as the reports hold them."""
    shown = page.render(page.read(page_reports.reports.values()))
    row = re.search(r'<tr id="impl-fake" data-impl="fake">(.*?)</tr>', shown, re.S)
    assert row is not None
    states = [r["state"] for r in page_reports.document("check-fake")["results"]]
    cases = ", ".join(f"{states.count(state)} {state}" for state in ("pass", "fail", "skip") if states.count(state))
    classes = [d for name in ("diff-new", "diff-expected") for d in page_reports.document(name)["divergences"]]
    new = sum(d["status"] == "new" for d in classes)
    assert f"cases: {cases}; <a href='#f:class-impl=fake'>{len(classes)} class(es)</a> ({new} new)" in row.group(1)


def test_the_runs_notes_are_shown_in_the_tests_section_not_the_covering_entries(tmp_path: Path) -> None:
    """The run's notes (rundiff.read_run: what of a run was not read with it) go to the tests section; the
    covering entries' notes go to the class cards (once both were called ``notes`` in render, and the tests
    section listed the entries' names in place of the run's notes)."""
    note = "reports/parity-junit.xml: not read, from another run"
    shown = page.render([], notes=[note])
    tests = shown[shown.index("<section id='tests'>"):]
    tests = tests[:tests.index("</section>")]
    assert f"<li>{note}</li>" in tests
    entries = {"pyo3/skew-1": {"note": "Rust reads 17.0"}}
    context = page_html.PageContext([], None, [], "reference", entries, [note])
    from harness.cli.reports import ran

    assert "pyo3/skew-1" not in ran.KIND.section.render(context) and note in ran.KIND.section.render(context)


def test_the_pass_badge_counts_only_judged_cases(page_reports: making.Made, tmp_path: Path) -> None:
    """A skipped case (a contract not served, a host that cannot hold it) is never in a pass rate's denominator."""
    document = json.loads(page_reports.reports["check-reference"].read_text(encoding="utf-8"))
    rows = [row for row in document["results"] if row["implementation"] == "reference"]
    for row in rows[:3]:
        row["state"], row["why"] = "skip", "the implementation does not serve contract v9"
    document["counts"]["reference"] = {state: sum(r["state"] == state for r in rows)
                                       for state in ("pass", "fail", "skip")}
    path = tmp_path / "check-skips.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    shown = page.render(page.read([path]))
    badge = re.search(r'<li data-impl="reference">(.*?)</li>', shown)
    assert badge is not None and f"{len(rows) - 3}/{len(rows) - 3} cases pass, 3 skipped" in badge.group(1), badge
