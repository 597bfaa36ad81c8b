"""Check a reports folder after a CI run: every file in it names the nox session that wrote it and the run
(a JSON report: its ``run`` envelope, valid against the schema its ``schema`` field names; a JUnit XML
file: its ``session`` and ``commit`` testsuite properties; the conformance page of ``nox -s report``: its own
run envelope). A file nothing names is a problem: reports/
holds only what the user's commands wrote. Exit 0 when every file passes, 1 naming each one that does not.

    python -m harness.tools.reports_check reports
"""

from __future__ import annotations

import argparse
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from harness.model import untrusted
from harness.model.schemas import problems

CHECKPOINTS = "sweep"  # reports/sweep/: a sweep's resume files (JSON lines), state rather than reports


def check_file(path: Path, folder: Path) -> list[str]:
    if path.suffix == ".json":
        try:
            document = untrusted.read_document(path, "report")
        except untrusted.BadDocument as exc:
            return [str(exc)]
        found = problems(document)
        if found:
            return [f"{path}: {problem}" for problem in found[:3]]
        run = document.get("run") or {}
        if not run.get("session"):
            return [f"{path}: its run names no nox session (written outside nox: {run.get('command')})"]
        return []
    if path.suffix == ".xml":
        try:
            root = ElementTree.parse(path).getroot()
        except (OSError, ElementTree.ParseError) as exc:
            return [f"{path}: not XML: {exc}"]
        names = {p.get("name"): p.get("value") for p in root.iter("property")}
        if names.get("session") in (None, "", "none") or not names.get("commit"):
            return [f"{path}: the JUnit XML names no session and commit (testsuite properties)"]
        return []
    if path.suffix == ".jsonl" and path.relative_to(folder).parts[0] == CHECKPOINTS:
        return []
    if path.suffix == ".html":
        return _check_page(path)
    return [f"{path}: not a report this project writes (a .json report, a JUnit .xml or the page's .html)"]


def _check_page(path: Path) -> list[str]:
    """The conformance page (harness/cli/page.py, nox -s report): its generator meta, and its own run envelope
    (the ``page-run`` JSON), valid and naming its session."""
    from harness.cli.page import GENERATOR, is_own_page

    text = path.read_text(encoding="utf-8", errors="replace")
    if not is_own_page(text):
        return [f"{path}: not a page this project writes (no generator meta '{GENERATOR}')"]
    found = re.search(r"<script type='application/json' id='page-run'>(.*?)</script>", text, re.S)
    try:
        run = untrusted.loads(found.group(1), want=dict) if found else None
    except ValueError:
        run = None
    if not isinstance(run, dict) or problems(run):
        return [f"{path}: its run envelope (the page-run JSON) is missing or not valid"]
    if not run.get("session"):
        return [f"{path}: its run names no nox session (written outside nox: {run.get('command')})"]
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.reports_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, nargs="?", default=Path("reports"))
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        parser.error(f"{args.folder}: no such folder")
    files = sorted(p for p in args.folder.rglob("*") if p.is_file())
    found = [problem for path in files for problem in check_file(path, args.folder)]
    for problem in found:
        print(problem)
    print(f"reports check: {len(files)} file(s) in {args.folder}, "
          + (f"{len(found)} problem(s)" if found else "each names its session and run"))
    return 1 if found else 0


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
