"""Contract error type.

Every failure the contract names is raised as :class:`ContractError`, a ``ValueError`` whose message
starts with the error code and a colon (``"invalid_cap: ..."``), as the contract requires (docs/contract.md
§3), and which names the step that failed (``step``; not part of the message, never compared).
"""

from __future__ import annotations

CODES = (
    "invalid_text",
    "empty_text",
    "invalid_json",
    "invalid_shape",
    "invalid_embedding",
    "invalid_threshold",
    "invalid_mode",
    "invalid_force",
    "invalid_cap",
)


class ContractError(ValueError):
    """A contract error: ``code`` is one of :data:`CODES`, the message is ``"<code>: <detail>"``."""

    def __init__(self, code: str, detail: str, step: str | None = None) -> None:
        if code not in CODES:
            raise AssertionError(f"unknown contract error code {code!r}")
        self.code = code
        self.detail = detail
        # The id of the step that failed (docs/contract.md, harness/model/registry.py): "gate.mode", ...
        self.step = step
        super().__init__(f"{code}: {detail}")


def contract_error(exc: BaseException) -> tuple[str, str | None] | None:
    """(code, step) of a contract error: a ContractError, or another op family's ValueError or TypeError carrying
    a str ``code`` (and a str ``step``: None without one); None for any other exception (a bug). The step traces
    and the fixture generator read a reference's errors through it (docs/implementers.md)."""
    if isinstance(exc, ContractError):
        return exc.code, exc.step
    code, step = getattr(exc, "code", None), getattr(exc, "step", None)
    if isinstance(exc, (ValueError, TypeError)) and not isinstance(exc, UnicodeError) and isinstance(code, str):
        return code, step if isinstance(step, str) else None
    return None
