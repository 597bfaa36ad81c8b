"""The parity suites: what `nox -s parity` runs, this folder whole, on every implementation it builds (named by
the folder, not by a list of files). The harness's own tests are the rest of suites/, by the part of the
harness they test.

- test_fixtures.py: every fixture case on every implementation
- test_surface.py: exports, parameters and defaults match the registry
- test_unicode_conformance.py: NFC against NormalizationTest.txt of each implementation's version
- test_differential.py: the ci profile, every implementation agrees (expected/<impl>.json aside)
- test_properties.py: the ci profile's invariants: idempotence, NFC output, dedup and write-gate
- test_step_traces.py: every fixture case traced as the oracle traces it, ending in the op's output
- test_testee_health.py: last (suites/conftest.py orders it so): no finding about any testee this session,
  the protocol selftest
"""
