"""The conformance page in a real headless browser: Debian's chromium through its chromium-driver
(harness/tools/browser.py), loaded from the file system as a person opens it.

The page is made by ``python -m harness report html`` from reports the real command line wrote on a fake
with a planted traced bug (suites/cli/page_reports.py): failing fixture cases, a new class and a covered one, a
baseline. Each check reads the page through the DOM and holds it against the reports themselves, and each
check is seen failing on a page with a bug planted in its making (a wrong cell, an output's marks gone, a
covering entry dropped, a request outside the folder, a script error).

Without a browser the tests skip, saying how to install one; ``PARITY_REQUIRE_BROWSER=1`` (set by .ci/run)
makes that a failure. Screenshots go to ``PARITY_ARTIFACTS`` when it names a folder (.ci/run: artifacts/),
else into the test's temporary folder.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from harness.classes.key import ClassKey
from harness.classes.record import ClassRecord
from harness.cli import html as page_html
from harness.cli import page, views
from harness.cli.reports import divergences, results
from harness.model import hostvalues
from harness.tools import browser as browsers
from suites.cli import page_reports as making

ARTIFACTS_ENV = "PARITY_ARTIFACTS"


@pytest.fixture(scope="module")
def site(page_reports: making.Made, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = making.render(page_reports, out)
    assert done.returncode == 1, done.stdout + done.stderr  # written, and the reports hold something new
    return out / "index.html"


def load(driver: Any, path: Path) -> None:
    browsers.requests(driver), browsers.console_errors(driver)  # drop what an earlier page logged
    driver.get(path.resolve().as_uri())
    driver.find_element("id", "matrix")


def open_groups(driver: Any) -> None:
    """Open every group of classes (harness/cli/class_groups.py), as a reader clicking each row would, and wait
    until the script has put in the cards of those that carry them as data."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_script("document.querySelectorAll('details.group').forEach(g => { g.open = true; })")
    WebDriverWait(driver, 10).until(lambda _: not driver.find_elements("css selector", "div.group-body[data-lazy]"))


