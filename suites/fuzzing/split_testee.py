"""A command testee for the sweep's speed and class-splitting tests (suites/fuzzing/test_sweep_split.py): the
reference's functions, with normalize_fact_text broken on purpose as SPLIT_BUG says.

    SPLIT_BUG=thirds  every text holding a code point whose number is not a multiple of 3 gets a "!" appended:
                      a sweep of it disagrees on two thirds of the code points (the speed measure)
    SPLIT_BUG=three   three differences at once, each on its own code points:
                      (a) a length cap counting UTF-8 bytes: a result is cut to its first 3 bytes (at a character's
                          end), so a character of 4 bytes alone is gone;
                      (b) nonspacing marks (Mn) dropped from the result;
                      (c) case mapping of Unicode 16.0.0 (it says so in its start answer): letters cased since
                          the reference's version are lowercased
    SPLIT_BUG=        a faithful copy of the reference

    SPLIT_ALONE_DELAY=seconds: each request line holding one call (not a batch of more) waits that long before its
    answer: a sweep's chunks come in batches and stay fast, while its classifying (members sent alone) is slowed
    down, so that a test can stop it there (suites/fuzzing/test_sweep_stop.py) however fast the runner.

It joins through a declaration alone (``declare`` below), as suites/fakes/fake_testee.py does.
"""

from __future__ import annotations

import json
import os
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

BUG = os.environ.get("SPLIT_BUG", "")
ALONE_DELAY = float(os.environ.get("SPLIT_ALONE_DELAY") or 0)
NEWER = "16.0.0"


def _thirds(text: Any) -> Any:
    import reference

    result = reference.normalize_fact_text(text)
    if isinstance(text, str) and any(ord(ch) % 3 for ch in text):
        return result + "!"
    return result


def _three(text: Any) -> Any:
    import reference
    from harness.model import unicode_tables

    result = reference.normalize_fact_text(text)
    newer, older = unicode_tables.table(NEWER), unicode_tables.table(json.loads(reference.unicode_versions())
                                                                      ["case_mapping"])
    out = []
    for ch in result:
        cp = ord(ch)
        if cp in newer.lower and cp not in older.lower:  # (c) cased since the reference's version
            out.extend(map(chr, newer.lower[cp]))
        elif 0xD800 <= cp <= 0xDFFF or unicodedata.category(ch) != "Mn":  # (b) marks dropped
            out.append(ch)
    kept, size = [], 0
    for ch in out:  # (a) at most 3 UTF-8 bytes
        size += len(ch.encode("utf-8", "surrogatepass"))
        if size > 3:
            break
        kept.append(ch)
    return "".join(kept)


def main() -> int:
    import reference
    from harness.model.registry import Op
    from harness.testees import protocol
    from harness.testees.command import PROTOCOL_VERSION
    from harness.testees.impls import InProcess

    unicode = json.loads(reference.unicode_versions())
    if BUG == "three":
        unicode["case_mapping"] = NEWER
    broken = {"thirds": _thirds, "three": _three}.get(BUG)

    def resolve(op: Op) -> Callable[..., Any]:
        if op.name == "normalize_fact_text" and broken is not None:
            return broken
        if op.name == "unicode_versions":
            return lambda: json.dumps(unicode)
        return getattr(reference, op.name)

    description = {"protocol": PROTOCOL_VERSION, "name": "split-testee", "version": BUG or "faithful",
                   "language": "Python (a test double)", "unicode": unicode, "contracts": ["v1"]}
    return protocol.serve(InProcess("split", resolve, description), _delayed(sys.stdin), sys.stdout, description)


def _delayed(lines: Any) -> Any:
    """The request lines, each holding a single call held back ALONE_DELAY seconds."""
    import time

    for line in lines:
        if ALONE_DELAY:
            try:
                request = json.loads(line)
            except ValueError:
                request = None
            calls = request.get("batch", [request]) if isinstance(request, dict) else []
            if isinstance(calls, list) and len(calls) == 1 and isinstance(calls[0], dict) \
                    and calls[0].get("op") == "normalize_fact_text":
                time.sleep(ALONE_DELAY)
        yield line


def declare(folder: Path, bug: str, name: str = "split", alone_delay: float = 0) -> Path:
    """Its declaration in ``folder`` (for PARITY_IMPLEMENTATIONS); ``alone_delay``: SPLIT_ALONE_DELAY."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps({
        "schema": "implementation-v1", "name": name, "description": "a test double of the sweep's tests",
        "language": "Python", "oracle": False, "contracts": ["v1"],
        "start": {"command": ["{python}", str(Path(__file__).resolve())],
                  "env": {"SPLIT_BUG": bug, "SPLIT_ALONE_DELAY": str(alone_delay)}},
        "build": [], "expected": None, "deadlines": {"startup": 30, "request": 10},
        "hint": "suites/fuzzing/split_testee.py is part of the test suite"}, indent=2), encoding="utf-8")
    return path


if __name__ == "__main__":
    sys.exit(main())
