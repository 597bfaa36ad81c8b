"""Writing the project's files: the one atomic write (fixtures, reports, expected lists, pins).

A write that replaces a document names the kinds it may replace (``replaces``): the file already there
must be one of them (a JSON object whose ``"schema"`` is one of those values), or the write is refused with
``NotADocument`` (status 2, the file named) and the file is left as it was. So a path that points by mistake
at a README, a source file or another kind of document is never overwritten.

A write the system refuses (a full disk, a quota, a read-only file system, no permission, a file where a
folder is due: ``WRITE_ERRORS``) is ``WriteFailed`` (status 2) naming the path and the system's reason; the
temporary file is removed and the file already there is left as it was.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import stat
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

from harness.model import untrusted
from harness.model.status import UsageError


class NotADocument(UsageError):
    """A write refused: the file it would replace is not a document of the kind being written (status 2)."""


class WriteFailed(UsageError):
    """A write the system refused (``WRITE_ERRORS``): the path and the reason named, nothing half-written (status 2)."""


# What the system says when a write cannot be done where it was asked (the place, not the harness, is at
# fault): any other OSError is the harness's own failure and stays one.
WRITE_ERRORS = frozenset(getattr(errno, name) for name in (
    "ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM", "ENOTDIR", "EISDIR", "EEXIST", "ENOENT", "ENAMETOOLONG",
    "EFBIG", "ELOOP", "EMLINK", "ETXTBSY", "EIO") if hasattr(errno, name))


def _failed(path: Path, exc: OSError, doing: str) -> WriteFailed:
    code = errno.errorcode.get(exc.errno or 0, exc.errno)
    return WriteFailed(f"{path}: cannot {doing}: {exc.strerror or exc} ({code}); nothing was written there")


def make_folder(path: Path, what: str = "folder") -> None:
    """``path`` made a folder (with its parents) if it is not one: a file there, or a write the system refuses
    (``WRITE_ERRORS``), is WriteFailed (status 2) naming it."""
    if path.is_dir():
        return
    if path.exists() or path.is_symlink():
        raise WriteFailed(f"{path}: a file, not a folder, where {what} is due: name a folder, or move the file away")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if exc.errno not in WRITE_ERRORS:
            raise
        raise _failed(path, exc, f"make {what} there") from None


# How much of a file check_replaceable reads to find its kind: the head, where the harness's own documents name
# their "schema" (their first member). A file no longer than this is read and parsed whole.
KIND_HEAD_BYTES = 64 * 1024


def check_replaceable(path: Path, replaces: Collection[str], what: str = "document") -> None:
    """Refuse (NotADocument) to replace ``path`` unless it does not exist or is a JSON object whose
    ``"schema"`` is one of ``replaces``. A symbolic link is judged by the file it points at. A file longer than
    ``KIND_HEAD_BYTES`` is judged by its head where the head decides (``_kind_in_head``: a report of a big sweep
    is megabytes, and only its kind matters here), else read whole, as a short one always is."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if path.is_symlink():  # a dangling link: writing would replace the link, not make its target
            raise NotADocument(f"{path}: a symbolic link to nothing, not a {what}; the harness writes a {what} "
                               "only over one: remove the link, or name another file") from None
        return
    except OSError as exc:
        raise NotADocument(f"{path}: cannot look at it before replacing it: {exc.strerror or exc}") from None
    kinds = " or ".join(sorted(replaces))
    if not stat.S_ISREG(mode):
        raise NotADocument(f"{path}: not a file, so not a {what} ({kinds}); the harness writes a {what} only "
                           "over one: name another path")
    never = f"the harness writes a {what} ({kinds}) only over one, never over another file: move it away or name " \
            "another path"
    try:
        with untrusted.open_regular(path, what) as handle:  # a file past its kind's limit is refused here
            head = b""
            while len(head) <= KIND_HEAD_BYTES and (more := handle.read(KIND_HEAD_BYTES + 1 - len(head))):
                head += more
        if len(head) > KIND_HEAD_BYTES:
            found = _kind_in_head(path, head[:KIND_HEAD_BYTES], what)
            if found is not None:
                _refuse_unless_replaceable(path, found, replaces, what, kinds)
                return
        document = untrusted.read_document(path, what)
    except untrusted.BadDocument as exc:
        raise NotADocument(f"{exc}; {never}") from None
    except OSError as exc:
        raise NotADocument(f"{path}: cannot read the {what}: {exc.strerror or exc}; {never}") from None
    _refuse_unless_replaceable(path, (document.get("schema"), "schema" in document), replaces, what, kinds)


