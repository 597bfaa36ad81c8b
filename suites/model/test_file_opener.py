"""The one opener of the files the harness reads (harness/model/untrusted.py ``open_regular``, behind
``read_bounded``, ``read_document`` and ``read_lines``) and the writes that fail cleanly (harness/model/files.py
``atomic_write``, ``make_folder``): a named pipe, a device, a socket, a folder or a link to one is refused
without waiting on it; a file over its kind's limit is refused by its size, unread; a write the system refuses
(a full disk, a read-only file system) is status 2 naming the path, with nothing half-written."""

from __future__ import annotations

import errno
import os
import signal
import socket
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.model import files, untrusted
from harness.model.status import USAGE, UsageError


@pytest.fixture(autouse=True)
def _no_hang() -> Iterator[None]:
    """A read that waits on a pipe fails the test in 10 s instead of hanging the run."""
    def hung(signum: int, frame: object) -> None:
        pytest.fail("a read waited on a file (it should have been refused at once)")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "decl.json"
    os.mkfifo(fifo)
    for read in (lambda: untrusted.read_bounded(fifo, "declaration"),
                 lambda: untrusted.read_document(fifo, "report"),
                 lambda: untrusted.read_lines(fifo, "sweep checkpoint")):
        with pytest.raises(untrusted.BadDocument, match=r"decl\.json: not a .*: a named pipe \(FIFO\), not a "
                                                         "regular file") as refused:
            read()
        assert refused.value.status == USAGE


def test_a_link_to_a_device_is_refused_naming_the_link_and_the_device(tmp_path: Path) -> None:
    link = tmp_path / "checkpoint.jsonl"
    link.symlink_to("/dev/zero")
    with pytest.raises(untrusted.BadDocument, match=r"checkpoint\.jsonl: not a sweep checkpoint: a symbolic link "
                                                     "to /dev/zero, a character device"):
        untrusted.read_lines(link, "sweep checkpoint")
    with pytest.raises(untrusted.BadDocument, match="/dev/null: not a report: a character device"):
        untrusted.read_bounded(Path("/dev/null"), "report")


def test_a_folder_and_a_socket_are_refused(tmp_path: Path) -> None:
    with pytest.raises(untrusted.BadDocument, match="not a fixture: a folder, not a regular file"):
        untrusted.read_bounded(tmp_path, "fixture")
    short = Path(tempfile.mkdtemp(prefix="s", dir="/tmp"))  # a socket's path must be short
    try:
        where = short / "s.json"
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(where))
            with pytest.raises(untrusted.BadDocument, match=r"s\.json: not a declaration: a socket"):
                untrusted.read_bounded(where, "declaration")
    finally:
        for item in short.iterdir():
            item.unlink()
        short.rmdir()


