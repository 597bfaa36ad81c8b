"""Checks on host (Python) values that are not JSON texts: threshold, mode, force, cap.

Booleans are never numbers. ``None`` is a wrong value, never "use the default".
"""

from __future__ import annotations

import math

from .errors import ContractError

CAP_MAX = 2**32 - 1
MODES = ("auto", "explicit", "mirror", "reconcile")


def require_threshold(threshold: object) -> float:
    """A number in [0, 1], compared later as binary64."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ContractError("invalid_threshold", f"threshold must be a number, got {type(threshold).__name__}",
                            "gate.threshold")
    if isinstance(threshold, int):
        # Compare the integer exactly; float() of a huge int would raise OverflowError.
        if threshold not in (0, 1):
            raise ContractError("invalid_threshold", f"threshold must be in [0, 1], got {threshold}", "gate.threshold")
        return float(threshold)
    if not 0.0 <= threshold <= 1.0:  # also rejects NaN
        raise ContractError("invalid_threshold", f"threshold must be in [0, 1], got {threshold!r}", "gate.threshold")
    return threshold


def require_mode(mode: object) -> str:
    if not isinstance(mode, str) or mode not in MODES:
        shown = repr(mode) if isinstance(mode, str) else type(mode).__name__
        raise ContractError("invalid_mode", f"mode must be one of {', '.join(MODES)}, got {shown}", "gate.mode")
    return mode


def require_force(force: object) -> bool:
    if not isinstance(force, bool):
        raise ContractError("invalid_force", f"force must be a boolean, got {type(force).__name__}", "gate.force")
    return force


def require_cap(cap: object) -> int:
    """An integral number in [0, 2**32 - 1]: 30 and 30.0 are fine, 30.5, -1, NaN and True are not."""
    if isinstance(cap, bool) or not isinstance(cap, (int, float)):
        raise ContractError("invalid_cap", f"cap must be a number, got {type(cap).__name__}", "ctx.cap")
    if isinstance(cap, float):
        if not math.isfinite(cap) or cap != math.floor(cap):
            raise ContractError("invalid_cap", f"cap must be an integer, got {cap!r}", "ctx.cap")
        cap_int = int(cap)  # -0.0 becomes 0
    else:
        cap_int = cap
    if not 0 <= cap_int <= CAP_MAX:
        raise ContractError("invalid_cap", f"cap must be in [0, {CAP_MAX}], got {cap!r}", "ctx.cap")
    return cap_int