def artifacts(tmp_path: Path) -> Path:
    folder = Path(os.environ.get(ARTIFACTS_ENV) or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# -- the checks: each reads the page through the DOM and returns what does not match the reports ----------

CELLS = """return Array.from(document.querySelectorAll('#matrix-table tr.case')).flatMap(row =>
  Array.from(row.querySelectorAll('td.cell')).map(cell => [cell.dataset.impl, row.dataset.fixture, row.dataset.case,
    cell.dataset.state, cell.getAttribute('title'), cell.textContent.trim()]));"""


def matrix_problems(driver: Any, made: making.Made) -> list[str]:
    """Every case of every fixture-results report is one cell with its state, mismatch or reason, and every
    failing one is listed with its mismatch."""
    shown = {(impl, fixture, case): (state, title, text)
             for impl, fixture, case, state, title, text in driver.execute_script(CELLS)}
    problems = []
    rows = [row for name in ("check-reference", "check-fake") for row in made.document(name)["results"]]
    if len(shown) != len(rows):
        problems.append(f"{len(shown)} cells for {len(rows)} case results")
    label = {"pass": "pass", "fail": "FAIL", "skip": "skip"}
    for row in rows:
        key = (row["implementation"], row["fixture"], row["case"])
        want = (row["state"], row["why"] or "", label[row["state"]])
        if shown.get(key) != want:
            problems.append(f"{'/'.join(key)}: the page shows {shown.get(key)}, the report says {want}")
        if row["state"] == "fail":
            listed = driver.find_elements("css selector", f'#failures li[data-impl="{row["implementation"]}"]'
                                                          f'[data-case="{row["case"]}"]')
            if not listed or row["why"] not in listed[0].text:
                problems.append(f"{'/'.join(key)}: not listed among the failing cases with its mismatch")
    return problems


def group_problems(driver: Any, made: making.Made) -> list[str]:
    """Each (fixture, op) group's head counts its cases' states per implementation as the reports do."""
    want: dict[tuple[str, str, str], dict[str, int]] = {}
    for name in ("check-reference", "check-fake"):
        for row in made.document(name)["results"]:
            counts = want.setdefault((row["fixture"], row["op"], row["implementation"]), {})
            counts[row["state"]] = counts.get(row["state"], 0) + 1
    problems = []
    for group in driver.find_elements("css selector", "#matrix-table tbody.group"):
        fixture, op = group.get_attribute("data-fixture"), group.get_attribute("data-op")
        for cell in group.find_elements("css selector", "tr.group-head td.group-counts"):
            impl = cell.get_attribute("data-impl")
            counts = want.pop((fixture, op, impl), {})
            said = f"{counts.get('pass', 0)} pass" + "".join(
                f", {counts[state]} {state}" for state in ("fail", "skip") if counts.get(state))
            if cell.text != said:
                problems.append(f"{fixture} {op} {impl}: the group says {cell.text!r}, the reports {said!r}")
    problems += [f"{key}: no group counts it" for key in want]
    return problems


def _shown_output(output: dict[str, Any]) -> str:
    """An output as the tables show it (harness/cli/views.py, not the page's own code)."""
    if "ok" in output:
        return views.show_value(hostvalues.decode(output["ok"]))
    return f"error {output['error']['code']}: {views.show_text(output['error']['message'])}"


def _field_problems(where: str, card: Any, divergence: dict[str, Any], oracle: str) -> list[str]:
    """A JSON result (decide_write's) is shown field by field: a row per field any side has, marked exactly
    where a side's value differs from the oracle's (worked out here from the report's outputs)."""
    if divergence["op"] != "decide_write":
        return []
    parsed = {impl: json.loads(hostvalues.decode(output["ok"])) for impl, output in divergence["outputs"].items()
              if "ok" in output}
    if len(parsed) != len(divergence["outputs"]):
        return []
    rows = {row.get_attribute("data-field"): row for row in card.find_elements("css selector", "table.fields tbody tr")}
    problems = []
    fields = {key for value in parsed.values() for key in value}
    if set(rows) != fields:
        problems.append(f"{where}: fields shown {sorted(rows)}, the outputs have {sorted(fields)}")
    differing = {key for key in fields if len({json.dumps(value.get(key)) for value in parsed.values()}) > 1}
    marked = {key for key, row in rows.items() if "differs" in (row.get_attribute("class") or "").split()}
    if marked != differing or not differing:
        problems.append(f"{where}: fields marked {sorted(marked)}, those that differ are {sorted(differing)}")
    return problems


def class_problems(driver: Any, made: making.Made) -> list[str]:
    """Every class of every divergence report: its cause and step, its witness, each implementation's output
    side by side (those that differ from the oracle's marked, the others not), each side's trace entry, every
    covering entry with its note, the replay command."""
    problems = []
    for group in driver.find_elements("css selector", "details.group"):  # the groups come folded
        if group.get_attribute("open") is not None:
            problems.append(f"group {group.get_attribute('id')}: open before it was asked")
    open_groups(driver)
    for card in driver.find_elements("css selector", "article.class"):  # a folded card's head alone is shown
        if not card.find_element("css selector", "h3").is_displayed():
            problems.append(f"card {card.get_attribute('id')}: its head is not shown")
    folded = [card.get_attribute("data-status") for card in driver.find_elements("css selector", "article.class")
              if not card.find_element("css selector", "details").get_attribute("open")]
    if set(folded) - {"expected"}:
        problems.append(f"folded cards of status {sorted(set(folded))}: only expected classes are folded")
    driver.execute_script("document.querySelectorAll('article.class details').forEach(d => { d.open = true; })")
    listed = {entry["id"]: entry for entry in json.loads((made.impls / "lists" / "fake.json").read_text())["entries"]}
    for name in ("diff-new", "diff-expected"):
        for divergence in made.document(name)["divergences"]:
            where = f"{name}: {divergence['op']} {divergence['cause']}"
            found = driver.find_elements("css selector", f'article.class[data-op="{divergence["op"]}"]'
                                                         f'[data-cause="{divergence["cause"]}"]')
            if len(found) != 1:
                problems.append(f"{where}: {len(found)} cards")
                continue
            card = found[0]
            if divergence["cause"] not in card.find_element("css selector", ".cause").text or \
                    card.find_element("css selector", ".step").text != divergence["step"]:
                problems.append(f"{where}: cause or step not shown")
            if card.get_attribute("data-status") != divergence["status"]:
                problems.append(f"{where}: status {card.get_attribute('data-status')}, not {divergence['status']}")
            witness = card.find_element("css selector", "table.witness").text
            for arg, value in hostvalues.decode_args(divergence["args"]).items():
                if views.show_value(value) not in witness:
                    problems.append(f"{where}: the witness's {arg} is not shown")
            oracle = next(iter(divergence["outputs"]))
            problems += _field_problems(where, card, divergence, oracle)
            for impl, output in divergence["outputs"].items():
                cell = card.find_element("css selector", f'table.outputs:not(.fields) td[data-impl="{impl}"]')
                if cell.text != _shown_output(output):
                    problems.append(f"{where}: {impl}'s output shown as {cell.text!r}")
                differs = output != divergence["outputs"][oracle]
                marks = cell.find_elements("css selector", "mark")
                if impl != oracle and differs != bool(marks):
                    problems.append(f"{where}: {impl}'s output {'differs' if differs else 'agrees'} and has "
                                    f"{len(marks)} marks")
            at = divergence.get("traceAtStep", {})
            rows = {tr.find_elements("css selector", "td")[0].text: tr
                    for tr in card.find_elements("css selector", "table.trace-at tbody tr")}
            if set(rows) != set(at):
                problems.append(f"{where}: trace entries of {sorted(rows)}, the report has {sorted(at)}")
            for impl, entry in at.items():
                if impl not in rows:
                    continue
                cells = [td.text for td in rows[impl].find_elements("css selector", "td")]
                if cells[1:] != [str(entry["index"]), entry["step"], views.show_value(entry["value"])]:
                    problems.append(f"{where}: {impl}'s trace entry shown as {cells[1:]}")
                base = at[oracle]
                differs = entry["value"] != base["value"] and entry["index"] == base["index"]
                if impl != oracle and differs != bool(rows[impl].find_elements("css selector", "mark")):
                    problems.append(f"{where}: {impl}'s trace entry {'differs' if differs else 'agrees'}; marks wrong")
            for entry_name in divergence.get("expectedEntries") or []:
                items = card.find_elements("css selector", f'.entries li[data-entry="{entry_name}"]')
                note = listed.get(entry_name.partition("/")[2], {}).get("note", "")
                if not items or note not in items[0].text:
                    problems.append(f"{where}: covering entry {entry_name} not shown with its note")
            replay = card.find_element("css selector", "pre.replay").text
            if replay != (divergence.get("replay") or divergences.replay_of(ClassRecord.from_json(divergence))):
                problems.append(f"{where}: replay {replay!r}")
    return problems


def description_problems(driver: Any, made: making.Made) -> list[str]:
    problems = []
    for name, description in made.document("diff-new")["run"]["implementations"].items():
        row = driver.find_element("css selector", f'#impls-table tr[data-impl="{name}"]').text
        for field in ("version", "language"):
            if description[field] not in row:
                problems.append(f"{name}: {field} {description[field]!r} not shown")
        for step, version in description["unicode"].items():
            if f"{step} {version}" not in row:
                problems.append(f"{name}: Unicode {step} {version} not shown")
    return problems


def baseline_problems(driver: Any, made: making.Made) -> list[str]:
    """The changes since the baseline, worked out here from the two documents (not by rundiff, which the page
    uses): the baseline's fake passed every case it could hold (and skipped the same ones), so each case it
    fails now is new, and nothing else changed."""
    old = json.loads(made.baseline.read_text())
    assert {row["state"] for row in old["results"]} == {"pass", "skip"}
    rows = driver.find_elements("css selector", "#baseline tr.change")
    shown = sorted((row.get_attribute("data-change"), row.find_elements("css selector", "td")[3].text) for row in rows)
    want = sorted(("new", f"{row['fixture']}/{row['case']}") for row in made.document("check-fake")["results"]
                  if row["state"] == "fail")
    return [] if shown == want and want else [f"baseline rows {shown}, the reports say {want}"]


def hygiene_problems(driver: Any) -> list[str]:
    """No console error, and no request outside the page's folder (file:// only)."""
    problems = [f"console: {message}" for message in browsers.console_errors(driver)]
    problems += [f"request outside the folder: {url}" for url in browsers.requests(driver)
                 if not url.startswith("file://")]
    return problems


# -- the page as made -----------------------------------------------------------------------------------------

def test_the_page_shows_every_case_class_description_and_change(driver: Any, site: Path,
                                                               page_reports: making.Made, tmp_path: Path) -> None:
    load(driver, site)
    assert matrix_problems(driver, page_reports) == []
    assert class_problems(driver, page_reports) == []
    assert description_problems(driver, page_reports) == []
    assert baseline_problems(driver, page_reports) == []
    assert hygiene_problems(driver) == []
    # The witness A U+001C: the oracle keeps the U+001C its step does not strip, the fake strips it. Written
    # here, not computed: the mark is the escape whole, and the fake's side has a gap where it lacks it.
    card = driver.find_element("css selector", 'article.class[data-op="normalize_fact_text"]')
    oracle = card.find_element("css selector", 'table.outputs td[data-impl="reference"]')
    fake = card.find_element("css selector", 'table.outputs td[data-impl="fake"]')
    assert (oracle.text, fake.text) == ('"a\\u001C"', '"a"')
    assert [m.text for m in oracle.find_elements("css selector", "mark")] == ["\\u001C"]
    assert len(fake.find_elements("css selector", "mark.gap")) == 1
    driver.save_screenshot(str(artifacts(tmp_path) / "page-top.png"))
    card = driver.find_element("css selector", 'article.class[data-status="new"]')
    driver.execute_script("arguments[0].scrollIntoView()", card)
    driver.save_screenshot(str(artifacts(tmp_path) / "page-class.png"))
    assert (artifacts(tmp_path) / "page-top.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# The case rows the reader sees: laid out, not inside a folded group or filtered out (checkVisibility: display,
# content-visibility and every ancestor's).
VISIBLE_CASES = """return Array.from(document.querySelectorAll('#matrix-table tr.case'))
  .filter(row => row.checkVisibility()).map(row => [row.dataset.fixture, row.dataset.case]);"""


def test_the_filters_show_the_cases_asked_for(driver: Any, site: Path, page_reports: making.Made,
                                              tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import Select

    load(driver, site)
    rows = [row for name in ("check-reference", "check-fake") for row in page_reports.document(name)["results"]]

    def visible() -> set[tuple[str, str]]:  # one script for every row (a WebDriver call per row took 25 s)
        return {tuple(row) for row in driver.execute_script(VISIBLE_CASES)}

    def choose(ident: str, value: str) -> None:
        Select(driver.find_element("id", ident)).select_by_value(value)

    # No filter: the cases some implementation fails or skips, the rest folded into their groups.
    looked_at = {(r["fixture"], r["case"]) for r in rows if r["state"] != "pass"}
    assert visible() == looked_at and looked_at
    assert group_problems(driver, page_reports) == []
    group = driver.find_element("css selector", "#matrix-table tbody.group:has(button.unfold)")
    fixture, op = group.get_attribute("data-fixture"), group.get_attribute("data-op")
    group.find_element("css selector", "button.unfold").click()
    unfolded = {(r["fixture"], r["case"]) for r in rows if (r["fixture"], r["op"]) == (fixture, op)}
    assert visible() == looked_at | unfolded
    group.find_element("css selector", "button.unfold").click()
    assert visible() == looked_at
    choose("filter-state", "fail")
    failing = {(r["fixture"], r["case"]) for r in rows if r["state"] == "fail"}
    assert visible() == failing and failing
    assert driver.find_element("id", "matrix-count").text.startswith(f"{len(failing)} of ")
    choose("filter-impl", "reference")  # the reference fails none of them
    assert visible() == set()
    assert not driver.find_element("css selector", '#matrix-table th[data-impl="fake"]').is_displayed()
    choose("filter-impl", "fake")
    choose("filter-state", "")
    step = "norm.edges"
    choose("filter-step", step)
    assert visible() == {(r["fixture"], r["case"]) for r in rows if step in r["steps"]}
    choose("filter-step", "")
    family = rows[0]["fixture"]
    choose("filter-family", family)
    assert visible() == {(r["fixture"], r["case"]) for r in rows if r["fixture"] == family}
    choose("filter-family", "")
    driver.find_element("id", "filter-text").send_keys("u001c")
    assert visible() == {(r["fixture"], r["case"]) for r in rows if "u001c" in r["case"].lower()}
    driver.save_screenshot(str(artifacts(tmp_path) / "page-filtered.png"))
    assert hygiene_problems(driver) == []


def test_the_class_filters_show_the_classes_asked_for(driver: Any, site: Path, page_reports: making.Made) -> None:
    from selenium.webdriver.support.ui import Select

    load(driver, site)
    every = [d for name in ("diff-new", "diff-expected") for d in page_reports.document(name)["divergences"]]

    def visible(selector: str) -> list[tuple[str, str]]:
        return sorted((el.get_attribute("data-status"), el.get_attribute("data-cause"))
                      for el in driver.find_elements("css selector", selector) if el.is_displayed())

    def choose(ident: str, value: str) -> None:
        Select(driver.find_element("id", ident)).select_by_value(value)

    open_groups(driver)
    driver.execute_script("document.querySelector('details.class-table').open = true")  # the table of every class
    assert visible("article.class") == sorted((d["status"], d["cause"]) for d in every)
    for status in ("new", "expected"):
        choose("class-status", status)
        want = sorted((d["status"], d["cause"]) for d in every if d["status"] == status)
        assert visible("article.class") == want and visible("tr.class-row") == want and want
        assert driver.find_element("id", "class-count").text == f"{len(want)} of {len(every)} classes shown"
    options = [o.get_attribute("value") for o in driver.find_elements("css selector", "#class-impl option")]
    assert options == ["", "fake"]  # the implementations of some share: never the oracle
    choose("class-impl", "fake")
    choose("class-cause", "whitespace_definition")
    assert visible("article.class") == [("expected", "whitespace_definition")]  # the status filter still holds
    choose("class-status", "")
    assert len(visible("article.class")) == len(every)
    choose("class-impl", "")
    choose("class-cause", "")
    search = driver.find_element("id", "class-text")  # by code point, character name, op, witness
    for words, want in (("U+001C", every), ("<control>", every), ("decide_write", [
            d for d in every if d["op"] == "decide_write"]), ("u+001c normalize_fact", [
            d for d in every if d["op"] == "normalize_fact_text"]), ("no-such-thing", [])):
        search.clear()
        search.send_keys(words)
        assert visible("article.class") == sorted((d["status"], d["cause"]) for d in want), words
    search.clear()
    search.send_keys(" ")
    assert len(visible("article.class")) == len(every)
    link = driver.find_element("css selector", "#impl-fake td.this-run a")  # an implementation's classes
    driver.execute_script("arguments[0].click()", link)
    assert Select(driver.find_element("id", "class-impl")).first_selected_option.get_attribute("value") == "fake"
    assert driver.find_element("id", "class-count").text == f"{len(every)} of {len(every)} classes shown"
    assert hygiene_problems(driver) == []


def test_filters_live_in_the_url_and_an_anchor_opens_its_class(driver: Any, site: Path,
                                                                page_reports: making.Made) -> None:
    """A filtered view is a link: the filters chosen are in the URL, and the same URL opened afresh shows the
    same view; a class's anchor (its identity) opens its folded card."""
    from selenium.webdriver.support.ui import Select

    load(driver, site)
    Select(driver.find_element("id", "class-status")).select_by_value("expected")
    Select(driver.find_element("id", "filter-state")).select_by_value("fail")
    url = driver.current_url
    assert "#f:" in url and "class-status=expected" in url and "filter-state=fail" in url, url
    shown = (driver.find_element("id", "class-count").text, driver.find_element("id", "matrix-count").text)
    driver.get("about:blank")
    driver.get(url)
    assert (driver.find_element("id", "class-count").text, driver.find_element("id", "matrix-count").text) == shown
    assert Select(driver.find_element("id", "class-status")).first_selected_option.get_attribute("value") == \
        "expected"
    expected = next(d for d in page_reports.document("diff-expected")["divergences"] if d["status"] == "expected")
    anchor = ClassKey.of_report(expected).anchor
    driver.get("about:blank")
    driver.get(site.resolve().as_uri() + "#" + anchor)
    card = driver.find_element("id", anchor)
    assert card.find_element("css selector", "details").get_attribute("open") is not None
    assert card.find_element("css selector", "pre.replay").is_displayed()
    assert hygiene_problems(driver) == []


def test_a_page_of_many_classes_fills_each_card_as_the_inline_page_shows_it(
        driver: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From divergences.LAZY_FROM classes on, a card's details are data the script fills in: opened (by a click, by
    its anchor) or near the window, each card shows what the same page made inline shows; the class table
    is built when asked for and the filters count its rows; the browser logs no error (the data block is
    data under the page's policy, never a script)."""
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from harness.model.files import write_document
    from harness.tools import page_bench

    report = tmp_path / "many.json"
    classes = divergences.LAZY_FROM + 20
    write_document(report, page_bench.report(classes), replaces=("divergence-report-v2",), what="report")
    lazy = page.write(tmp_path / "lazy", page.read([report]))
    monkeypatch.setattr(divergences, "LAZY_FROM", classes + 1)
    inline = page.write(tmp_path / "inline", page.read([report]))
    assert "id='card-bodies'" in lazy.read_text() and "id='card-bodies'" not in inline.read_text()

    def details(card: Any) -> str:
        WebDriverWait(driver, 10).until(lambda _: not card.find_elements("css selector", "div.card-body[data-lazy]"))
        return card.find_element("css selector", "details").get_attribute("textContent")

    driver.get(inline.resolve().as_uri())
    want = {card.get_attribute("id"): card.find_element("css selector", "details").get_attribute("textContent")
            for card in driver.find_elements("css selector", "article.class")}
    groups = len(driver.find_elements("css selector", "details.group"))
    load(driver, lazy)
    assert not driver.find_elements("css selector", "article.class")  # the groups' cards: only when opened
    assert len(driver.find_elements("css selector", "details.group")) == groups > 1
    driver.find_element("css selector", "details.group > summary").click()  # the first group opened
    # its cards are put in by the script on the toggle event, after the click returns: wait for them
    WebDriverWait(driver, 10).until(lambda _: driver.find_elements("css selector", "article.class"))
    first = driver.find_element("css selector", "article.class")  # new, open, near the window: filled
    assert details(first) == want[first.get_attribute("id")]
    open_groups(driver)  # every group opened: the same cards as the inline page's, in the same groups
    assert [card.get_attribute("id") for card in driver.find_elements("css selector", "article.class")] == list(want)
    expected = [card for card in driver.find_elements("css selector", "article.class.expected")][-1]
    driver.execute_script("arguments[0].scrollIntoView()", expected)
    expected.find_element("css selector", "summary").click()  # folded: filled when opened
    assert details(expected) == want[expected.get_attribute("id")]
    last_new = [card for card in driver.find_elements("css selector", "article.class.new")][-1].get_attribute("id")
    driver.get("about:blank")
    driver.get(lazy.resolve().as_uri() + "#" + last_new)  # far down, opened by its anchor
    card = driver.find_element("id", last_new)
    driver.execute_script("arguments[0].scrollIntoView()", card)
    assert details(card) == want[card.get_attribute("id")]
    assert not driver.find_elements("css selector", "tr.class-row")  # the table: only when asked for
    driver.execute_script("arguments[0].click()", driver.find_element("id", "show-class-table"))  # under the header
    assert len(driver.find_elements("css selector", "tr.class-row")) == classes
    Select(driver.find_element("id", "class-status")).select_by_value("expected")
    shown = [row for row in driver.find_elements("css selector", "tr.class-row") if row.is_displayed()]
    assert len(shown) == classes // 2
    assert driver.find_element("id", "class-count").text == f"{classes // 2} of {classes} classes shown"
    assert hygiene_problems(driver) == []


def test_the_page_benchmark_gives_its_figures(driver: Any, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """harness/tools/page_bench.py on small sizes: a figure per size (bytes, elements, paint, load), measured by
    the browser, written only where it is told."""
    from harness.tools import page_bench

    assert page_bench.main(["--classes", "3", "--classes", str(divergences.LAZY_FROM), "--repeat", "1", "--json",
                            "--out", str(tmp_path)]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert [row["classes"] for row in figures] == [3, divergences.LAZY_FROM]
    assert all(row["bytes"] > 0 and row["elements"] > 0 and row["load"]["best"] > 0 for row in figures), figures
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"report-{divergences.LAZY_FROM}.json", "report-3.json", f"site-{divergences.LAZY_FROM}", "site-3"])


# -- every check fails on a page with a bug planted in its making -----------------------------------------------

def _flip_a_failing_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    merged = results.merged_results

    def planted(sources: Any) -> Any:
        found = merged(sources)
        row = next(row for row in found["results"] if row["state"] == "fail")
        row["state"], row["why"] = "pass", None
        return found

    monkeypatch.setattr(page, "merged_results", planted)


def _show_a_skipped_case_as_passing(monkeypatch: pytest.MonkeyPatch) -> None:
    merged = results.merged_results

    def planted(sources: Any) -> Any:
        found = merged(sources)
        for row in found["results"]:
            if row["state"] == "skip":
                row["state"] = "pass"
        return found

    monkeypatch.setattr(page, "merged_results", planted)


def _count_no_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = page_html.counts_html
    monkeypatch.setattr(results, "counts_html", lambda tallies: counts(dict(tallies, skip=0)))


def _drop_the_marks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(divergences, "side_by_side", lambda values, *_, **__: {
        name: html.escape("".join(value)) for name, value in values.items()})


def _drop_a_covering_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(divergences, "entries_html", lambda divergence, notes: "<ul class='entries'></ul>")


def _show_the_oracles_output_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    outputs = divergences.outputs_html

    def planted(record: ClassRecord, oracle: str) -> str:
        same = {name: record.witness.outputs[oracle] for name in record.witness.outputs}
        return outputs(replace(record, witness=replace(record.witness, outputs=same)), oracle)

    monkeypatch.setattr(divergences, "outputs_html", planted)


def _mark_every_field(monkeypatch: pytest.MonkeyPatch) -> None:
    fields = divergences.fields_html
    monkeypatch.setattr(divergences, "fields_html",
                        lambda *a: fields(*a).replace("<tr data-field=", "<tr class='differs' data-field="))


def _a_request_outside_the_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """An image from outside (a closed port on this machine), with the page's own policy taken out so that the
    browser really asks for it: the request log must show it."""
    render = page.render
    monkeypatch.setattr(page, "render", lambda *a, **k: re.sub(
        r"<meta http-equiv='Content-Security-Policy'[^>]*>", "", render(*a, **k)).replace(
        "</main>", "<img src='http://127.0.0.1:9/planted.png'></main>"))


def _a_request_the_policy_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    render = page.render
    monkeypatch.setattr(page, "render", lambda *a, **k: render(*a, **k).replace(
        "</main>", "<img src='http://127.0.0.1:9/planted.png'></main>"))


def _open_the_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    render = page.render
    monkeypatch.setattr(page, "render", lambda *a, **k: render(*a, **k).replace(
        '<details id="group-', '<details open id="group-'))


def _a_script_error(monkeypatch: pytest.MonkeyPatch) -> None:
    render = page.render
    monkeypatch.setattr(page, "render", lambda *a, **k: render(*a, **k).replace(
        "</main>", "<script>document.getElementById('no-such').remove();</script></main>"))


# A plant, the check that must catch it, and what that check must say.
PLANTS: list[tuple[Callable[[pytest.MonkeyPatch], None], str, str]] = [
    (_flip_a_failing_cell, "matrix", "the report says ('fail'"),
    (_show_a_skipped_case_as_passing, "matrix", "the report says ('skip'"),
    (_count_no_skips, "group", "skip'"),
    (_drop_the_marks, "class", "output differs and has 0 marks"),
    (_mark_every_field, "class", "fields marked"),
    (_drop_a_covering_entry, "class", "not shown with its note"),
    (_show_the_oracles_output_everywhere, "class", "fake's output shown as"),
    (_open_the_groups, "class", "open before it was asked"),
    (_a_request_outside_the_folder, "hygiene", "request outside the folder: http://127.0.0.1:9/planted.png"),
    (_a_request_the_policy_blocks, "hygiene", "violates the following Content Security Policy"),
    (_a_script_error, "hygiene", "Uncaught TypeError"),
]


@pytest.mark.parametrize("plant, check, said", PLANTS, ids=[plant.__name__.strip("_") for plant, *_ in PLANTS])
def test_each_check_fails_on_a_planted_page(plant: Callable[[pytest.MonkeyPatch], None], check: str, said: str,
                                            driver: Any,
                                            page_reports: making.Made, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(page_reports.impls))  # the fake's expected list
    plant(monkeypatch)
    sources = page.read(page_reports.reports.values())
    target = page.write(tmp_path / "planted", sources, page.read([page_reports.baseline]))
    load(driver, target)
    found = {"matrix": lambda: matrix_problems(driver, page_reports),
             "class": lambda: class_problems(driver, page_reports),
             "group": lambda: group_problems(driver, page_reports),
             "hygiene": lambda: hygiene_problems(driver)}[check]()
    assert any(said in problem for problem in found), \
        f"the {check} check did not say {said!r} of a page planted with {plant.__name__}: {found}"
