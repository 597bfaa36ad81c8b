"""The page's groups of divergence classes (harness/cli/class_groups.py) in the headless browser of the page's
tests (harness/tools/browser.py): a report of 3,000 classes in 30 groups (6 causes x 5 steps of one op and one
implementation; each class its own detail) is 30 folded group rows, each counting its classes as the report
does and showing the witness of its smallest class; a group's anchor opens it, a class's anchor opens its group
and its card; the filters count each group's classes that match and stay in the URL. The counts are worked
out here from the report (ClassKey, Witness.size), never by the page's code; each check is seen failing on a
page planted with a count off by one and with the groups merged by op alone.

Without a browser the tests skip (``PARITY_REQUIRE_BROWSER=1``: a failure), as the page's other browser tests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.classes.key import ClassKey
from harness.classes.record import ClassRecord
from harness.cli import class_groups, page
from harness.tools import browser as browsers

CLASSES = 3000
CAUSES = ("whitespace_definition", "case_mapping", "normalization", "line_breaks", "edge_punctuation",
          "quote_dash_map")
STEPS = ("norm.edges", "norm.nfc", "norm.lines", "norm.case", "norm.marks")  # 6 x 5: 30 groups


@pytest.fixture(scope="module")
def grouped_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """page_bench's report of 3,000 classes, each class given one of 30 (cause, step) pairs; the witnesses' sizes
    differ within a group (a longer text every few classes), so that its smallest is one class."""
    from harness.model.files import write_document
    from harness.tools import page_bench

    document = page_bench.report(CLASSES)
    for number, divergence in enumerate(document["divergences"]):
        divergence["cause"] = CAUSES[number % len(CAUSES)]
        divergence["step"] = STEPS[(number // len(CAUSES)) % len(STEPS)]
    path = tmp_path_factory.mktemp("groups") / "report.json"
    write_document(path, document, replaces=("divergence-report-v2",), what="divergence report")
    return path


def want_groups(*documents: dict[str, Any]) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    """(op, cause, step, implementations) -> the classes of that group (count, new, smallest witness sizes and
    their anchors), each class once across the documents, from the reports alone."""
    classes: dict[tuple[Any, ...], ClassRecord] = {}
    for document in documents:
        for divergence in document["divergences"]:
            record = ClassRecord.from_json(divergence)
            key = ClassKey.of_report(divergence)
            seen = classes.get(key.identity)
            classes[key.identity] = record if seen is None or (not record.new and seen.new) else seen
    groups: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for record in classes.values():
        key = record.key
        group = groups.setdefault((key.op, key.cause, key.step or "", " ".join(sorted(key.impls))),
                                  {"count": 0, "new": 0, "sizes": {}})
        group["count"] += 1
        group["new"] += record.new
        group["sizes"][key.anchor] = record.witness.size
    return groups


GROUP_ROWS = """return Array.from(document.querySelectorAll('details.group'), g => [g.id, g.dataset.op, g.dataset.cause,
  g.dataset.step, g.dataset.impls, g.querySelector('summary .group-count').textContent,
  (g.querySelector('summary .badge.new') || {textContent: ''}).textContent,
  g.querySelector('summary .group-witness a').getAttribute('href'), g.open, g.checkVisibility()]);"""


def group_problems(driver: Any, *documents: dict[str, Any]) -> list[str]:
    """Every group of the reports is one folded row, shown, with its count of classes (and of new ones) as the
    reports have it, its smallest witness's link to a class of that group with the smallest witness."""
    want = want_groups(*documents)
    rows = driver.execute_script(GROUP_ROWS)
    problems = [] if len(rows) == len(want) else [f"{len(rows)} group rows for {len(want)} groups"]
    for ident, op, cause, step, impls, count, new, smallest, opened, shown in rows:
        key = (op, cause, step, impls)
        group = want.pop(key, None)
        if group is None:
            problems.append(f"group {ident} {key}: no such group in the reports")
            continue
        said = f"{group['count']} class{'' if group['count'] == 1 else 'es'}"
        if count != said:
            problems.append(f"group {key}: the row says {count!r}, the reports {said!r}")
        if new != (f"{group['new']} new" if group["new"] else ""):
            problems.append(f"group {key}: the row says {new!r} new, the reports {group['new']}")
        least = min(group["sizes"].values())
        if group["sizes"].get(smallest.lstrip("#")) != least:
            problems.append(f"group {key}: its witness links {smallest}, not a class of the group of the smallest "
                            f"witness (size {least})")
        if opened or not shown:
            problems.append(f"group {key}: {'open' if opened else 'not shown'} as the page opens")
    problems += [f"group {key}: no row" for key in want]
    return problems


def load(driver: Any, path: Path, fragment: str = "") -> None:
    browsers.requests(driver), browsers.console_errors(driver)  # drop what an earlier page logged
    driver.get("about:blank")
    driver.get(path.resolve().as_uri() + fragment)
    driver.find_element("id", "class-groups")


