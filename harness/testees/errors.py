"""The harness's own failures, shared by every layer that starts or calls implementations."""

from __future__ import annotations

# Response codes of the harness (beside the contract's): see harness/testees/impls.py.
HARNESS_CODES = ("unexpected_exception", "crash", "timeout", "unavailable", "bad_request")


class ImplementationUnavailable(Exception):
    """The implementation cannot be used here; the message says how to make it available."""
