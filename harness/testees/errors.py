"""The harness's own failures, shared by every layer that starts or calls implementations."""

from __future__ import annotations

from typing import Any

# Response codes of the harness (beside the contract's): see harness/testees/impls.py.
HARNESS_CODES = ("unexpected_exception", "crash", "timeout", "unavailable", "bad_request", "protocol_fault", "cut")

# Codes that say the implementation gave no answer at all: faulted twice, cut by the run's budget, taken
# out of the run. Such a response is never compared (it is a finding, or work the budget cut).
NO_ANSWER = ("protocol_fault", "cut", "unavailable")


def answered(response: dict[str, Any] | None) -> bool:
    """Whether a response is an answer that can be compared (not None, not a no-answer code)."""
    return response is not None and not ("error" in response and response["error"].get("code") in NO_ANSWER)


class ImplementationUnavailable(Exception):
    """The implementation cannot be used here; the message says how to make it available."""


class UnknownImplementation(ImplementationUnavailable):
    """No implementation of that name is declared: a usage error, not one that could not start."""