def test_3000_classes_in_30_groups_are_30_folded_rows_counted_as_the_report(driver: Any, grouped_report: Path,
                                                                           tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import Select, WebDriverWait

    document = json.loads(grouped_report.read_text(encoding="utf-8"))
    target = page.write(tmp_path / "site", page.read([grouped_report]))
    load(driver, target)
    assert len(want_groups(document)) == 30
    assert group_problems(driver, document) == []
    assert not driver.find_elements("css selector", "article.class")  # folded: no card made yet
    assert driver.find_element("id", "class-count").text == f"{CLASSES} of {CLASSES} classes shown"

    # A group opened (a click on its row) shows its classes' cards, as many as it counts.
    group = driver.find_elements("css selector", "details.group")[3]
    key = (group.get_attribute("data-op"), group.get_attribute("data-cause"), group.get_attribute("data-step"),
           group.get_attribute("data-impls"))
    group.find_element("css selector", "summary").click()
    WebDriverWait(driver, 10).until(lambda _: not group.find_elements("css selector", "div.group-body[data-lazy]"))
    cards = group.find_elements("css selector", "article.class")
    assert len(cards) == want_groups(document)[key]["count"]
    assert all(card.get_attribute("data-cause") == key[1] for card in cards)

    # A filter counts each group's classes that match, hides the groups with none, and stays in the URL.
    Select(driver.find_element("id", "class-status")).select_by_value("new")
    url = driver.current_url
    assert "#f:" in url and "class-status=new" in url, url
    new_only = {"divergences": [d for d in document["divergences"] if d["status"] == "new"]}
    counted = {tuple(row[1:5]): row[5] for row in driver.execute_script(GROUP_ROWS) if row[9]}
    for key, group_want in want_groups(document).items():
        matching = want_groups(new_only).get(key, {"count": 0})["count"]
        if matching:
            assert counted.pop(key) == f"{matching} of {group_want['count']} classes", key
    assert counted == {}, counted  # a group with no new class is hidden
    driver.get("about:blank")
    driver.get(url)  # the same view, afresh
    assert Select(driver.find_element("id", "class-status")).first_selected_option.get_attribute("value") == "new"
    assert driver.find_element("id", "class-count").text == f"{len(new_only['divergences'])} of {CLASSES} classes shown"

    # A class's anchor opens its group and its card; a group's anchor opens the group.
    last = ClassKey.of_report(document["divergences"][-1]).anchor
    load(driver, target, "#" + last)
    card = driver.find_element("id", last)
    assert card.find_element("css selector", "details").get_attribute("open") is not None
    WebDriverWait(driver, 10).until(lambda _: card.find_element("css selector", "pre.replay").is_displayed())
    anchor = driver.find_elements("css selector", "details.group")[-1].get_attribute("id")
    load(driver, target, "#" + anchor)
    assert driver.find_element("id", anchor).get_attribute("open") is not None
    assert [m for m in browsers.console_errors(driver)] == []
    assert not [url for url in browsers.requests(driver) if not url.startswith("file://")]


@pytest.mark.timing
def test_the_page_of_3000_classes_in_30_groups_opens_in_under_a_second(driver: Any, grouped_report: Path,
                                                                       tmp_path: Path) -> None:
    """Its load event ends within a second (the best of 3 loads, as harness/tools/page_bench.py measures it): a
    timing test, run alone (docs/testing.md)."""
    from harness.tools import page_bench

    target = page.write(tmp_path / "site", page.read([grouped_report]))
    figures = page_bench.measure(driver, target, 3)
    assert figures["load"]["best"] < 1.0, figures


# -- the check fails on a page planted with a wrong group -------------------------------------------------------

def _count_one_more(monkeypatch: pytest.MonkeyPatch) -> None:
    head = class_groups.group_head

    def planted(group: class_groups.Group) -> str:
        count = len(group.members)
        return re.sub(r'data-count="\d+"', f'data-count="{count + 1}"', head(group)).replace(
            f">{count} classes<", f">{count + 1} classes<")

    monkeypatch.setattr(class_groups, "group_head", planted)


def _merge_by_op_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(class_groups.GroupKey, "of", classmethod(
        lambda cls, seen: cls(seen.record.op, "", None, ())))


PLANTS: list[tuple[Callable[[pytest.MonkeyPatch], None], str]] = [
    (_count_one_more, "the row says '101 classes', the reports '100 classes'"),
    (_merge_by_op_alone, "1 group rows for 30 groups"),
]


@pytest.mark.parametrize("plant, said", PLANTS, ids=[plant.__name__.strip("_") for plant, _ in PLANTS])
def test_the_group_check_fails_on_a_planted_page(plant: Callable[[pytest.MonkeyPatch], None], said: str,
                                                 driver: Any, grouped_report: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch)
    target = page.write(tmp_path / "planted", page.read([grouped_report]))
    load(driver, target)
    found = group_problems(driver, json.loads(grouped_report.read_text(encoding="utf-8")))
    assert any(said in problem for problem in found), found