def test_a_pipe_swapped_in_after_the_stat_is_refused_by_the_fstat(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The race: the path was a regular file when looked at and a pipe when opened; what was opened is judged."""
    fifo = tmp_path / "r.json"
    os.mkfifo(fifo)
    regular = tmp_path / "regular.json"
    regular.write_text("{}", encoding="ascii")
    real_stat = os.stat
    monkeypatch.setattr(untrusted.os, "stat", lambda path, *a, **k: real_stat(regular if Path(path) == fifo
                                                                            else path, *a, **k))
    with pytest.raises(untrusted.BadDocument, match=r"r\.json: not a report: a named pipe"):
        untrusted.read_bounded(fifo, "report")


def test_a_file_over_its_kinds_limit_is_refused_by_its_size_unread(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A sparse 300 MB file: refused by fstat (its size named), never read."""
    big = tmp_path / "report.json"
    with big.open("wb") as handle:
        handle.truncate(300 * 1000 * 1000)
    opened: list[object] = []
    real_fdopen = os.fdopen
    monkeypatch.setattr(untrusted.os, "fdopen", lambda *a, **k: opened.append(a) or real_fdopen(*a, **k))
    with pytest.raises(untrusted.BadDocument, match=r"report\.json: not a report: 300,000,000 bytes, more than the "
                                                     "limit of 268,435,456 for a report"):
        untrusted.read_bounded(big, "report")
    assert opened == []  # refused before a reader was made
    declaration = tmp_path / "d.json"
    declaration.write_bytes(b"{}" + b" " * untrusted.LIMITS["declaration"])
    with pytest.raises(untrusted.BadDocument, match="more than the limit of 1,048,576 for a declaration"):
        untrusted.read_document(declaration, "declaration")


def test_a_file_that_says_it_is_empty_is_read_only_up_to_one_byte_past_the_limit() -> None:
    """/proc files say size 0: they are read in pieces, and the read stops one byte past the limit."""
    status = Path("/proc/self/status")
    assert os.stat(status).st_size == 0
    assert b"Name:" in untrusted.read_bounded(status, "document")
    with pytest.raises(untrusted.BadDocument, match="not a run summary: more than the limit of 10 bytes"):
        untrusted.read_bounded(status, "run summary", max_bytes=10)


def test_every_kind_has_a_limit_and_any_other_kind_a_documents() -> None:
    for kind in ("declaration", "family file", "contract", "fixture", "list of expected divergences", "report",
                 "JUnit XML file", "sweep checkpoint", "run summary", "Unicode table"):
        assert 0 < untrusted.LIMITS[kind] <= untrusted.LIMITS["document"], kind
    assert untrusted.limit_of("tracecheck report") == untrusted.LIMITS["document"]


# -- writes ----------------------------------------------------------------------------------------------

def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize(("where", "code"), [("fsync", errno.ENOSPC), ("replace", errno.EROFS),
                                             ("write", errno.EDQUOT)])
def test_a_write_the_system_refuses_is_status_2_and_leaves_the_old_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, code: int) -> None:
    path = tmp_path / "results.json"
    path.write_text('{"schema": "x", "old": true}\n', encoding="ascii")

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(code, os.strerror(code))

    if where == "write":
        monkeypatch.setattr(files.os, "fdopen", lambda fd, *a, **k: _Refusing(fd, code))
    else:
        monkeypatch.setattr(files.os, where, refuse)
    with pytest.raises(files.WriteFailed) as failed:
        files.atomic_write(path, '{"schema": "x", "new": true}\n', what="fixture results",
                           replaces=None if where == "write" else ("x",))  # (the check reads with os.fdopen)
    said = str(failed.value)
    assert said.startswith(f"{path}: cannot write the fixture results: {os.strerror(code)}"), said
    assert "\n" not in said and failed.value.status == USAGE
    assert path.read_text(encoding="ascii") == '{"schema": "x", "old": true}\n'
    assert _leftovers(tmp_path) == []


class _Refusing:
    """A file object whose every write fails as a full disk or quota does."""

    def __init__(self, fd: int, code: int) -> None:
        self.fd, self.code = fd, code

    def __enter__(self) -> _Refusing:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)

    def write(self, text: object) -> None:
        raise OSError(self.code, os.strerror(self.code))


def test_no_room_for_the_temporary_file_is_status_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(files.tempfile, "mkstemp", refuse)
    with pytest.raises(files.WriteFailed, match=r"out\.json: cannot write the document .*Permission denied"):
        files.atomic_write(tmp_path / "out.json", "{}\n")


def test_an_oserror_that_is_no_refusal_of_the_place_stays_the_harness_own(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    monkeypatch.setattr(files.os, "fsync", broken)
    with pytest.raises(OSError) as failed:
        files.atomic_write(tmp_path / "out.json", "{}\n")
    assert not isinstance(failed.value, UsageError)
    assert _leftovers(tmp_path) == []


def test_a_file_where_a_folder_is_due_is_status_2(tmp_path: Path) -> None:
    blocker = tmp_path / "reports"
    blocker.write_text("x", encoding="ascii")
    with pytest.raises(files.WriteFailed, match=r"reports: a file, not a folder, where the folder of the report"):
        files.atomic_write(blocker / "r.json", "{}\n", what="report")
    with pytest.raises(files.WriteFailed, match=r"cannot make .*Not a directory \(ENOTDIR\)"):
        files.make_folder(blocker / "deeper" / "still", "a folder")
    assert blocker.read_text(encoding="ascii") == "x"
    assert stat.S_ISREG(blocker.stat().st_mode)
