"""Files a user points the command line at, or drops into a folder it scans, that are no regular files or are
too big: each ends at once with status 2 and one ``error:`` line naming the file and what it is, never a hang,
never a read without limit (the memory ones run under a 512 MiB address-space limit), and the page's writes
fail cleanly (harness/model/untrusted.py ``open_regular``, harness/model/files.py ``WriteFailed``)."""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main as cli
from harness.model.status import AGREE, USAGE
from suites.fake_impl import declare

ROOT = Path(__file__).resolve().parents[2]
SECONDS = 30  # each command is refused in about a second; a hang fails the test here
ADDRESS_SPACE = 512 << 20


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def harness(*argv: str, capped: bool = False, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *argv], cwd=ROOT, env={**os.environ, **env},
                          capture_output=True, text=True, timeout=SECONDS, check=False,
                          preexec_fn=_capped if capped else None)


def _refused(done: subprocess.CompletedProcess[str], *said: str) -> None:
    assert done.returncode == USAGE, done.stdout[-1500:] + done.stderr[-1500:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: "), done.stderr[-1500:]
    for words in said:
        assert words in last, last


def test_report_show_refuses_a_pipe_a_device_and_a_huge_file_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "report.json"
    os.mkfifo(fifo)
    _refused(harness("report", "show", str(fifo)), f"{fifo}: not a report: a named pipe (FIFO)")
    _refused(harness("report", "show", "/dev/zero", capped=True), "/dev/zero: not a report: a character device")
    sparse = tmp_path / "big.json"
    with sparse.open("wb") as handle:  # report-shaped, 300 MB, nothing on disk
        handle.write(b'{"schema": "divergence-report-v2", "pad": "')
        handle.truncate(300 << 20)
    _refused(harness("report", "show", str(sparse), capped=True),
             f"{sparse}: not a report: 314,572,800 bytes, more than the limit")


def test_a_pipe_among_the_declarations_stops_only_what_asks_for_it(tmp_path: Path) -> None:
    folder = tmp_path / "impls"
    folder.mkdir()
    os.mkfifo(folder / "piped.json")
    listed = harness("impls", PARITY_IMPLEMENTATIONS=str(folder))
    assert listed.returncode == AGREE, listed.stderr[-1500:]
    assert "piped: broken declaration: " in listed.stdout and "a named pipe (FIFO)" in listed.stdout
    checked = harness("check", "--impl", "reference", "-q", "--results", str(tmp_path / "check.json"),
                      PARITY_IMPLEMENTATIONS=str(folder))
    assert checked.returncode == AGREE, checked.stderr[-1500:]
    _refused(harness("check", "--impl", "piped", PARITY_IMPLEMENTATIONS=str(folder)),
             "piped.json: cannot read the declaration: a named pipe (FIFO)")


def test_a_pipe_among_the_family_files_is_status_2(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "piped.json")
    _refused(harness("impls", PARITY_FAMILIES=str(tmp_path)), "piped.json", "a named pipe (FIFO)")


def test_a_sweep_checkpoint_that_is_a_pipe_or_a_link_to_a_device_is_status_2(tmp_path: Path) -> None:
    declare(tmp_path / "impls")
    fifo, zero = tmp_path / "fifo.jsonl", tmp_path / "zero.jsonl"
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    sweep = ("sweep", "--impls", "fake", "--templates", "alone", "--range", "U+0041", "--workers", "1")
    env = {"PARITY_IMPLEMENTATIONS": str(tmp_path / "impls")}
    _refused(harness(*sweep, "--checkpoint", str(fifo), **env), "not a sweep checkpoint: a named pipe (FIFO)")
    _refused(harness(*sweep, "--checkpoint", str(zero), capped=True, **env),
             "not a sweep checkpoint: a symbolic link to /dev/zero, a character device")


def test_an_expected_list_that_is_a_pipe_is_status_2(tmp_path: Path) -> None:
    declare(tmp_path, expected="list.json")
    os.mkfifo(tmp_path / "list.json")
    _refused(harness("expected", "check", "--impls", "fake", PARITY_IMPLEMENTATIONS=str(tmp_path)),
             "list.json: not a list of expected divergences: a named pipe (FIFO)")


@pytest.fixture
def results(tmp_path: Path) -> Path:
    path = tmp_path / "check.json"
    assert cli.main(["check", "--impl", "reference", "--results", str(path), "-q"]) == AGREE
    return path


def test_report_html_into_a_file_is_status_2_and_leaves_it(results: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    existing = tmp_path / "notes.txt"
    existing.write_text("mine\n", encoding="ascii")
    capsys.readouterr()
    assert cli.main(["report", "html", str(results), "-o", str(existing)]) == USAGE
    assert f"error: {existing}: a file, not a folder" in capsys.readouterr().err
    assert cli.main(["report", "html", str(results), "-o", str(existing / "site")]) == USAGE
    assert "Not a directory" in capsys.readouterr().err
    assert existing.read_text(encoding="ascii") == "mine\n"


def test_a_full_disk_while_writing_the_page_is_status_2_and_keeps_the_old_page(
        results: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "site"
    assert cli.main(["report", "html", str(results), "-o", str(site)]) == AGREE
    before = (site / "index.html").read_bytes()

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    capsys.readouterr()
    assert cli.main(["report", "html", str(results), "-o", str(site)]) == USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"error: {site / 'index.html'}: cannot write the document: No space left on device"), err
    assert "Traceback" not in err
    assert (site / "index.html").read_bytes() == before
    assert sorted(p.name for p in site.iterdir()) == ["index.html"]


def test_results_into_dev_full_are_refused_before_writing(tmp_path: Path) -> None:
    _refused(harness("check", "--impl", "reference", "-q", "--results", "/dev/full"), "/dev/full: not a file")
