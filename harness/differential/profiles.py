"""Hypothesis profiles.

* ``ci``: derandomized (the same examples on every run) and bounded; part of ``nox -s parity``.
* ``fuzz``: random and open-ended, to run the property suites longer (``HYPOTHESIS_PROFILE=fuzz pytest
  suites/parity/test_properties.py``); the fuzzer itself (harness/fuzzing/fuzz.py) has its own fast engine.

Neither keeps an example database: a divergence worth keeping becomes a fixture case
(``python -m harness promote``) or an expected-divergence entry, never a database row.
"""

from __future__ import annotations

import warnings

from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import HypothesisWarning

from harness.model import settings as parity_settings  # PARITY_CI_EXAMPLES: in range, or a usage error naming it

SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
        HealthCheck.large_base_example]

settings.register_profile(
    "ci", derandomize=True, max_examples=parity_settings.value("PARITY_CI_EXAMPLES"), deadline=None,
    database=None, print_blob=False, suppress_health_check=SLOW,
)
settings.register_profile(
    "fuzz", derandomize=False, max_examples=200, deadline=None, database=None, print_blob=False,
    suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink], report_multiple_bugs=False,
)

# Strategy reprs that hold long sample lists are harmless; the warning about them is noise.
warnings.filterwarnings("ignore", message="Generating overly large repr", category=HypothesisWarning)
