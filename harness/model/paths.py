"""Where the project's data lives: one place for every path the harness reads or writes."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the project root
SCHEMAS = ROOT / "schemas"  # every JSON Schema of the project
DATA = ROOT / "data"  # data tables the harness reads (Unicode ages, NormalizationTest.txt)
FIXTURES = ROOT / "fixtures"  # fixture files and their release pins
IMPLEMENTATIONS = ROOT / "implementations"  # one declaration per implementation
EXPECTED = ROOT / "expected"  # expected-divergence lists
REPORTS = ROOT / "reports"  # what runs write (gitignored)
