"""A test double (suites/fakes/slow_testee.py, faithful) that takes down every fuzz or sweep worker it runs in:
every process from the KILL_FROM-th on (counted in SLOW_STATE/starts, as slow_testee counts them; the 1st is the
command's own) kills its parent at its KILL_AT-th line after ``start``, as SLOW_KILL_PARENT does for one process.
A batch sent to such a worker is lost with it each time it is sent.

Environment: SLOW_STATE (as slow_testee), KILL_FROM (default 2), KILL_AT (default 3).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import slow_testee

_counted = slow_testee.slowed


def _slowed() -> tuple[bool, int]:
    slow, number = _counted()
    if number >= int(os.environ.get("KILL_FROM") or 2):
        os.environ["SLOW_KILL_PARENT"] = f"{number}:{int(os.environ.get('KILL_AT') or 3)}"
    return slow, number


slow_testee.slowed = _slowed

if __name__ == "__main__":
    sys.exit(slow_testee.main())
