"""Searching for divergences (harness/fuzzing/): the sweep, the fuzzer, checkpoints, pools, interruption."""
