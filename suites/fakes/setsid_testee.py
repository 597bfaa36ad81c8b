"""A testee double that leaves processes behind (the reaper's tests, suites/testees/test_reaper.py): before it
serves the protocol (as suites/fakes/fake_testee.py, which it becomes), it starts two sleepers in sessions of
their own, out of its process group, each with SETSID_MARKER in its command line:

* one stays its child (``setsid`` in a forked child): the group kill misses it, and it is re-parented when the
  testee dies;
* one is a daemon (forked twice, the middle one exits at once): re-parented while the testee still runs.

Without a subreaper above it, both outlive the run (init adopts them)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

SLEEPER = "import sys, time; time.sleep(300)"


def _sleeper(marker: str, daemon: bool) -> None:
    pid = os.fork()
    if pid:
        if daemon:
            os.waitpid(pid, 0)  # the middle one exits at once
        return
    os.setsid()
    if daemon and os.fork():
        os._exit(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # holds none of the testee's pipes: only the reaper can end it
        os.dup2(devnull, fd)
    os.execv(sys.executable, [sys.executable, "-c", SLEEPER, marker])


def main() -> None:
    marker = os.environ.get("SETSID_MARKER", "setsid-testee-sleeper")
    _sleeper(marker, daemon=False)
    _sleeper(marker, daemon=True)
    fake = Path(__file__).with_name("fake_testee.py")
    os.execv(sys.executable, [sys.executable, str(fake)])


if __name__ == "__main__":
    main()
