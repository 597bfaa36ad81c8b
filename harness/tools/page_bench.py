"""How fast the page opens with many classes: ``python -m harness.tools.page_bench [--classes N ...]``.

For each size asked for (default 300 and 3,000), a divergence report of that many classes is generated (half
new, half covered; each its own class: another detail, another witness, the outputs of a real op), the page
is made from it (``harness/cli/page.py``) and opened in the headless Chromium of the page's tests
(``harness/tools/browser.py``), each size ``--repeat`` times. Printed per size: the page's bytes, its
elements, the time to its first contentful paint and to the end of its load event (the best of the repeats,
and the median), as measured by the browser itself (``performance``). A figure, never a timed test: a number
to compare side by side before and after a change, on the same machine in one run. Writes only into a
temporary folder (or ``--out``); status 3 when there is no headless browser.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from harness.model.status import AGREE, UNAVAILABLE

CAUSES = ("whitespace_definition", "case_mapping", "normalization", "line_breaks")
PAINT = """
const paint = performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint');
const nav = performance.getEntriesByType('navigation')[0];
return [paint ? paint.startTime : null, nav ? nav.loadEventEnd : null, document.getElementsByTagName('*').length];
"""


def report(classes: int) -> dict[str, Any]:
    """A divergence report of ``classes`` classes, each of its own identity (its detail), with a witness and
    outputs of normalize_fact_text and the step traces' entries where they part."""
    from harness.classes import report as divergence_report
    from harness.classes.record import EXPECTED, ClassRecord, Coverage
    from harness.differential.explain import Found
    from reference import normalize_fact_text

    records = []
    for number in range(classes):
        text = f"Fact {number}\u001c"
        oracle = normalize_fact_text(text)
        found = Found(CAUSES[number % len(CAUSES)], f"generated class {number} (harness/tools/page_bench.py)",
                      f"bench-{number}", "norm.edges", "generated", chars=("\u001c",),
                      trace_at={"reference": {"index": 3, "step": "norm.edges", "value": oracle},
                                "other": {"index": 3, "step": "norm.edges", "value": oracle.strip()}})
        coverage = Coverage() if number % 2 == 0 else Coverage(EXPECTED, (f"other/generated-{number}",))
        records.append(ClassRecord.of_sighting("normalize_fact_text", {"text": text},
                                               {"reference": {"ok": oracle}, "other": {"ok": oracle.strip()}},
                                               ["other"], found, coverage=coverage))
    versions = {"reference": {"normalization": "15.1.0"}, "other": {"normalization": "15.1.0"}}
    return divergence_report.document("fuzz", versions, records, classes * 10, 1.0, [], seed=1)


def measure(driver: Any, page: Path, repeat: int) -> dict[str, Any]:
    paints, loads, elements = [], [], 0
    for _ in range(repeat):
        driver.get("about:blank")
        driver.get(page.resolve().as_uri())
        paint, load, elements = driver.execute_script(PAINT)
        if paint is not None:
            paints.append(paint / 1000)
        if load is not None:
            loads.append(load / 1000)
    return {"bytes": page.stat().st_size, "elements": elements,
            "firstPaint": {"best": min(paints, default=None), "median": statistics.median(paints) if paints else None},
            "load": {"best": min(loads, default=None), "median": statistics.median(loads) if loads else None}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.page_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", type=int, action="append", help="classes in the report (repeatable; "
                        "default 300 and 3000)")
    parser.add_argument("--repeat", type=int, default=3, help="loads per size (default 3)")
    parser.add_argument("--out", type=Path, help="a folder for the reports and pages (default: a temporary one)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    sizes = args.classes or [300, 3000]
    if min(sizes) < 1 or args.repeat < 1:
        parser.error("--classes and --repeat take a number of at least 1")

    from harness.cli import page as page_module
    from harness.model.files import write_document
    from harness.tools import browser

    found = browser.find()
    if found is None:
        print(f"page_bench: no headless browser: missing {', '.join(browser.missing())}; {browser.remedy()}",
              file=sys.stderr)
        return UNAVAILABLE
    figures = []
    with tempfile.TemporaryDirectory(prefix="page-bench-") as temporary:
        folder = args.out or Path(temporary)
        driver = browser.open_driver(found)
        try:
            for size in sizes:
                path = folder / f"report-{size}.json"
                write_document(path, report(size), replaces=("divergence-report-v2",), what="divergence report")
                site = page_module.write(folder / f"site-{size}", page_module.read([path]))
                figures.append({"classes": size, **measure(driver, site, args.repeat)})
        finally:
            driver.quit()
    if args.json:
        print(json.dumps(figures, indent=2))
        return AGREE
    for row in figures:
        paint, load = row["firstPaint"], row["load"]
        print(f"{row['classes']:>6,} classes: {row['bytes'] / 1e6:6.2f} MB, {row['elements']:>8,} elements; "
              f"first paint {_seconds(paint['best'])} (median {_seconds(paint['median'])}), "
              f"load {_seconds(load['best'])} (median {_seconds(load['median'])})")
    return AGREE


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


if __name__ == "__main__":
    sys.exit(main())
