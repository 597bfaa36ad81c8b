"""Checks of one implementation beyond the fixtures (harness/checks/): check's reproduction gate, the bench."""
