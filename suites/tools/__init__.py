"""Maintainer tools and the project's own rules (harness/tools/): mutants, the parity plan, the workflow, the
import layers, the speed gate; and the test sets themselves (suites/slow_set.py)."""
