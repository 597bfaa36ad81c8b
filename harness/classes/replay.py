"""The command that runs a class's witness again, written once: a sweep stores it in its report (on the
implementations it swept); the report's readers (the terminal's details, the page) show the stored one, else
make it from the witness (on every implementation)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable
from typing import Any

from harness.classes.record import ClassRecord


def replay_command(op: str, args: dict[str, Any], impls: Iterable[str] = ()) -> str:
    """``python -m harness diff`` of ``op`` on ``args`` (host-value encoded, exactly as a report holds them),
    on ``impls`` when given (else every implementation), each word quoted for a POSIX shell."""
    names = list(impls)
    parts = ["python", "-m", "harness", "diff", op, *(["--impls", ",".join(names)] if names else [])]
    for name, value in args.items():
        parts += ["--arg", f"{name}={json.dumps(value, ensure_ascii=True)}"]
    return " ".join(shlex.quote(part) for part in parts)


def replay_of(record: ClassRecord) -> str:
    """The command that runs a class's witness again: the one its report stores (a sweep's), else on every
    implementation."""
    return record.witness.replay or replay_command(record.op, record.witness.args)
