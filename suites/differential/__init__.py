"""Tests of harness/differential/: the cause classifier on black boxes and traces (counterfactual rules, the
length rule, outcome shapes)."""
