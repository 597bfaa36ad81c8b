"""Nothing a testee starts outlives the run (issue 49, item 6; harness/testees/reaper.py): a testee double that
starts two sleepers in sessions of their own (suites/fakes/setsid_testee.py: one stays its child, one is a daemon)
leaves none of them running once ``check`` or ``fuzz`` has ended; where the harness cannot adopt orphans it says
so once; SIGTERM and SIGHUP interrupt a command as Ctrl-C does, and only the first one counts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from harness.model import status
from harness.testees import reaper
from suites.fake_impl import ROOT, declare

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; a Linux subreaper")

SETSID = ROOT / "suites" / "fakes" / "setsid_testee.py"


def declare_setsid(folder: Path) -> str:
    """The double's declaration in ``folder``; the marker its sleepers carry in their command lines."""
    marker = f"setsid-sleeper-{uuid.uuid4().hex}"
    declare(folder, start={"command": ["{python}", str(SETSID)], "env": {"SETSID_MARKER": marker}})
    return marker


def marked(marker: str) -> list[int]:
    """The running processes with ``marker`` in their command line."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() in (entry / "cmdline").read_bytes():
                state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
                if state != "Z":
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


def left_after(marker: str, seconds: float) -> list[int]:
    """The marked processes still running ``seconds`` later (none: at once); those are then killed."""
    until = time.monotonic() + seconds
    while marked(marker) and time.monotonic() < until:
        time.sleep(0.05)
    left = marked(marker)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


COMMANDS = {
    "check": ["check", "--impl", "fake"],
    "fuzz": ["fuzz", "--impls", "fake", "--seconds", "3", "--workers", "2"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_no_process_a_testee_starts_in_its_own_session_outlives_the_command(tmp_path: Path, command: str) -> None:
    marker = declare_setsid(tmp_path / "impls")
    output = ["--results" if command == "check" else "--report", str(tmp_path / "out.json")]
    env = dict(os.environ, PARITY_IMPLEMENTATIONS=str(tmp_path / "impls"), HYPOTHESIS_PROFILE="ci")
    done = subprocess.run([sys.executable, "-m", "harness", *COMMANDS[command], *output], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "note:" not in done.stderr, done.stderr[-2000:]
    assert not left_after(marker, 1.0), "a testee's setsid sleeper outlived the run"


def test_the_double_leaves_its_sleepers_without_a_subreaper(tmp_path: Path) -> None:
    """The double does what the test above needs it to: started under a process that is no subreaper and ends
    it by its group, as the harness did before, both sleepers outlive it."""
    marker = f"setsid-sleeper-{uuid.uuid4().hex}"
    env = dict(os.environ, SETSID_MARKER=marker)
    proc = subprocess.Popen([sys.executable, str(SETSID)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            start_new_session=True)
    try:
        until = time.monotonic() + 30
        while len(marked(marker)) < 2 and time.monotonic() < until:
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert len(left_after(marker, 0.5)) == 2


def test_where_it_cannot_adopt_orphans_it_says_so_once(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(reaper, "_prctl", lambda: "not Linux (plan9): the harness cannot adopt the orphans")
    monkeypatch.setattr(reaper, "_BECAME", {})
    monkeypatch.setattr(reaper, "_SAID", [])
    # The test worker may have become a subreaper for an earlier test (its end registered then): start clean.
    monkeypatch.setattr(status, "ENDING", [])
    assert reaper.become() is False and reaper.become() is False
    monkeypatch.setattr(reaper, "_BECAME", {})
    assert reaper.become() is False
    err = capsys.readouterr().err
    assert err.count("note: not Linux (plan9)") == 1 and "setsid" in err and err.count("\n") == 1, err
    assert reaper.end_descendants not in status.ENDING


def test_it_is_a_subreaper_on_linux(tmp_path: Path) -> None:
    """In a process of its own (the flag stays with a process): PR_GET_CHILD_SUBREAPER (37) reads it back, and
    the command's end is asked to end what is below it."""
    code = ("import ctypes, sys\n"
            "from harness.model import status\n"
            "from harness.testees import reaper\n"
            "assert reaper.become() is True and reaper.end_descendants in status.ENDING\n"
            "got = ctypes.c_int(0)\n"
            "assert ctypes.CDLL(None).prctl(37, ctypes.byref(got), 0, 0, 0) == 0\n"
            "print(got.value)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0 and done.stdout.strip() == "1", done.stdout + done.stderr


SIGNALLED = """
import os, signal, sys, time
from pathlib import Path
from harness.model.status import exit_with

def main():
    try:
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))
        time.sleep(5)
        return 0
    except KeyboardInterrupt:  # as a command does: it writes its partial report
        os.kill(os.getpid(), signal.SIGTERM)  # a second one (the process group's) must not cut the writing
        os.kill(os.getpid(), signal.SIGHUP)
        time.sleep(0.2)
        Path(sys.argv[2]).write_text("partial")
        raise

exit_with(main)
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_interrupt_as_ctrl_c_once(tmp_path: Path, name: str) -> None:
    report = tmp_path / "report.txt"
    done = subprocess.run([sys.executable, "-c", SIGNALLED, name, str(report)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == status.INTERRUPTED, (done.returncode, done.stderr[-2000:])
    assert done.stderr == f"interrupted ({name})\n"
    assert report.read_text() == "partial"


def test_a_sighup_ignored_from_outside_stays_ignored(tmp_path: Path) -> None:
    """``nohup``: the harness keeps running through a SIGHUP it was started ignoring."""
    code = ("import os, signal, time\nfrom harness.model.status import exit_with\n"
            "def main():\n    os.kill(os.getpid(), signal.SIGHUP)\n    time.sleep(0.2)\n    return 0\n"
            "exit_with(main)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=False, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_exit_with_puts_the_handlers_back(capsys: pytest.CaptureFixture[str]) -> None:
    """In-process (a test's): after exit_with, SIGTERM and SIGHUP are handled as before it."""
    before = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGHUP)}
    with pytest.raises(SystemExit):
        status.exit_with(lambda: 0)
    assert {number: signal.getsignal(number) for number in before} == before
    capsys.readouterr()
