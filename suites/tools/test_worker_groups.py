"""The worker groups of suites/conftest.py take under ``-n 2 --dist loadgroup`` (nox -s tests): the tests sharing one
of the suites' module or session fixtures run on one worker, so that the fixture is made once per session run
(test_wheel.py's built and installed wheel: two workers built it twice, about 218 s each on a busy machine). The
conftest is loaded into a pytest run of a small module in a temporary folder: six tests share a module fixture
that writes a line each time it is made, beside tests of no group for the scheduler to spread."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = '''
import os
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def made_once() -> str:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "none")
    with Path(os.environ["MADE_LOG"]).open("a", encoding="utf-8") as log:
        log.write(worker + "\\n")
    return worker


@pytest.mark.parametrize("n", range(6))
def test_shares_the_fixture(made_once: str, n: int) -> None:
    assert made_once == os.environ.get("PYTEST_XDIST_WORKER", "none")


@pytest.mark.parametrize("n", range(4))
def test_of_no_group(n: int) -> None:
    pass
'''


def test_a_module_fixture_is_made_once_under_loadgroup(tmp_path: Path) -> None:
    # the module under a folder named suites/ (the conftest groups the users of the suites' own fixtures)
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / "test_probe.py").write_text(PROBE, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    log = tmp_path / "made.log"
    env = {**os.environ, "MADE_LOG": str(log), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "suites.conftest",
                           "--import-mode=importlib", "-n", "2", "--dist", "loadgroup", "-v", "suites/test_probe.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert "10 passed" in done.stdout, done.stdout[-3000:] + done.stderr[-3000:]
    made = log.read_text(encoding="utf-8").split()
    assert len(made) == 1, (made, done.stdout[-3000:])  # one worker made it, once
    grouped = [line for line in done.stdout.splitlines() if "PASSED" in line and "test_shares_the_fixture" in line]
    assert len(grouped) == 6 and all("@module:suites/test_probe.py" in line for line in grouped), grouped
