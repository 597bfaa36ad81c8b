"""fuzz's stop_after_new (``--stop-after-new``, what every plants run passes): the run ends that many seconds after its
first new class, well inside its budget."""

from __future__ import annotations

import io

from harness.classes.expected import ExpectedSet
from harness.fuzzing.fuzz import fuzz
from suites.fuzzing.test_fuzz_tools import impls_with, strip_normalize


def test_the_run_stops_soon_after_its_first_new_class() -> None:
    impls = impls_with(normalize_fact_text=strip_normalize)
    result = fuzz(impls, ExpectedSet([], []), seconds=120, seed=3, ops=["normalize_fact_text"], stream=io.StringIO(),
                  stop_after_new=0.5)
    assert result.new, "the planted whitespace bug was not found"
    first = min(record.extent.found_after for record in result.new if record.extent.found_after is not None)
    assert result.seconds < first + 30, (first, result.seconds)