def _refuse_unless_replaceable(path: Path, found: tuple[Any, bool], replaces: Collection[str], what: str,
                               kinds: str) -> None:
    """``found``: the document's "schema" value and whether it has one."""
    kind, has_schema = found
    if not isinstance(kind, str) or kind not in replaces:
        said = f"a document of schema {json.dumps(kind, ensure_ascii=True)[:80]}" if has_schema else \
            "a JSON object with no \"schema\""
        raise NotADocument(f"{path}: {said}, not a {what} ({kinds}); the harness writes a {what} only over "
                           "one, never over another file: move it away or name another path")


def _kind_in_head(path: Path, head: bytes, what: str) -> tuple[Any, bool] | None:
    """The top-level "schema" value of a long file, read from its first bytes ``head`` alone: (the value, True)
    where the head holds a JSON object whose members up to "schema" are whole and plain (no NaN, no deep
    nesting), its "schema" member included; a head that is not UTF-8 up to its last (possibly cut) character,
    or starts with a byte order mark, refused as the whole file would be (BadDocument). None where the head
    does not decide (not an object, "schema" past the head, a member before it that the head cuts or that the
    whole read would refuse): the caller reads the whole file then."""
    try:  # a character cut at the end of the head is left out, not refused
        text = codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError as exc:  # the whole file's decoding fails at the same byte
        raise untrusted.BadDocument(f"{path}: not a {what}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if text[:1] == "\ufeff":
        raise untrusted.BadDocument(f"{path}: not a {what}: a byte order mark (U+FEFF) before the JSON text")
    decoder = json.JSONDecoder(parse_constant=_no_constant)
    at = len(text) - len(text.lstrip(" \t\n\r"))
    if text[at:at + 1] != "{":
        return None
    at += 1
    try:
        while True:
            at = _skip_space(text, at)
            if text[at:at + 1] != '"':
                return None  # "}" (no "schema" in an object the head holds whole: read whole, to be sure) or cut
            key, at = json.decoder.scanstring(text, at + 1)
            at = _skip_space(text, at)
            if text[at:at + 1] != ":":
                return None
            value, at = decoder.raw_decode(text, _skip_space(text, at + 1))
            if untrusted.too_deep(value, untrusted.DOCUMENT_DEPTH):
                return None
            if key == "schema":
                return value, True
            at = _skip_space(text, at)
            if text[at:at + 1] != ",":
                return None
            at += 1
    except (ValueError, RecursionError):  # cut by the head, or what the whole read names better
        return None


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def _no_constant(name: str) -> Any:
    raise ValueError(f"the token {name}")


def atomic_write(path: Path, text: str | bytes, *, replaces: Collection[str] | None = None,
                 what: str = "document") -> None:
    """Write ``text`` (ASCII, or bytes as they are) to a temporary file in the same directory, fsync, then
    rename it over ``path``: a reader sees the old file or the new one, never a part, and an interrupted write leaves
    no temporary file behind. ``replaces``: the schemas a file already at ``path`` may have (see
    ``check_replaceable``); None writes over whatever is there."""
    if replaces is not None:
        check_replaceable(path, replaces, what)
    make_folder(path.parent, f"the folder of the {what}")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        if exc.errno not in WRITE_ERRORS:
            raise
        raise _failed(path, exc, f"write the {what} (a temporary file next to it)") from None
    try:
        with (os.fdopen(fd, "wb") if isinstance(text, bytes)
              else os.fdopen(fd, "w", encoding="ascii", newline="\n")) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.errno in WRITE_ERRORS:
            raise _failed(path, exc, f"write the {what}") from None
        raise


def write_document(path: Path, document: dict[str, Any], *, replaces: Collection[str], what: str) -> None:
    """Write a JSON document (a report) atomically, only over one of the kinds ``replaces`` names. What it
    writes its own readers take: a document nested past ``untrusted.DOCUMENT_DEPTH`` (a testee's value kept
    without ``untrusted.clip``) is the harness's own bug, raised before anything is written."""
    if untrusted.too_deep(document, untrusted.DOCUMENT_DEPTH):
        raise RuntimeError(f"{what} for {path} nests more than {untrusted.DOCUMENT_DEPTH} levels: a value was "
                           "kept without untrusted.clip, and its readers would refuse it")
    atomic_write(path, json.dumps(document, indent=2, ensure_ascii=True) + "\n", replaces=replaces, what=what)
