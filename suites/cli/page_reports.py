"""Reports for the page's tests (suites/cli/test_page.py, suites/cli/test_page_browser.py), made by the real command
line on a fake implementation with a bug planted in one of the reference's steps (suites/fakes/fake_testee.py,
FAKE_BUG=edges: str.strip() at norm.edges, so U+001C-U+001F go at the edges), which serves step traces:

- ``check-reference.json``, ``check-fake.json``: fixture results; the fake fails the cases that pin those
  characters at the edges (a planted failing case), and its host (declared utf-16) skips the cases it cannot
  hold (skipped cases);
- ``baseline/check-fake.json``: the same fake without its bug, every case passing (the baseline);
- ``diff-new.json``: a decide_write class no expected entry covers (a planted class, new), whose outputs
  differ in one field and agree in the others;
- ``diff-expected.json``: the normalize_fact_text class after ``expected update`` wrote its entry into the
  fake's list (``impls/lists/fake.json``), so the entry covers it.

Nothing here is written by hand: every expectation a test checks is read back from these documents.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from suites.fake_impl import declare

ROOT = Path(__file__).resolve().parents[2]
WITNESS = "A\\x1c"  # U+001C at an edge: whitespace to str.strip(), not to the contract
GATE_ARGS = ("--arg", 'text="A\\u001c"', "--arg", "embedding_json=\"null\"", "--arg",
             'candidates_json="[{\\"id\\":\\"a\\",\\"text\\":\\"a\\"},{\\"id\\":\\"b\\",\\"text\\":\\"a\\\\u001c\\"}]"')
# Candidate b holds the witness's U+001C: the oracle matches b, the fake (which strips it) a; both skip it as an
# exact duplicate, so the outputs differ in one field (match) and agree in the others.


@dataclass(frozen=True)
class Made:
    folder: Path
    impls: Path  # PARITY_IMPLEMENTATIONS for the fake with its bug
    reports: dict[str, Path]  # name -> path
    baseline: Path

    def document(self, name: str) -> dict[str, Any]:
        return json.loads(self.reports[name].read_text(encoding="utf-8"))

    @property
    def env(self) -> dict[str, str]:
        return dict(os.environ, PARITY_IMPLEMENTATIONS=str(self.impls))


def _run(impls: Path, *argv: str, statuses: tuple[int, ...] = (0, 1)) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PARITY_IMPLEMENTATIONS=str(impls))
    done = subprocess.run([sys.executable, "-m", "harness", *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    if done.returncode not in statuses:
        raise AssertionError(f"harness {' '.join(argv)}: status {done.returncode}\n{done.stdout[-3000:]}"
                             f"\n{done.stderr[-3000:]}")
    return done


def make(folder: Path) -> Made:
    impls, faithful = folder / "impls", folder / "impls-faithful"
    expected = impls / "lists" / "fake.json"  # inside the declaration's folder (a declared path may not leave it)
    # A JavaScript-like host (utf-16 strings): the cases whose arguments hold a high lone surrogate before a
    # low one cannot reach it and are skipped, so the reports hold skipped cases as well.
    declare(impls, bug="edges", expected=str(expected), host_strings="utf-16")
    declare(faithful, host_strings="utf-16")
    reports = {name: folder / f"{name}.json" for name in ("check-reference", "check-fake", "diff-new",
                                                           "diff-expected")}
    baseline = folder / "baseline" / "check-fake.json"
    baseline.parent.mkdir(parents=True, exist_ok=True)
    _run(impls, "check", "--impl", "reference", "--results", str(reports["check-reference"]), statuses=(0,))
    _run(impls, "check", "--impl", "fake", "--results", str(reports["check-fake"]), statuses=(1,))
    _run(faithful, "check", "--impl", "fake", "--results", str(baseline), statuses=(0,))
    first = folder / "diff-first.json"
    first.write_text(_run(impls, "diff", "normalize_fact_text", WITNESS, "--impls", "fake", "--json",
                          statuses=(1,)).stdout, encoding="utf-8")
    _run(impls, "expected", "update", "--report", str(first), "--impls", "fake", statuses=(0,))
    reports["diff-expected"].write_text(_run(impls, "diff", "normalize_fact_text", WITNESS, "--impls", "fake",
                                             "--json", statuses=(0,)).stdout, encoding="utf-8")
    if not any(row["state"] == "skip" for row in json.loads(reports["check-fake"].read_text())["results"]):
        raise AssertionError("the fake's fixture results hold no skipped case: the page's tests need one")
    reports["diff-new"].write_text(_run(impls, "diff", "decide_write", *GATE_ARGS, "--impls", "fake", "--json",
                                        statuses=(1,)).stdout, encoding="utf-8")
    return Made(folder, impls, reports, baseline)


def render(made: Made, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``report html`` of every report made, with the baseline, into ``out``."""
    return _run(made.impls, "report", "html", *map(str, made.reports.values()), "--baseline", str(made.baseline),
                "-o", str(out), *extra)
